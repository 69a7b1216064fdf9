"""Judging: answers queued to each judge's own deployment, rated, and stored one row per (instance, judge).

`JudgePool` holds, per judge deployment, one client, a bounded queue and as many workers as the
judge may have requests in flight. The suite scheduler feeds it each answer the moment it is
stored (judging overlaps generation); `judge_runs` feeds it the stored answers a jury has not
rated yet (the resumable `medhelm-local judge` pass). Every request ends in a row: the ratings, or
the failure and its reason. Rows are the source of truth; each instance's jury score is derived
from them when the pass ends (`annotate.store.derive_jury_scores`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from medhelm_local.annotate.jury import Judge, ResolvedJury
from medhelm_local.annotate.parse import read_reply
from medhelm_local.annotate.rubric import Rubric
from medhelm_local.annotate.store import BATCH, Pending, judged_texts
from medhelm_local.policy.allowlist import PolicyAllowlist
from medhelm_local.records import Completion, Prompt
from medhelm_local.run.progress import NoProgress, Progress
from medhelm_local.store.database import ALIAS
from medhelm_local.store.writer import StoreWriter, row_of

if TYPE_CHECKING:  # the HTTP client loads when a pool first builds one: planning a jury needs none
    from medhelm_local.client.completions import ModelClient

log = logging.getLogger("medhelm_local.annotate")
# How the client names a transport failure -> how a rating row names it.
_TRANSPORT = {"connection": "unreachable"}


@dataclass(frozen=True)
class JudgedRun:
    """A run whose answers a jury rates by its benchmark's rubric."""

    run_id: str
    jury: ResolvedJury
    rubric: Rubric
    index: int = 0  # its place in a progress display


@dataclass(frozen=True)
class JudgeItem:
    """What one judge is shown for one instance."""

    instance_id: str
    input: str
    reference: str
    response: str


def judge_prompt(rubric: Rubric, item: JudgeItem) -> Prompt:
    """The request every judge of a jury gets for one answer: the rubric's prompt, asking for its JSON schema."""
    text = rubric.render(input=item.input, response=item.response, reference=item.reference)
    return Prompt(item.instance_id, text, max_tokens=rubric.max_tokens, temperature=0.0, system=rubric.system,
                  json_schema=rubric.json_schema())


def rating_row(run: JudgedRun, judge: str, completion: Completion, answer: str) -> tuple[bool, tuple[object, ...]]:
    """One judge's reply about `answer` (or its failure) as a ratings row, and whether it rated the answer."""
    if completion.ok:
        reading = read_reply(completion.text or "", run.rubric, answer)
        ok, ratings, mean = reading.ok, reading.ratings or None, reading.mean
        error_type, error_message = reading.error_type, reading.error_message
    else:
        ok, ratings, mean = False, None, None
        error_type = _TRANSPORT.get(completion.error_type or "", completion.error_type)
        error_message = completion.error_message
    return ok, row_of("ratings", run_id=run.run_id, instance_id=completion.instance_id, jury=run.jury.name, judge=judge,
                  rubric=run.rubric.name, ok=ok, ratings_json=json.dumps(ratings, sort_keys=True) if ratings else None,
                  mean=mean, error_type=error_type, error_message=error_message, latency_s=completion.latency_s,
                  prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                  attempts=completion.attempts)


_Work = tuple[JudgedRun, Prompt, bool, str] | None  # (run, prompt, replaces a failed row, the answer rated)


class JudgePool:
    """The judges' deployments while a pass (or a run) lasts: per judge a client, a queue and its workers."""

    def __init__(self, writer: StoreWriter, allowlist: PolicyAllowlist, clients: dict[str, ModelClient] | None = None,
                 progress: Progress | None = None) -> None:
        self.writer = writer
        self.allowlist = allowlist
        self.clients = clients if clients is not None else {}
        self.progress = progress or NoProgress()
        self.judges: dict[str, Judge] = {}
        self.queues: dict[str, asyncio.Queue[_Work]] = {}
        self.outcomes: Counter[tuple[str, str, bool]] = Counter()  # (run, judge, ok) this invocation

    def add(self, jury: ResolvedJury) -> None:
        """Make room for a jury's judges (built inside the event loop the client runs on)."""
        for judge in jury.judges:
            if judge.name not in self.judges:
                self.judges[judge.name] = judge
                if judge.name not in self.clients:
                    from medhelm_local.client.completions import ModelClient

                    self.clients[judge.name] = ModelClient(judge.deployment, judge.model, self.allowlist,
                                                           judge.concurrency)

    async def check_reachable(self) -> None:
        """Every judge's server answers (else the error says which, before anything is sent)."""
        await asyncio.gather(*(self.clients[name].check_reachable() for name in self.judges))

    def start(self, group: asyncio.TaskGroup) -> None:
        """Start each judge's workers in the task group."""
        for name, judge in self.judges.items():
            queue: asyncio.Queue[_Work] = asyncio.Queue(maxsize=2 * judge.concurrency)
            self.queues[name] = queue
            for _ in range(judge.concurrency):
                group.create_task(self._work(judge, queue))

    async def submit(self, run: JudgedRun, item: JudgeItem, judges: Sequence[str] | None = None,
                     replace: Sequence[str] = ()) -> None:
        """Queue one answer to each judge of the run's jury (or the named ones); waits while their queues are full."""
        prompt = judge_prompt(run.rubric, item)
        for judge in judges if judges is not None else run.jury.judge_names:
            await self.queues[judge].put((run, prompt, judge in replace, item.response))

    async def feed_stored(self, con: duckdb.DuckDBPyConnection, run: JudgedRun, pending: Sequence[Pending]) -> None:
        """Queue the stored answers a jury still owes ratings (read a batch at a time on their own cursor)."""
        cursor = con.cursor()
        cursor.execute(f"USE {ALIAS}")  # a cursor does not inherit the connection's `USE store`
        try:
            for start in range(0, len(pending), BATCH):
                batch = pending[start:start + BATCH]
                texts = judged_texts(cursor, run.run_id, [p.instance_id for p in batch])
                for owed in batch:
                    input_text, reference, response = texts[owed.instance_id]
                    await self.submit(run, JudgeItem(owed.instance_id, input_text, reference, response), owed.judges,
                                      owed.failed)
        finally:
            cursor.close()

    async def finish(self) -> None:
        """Tell every worker to stop once its queue is empty."""
        for name, queue in self.queues.items():
            for _ in range(self.judges[name].concurrency):
                await queue.put(None)

    async def _work(self, judge: Judge, queue: asyncio.Queue[_Work]) -> None:
        client = self.clients[judge.name]
        while (work := await queue.get()) is not None:
            run, prompt, replace, answer = work
            completion = await client.complete(prompt, judge.model)
            ok, row = rating_row(run, judge.name, completion, answer)
            dropped = [("-ratings", (run.run_id, prompt.instance_id, run.jury.name, judge.name))] if replace else []
            self.writer.put_group([*dropped, ("ratings", row)])
            self.outcomes[(run.run_id, judge.name, ok)] += 1
            self.progress.advance(run.index, ok)

    def sent(self, run_id: str) -> dict[str, dict[str, int]]:
        """Per judge, the ratings requested for a run in this invocation: how many rated, how many failed."""
        found: dict[str, dict[str, int]] = {}
        for (rid, judge, ok), count in sorted(self.outcomes.items()):
            if rid == run_id:
                counts = found.setdefault(judge, {"rated": 0, "failed": 0})
                counts["rated" if ok else "failed"] += count
        return found

    async def aclose(self) -> None:
        """Release the judges' connections (clients shared with generation are closed by their owner)."""
        for name in self.judges:
            await self.clients[name].aclose()
