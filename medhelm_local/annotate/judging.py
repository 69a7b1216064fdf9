"""Judging: answers queued to each judge's own deployment, rated, and stored one row per (instance, judge).

`JudgePool` holds, per judge deployment, one client, a bounded queue and as many workers as the
judge may have requests in flight. A rubric asks each judge once per answer; a grader of rubric
items (HealthBench) once per item, and the judge's row is written when its last item is back. The
suite scheduler feeds it each answer the moment it is stored (judging overlaps generation);
`judge_runs` feeds it the stored answers a jury has not rated yet (the resumable `medhelm-local
judge` pass). Every (instance, judge) ends in a row: the ratings, or the failure and its reason.
Rows are the source of truth; each instance's jury score is derived from them when the pass ends
(`store.ratings.derive_jury_scores`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import duckdb

from medhelm_local.annotate.jury import Judge, ResolvedJury
from medhelm_local.annotate.parse import read_reply
from medhelm_local.annotate.rubric import Rubric
from medhelm_local.annotate.rubric_items import ItemGrader
from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.progress import NoProgress, Progress
from medhelm_local.records import Completion, Prompt
from medhelm_local.store.database import ALIAS
from medhelm_local.store.ratings import BATCH, Pending, judged_texts
from medhelm_local.store.writer import StoreWriter, row_of

if TYPE_CHECKING:  # the HTTP client loads when a pool first builds one: planning a jury needs none
    from medhelm_local.client.completions import ModelClient

log = logging.getLogger("medhelm_local.annotate")
# How the client names a transport failure -> how a rating row names it.
_TRANSPORT = {"connection": "unreachable"}


Grader = Rubric | ItemGrader


@dataclass(frozen=True)
class JudgedRun:
    """A run whose answers a jury judges by its benchmark's rubric (or grader of rubric items)."""

    run_id: str
    jury: ResolvedJury
    rubric: Grader
    index: int = 0  # its place in a progress display
    metric: str = "jury_score"  # the score the judging gives each instance


@dataclass(frozen=True)
class JudgeItem:
    """What one judge is shown for one instance (`extra`: the instance's own fields, e.g. its rubric items)."""

    instance_id: str
    input: str
    reference: str
    response: str
    extra: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def judge_prompt(rubric: Rubric, item: JudgeItem) -> Prompt:
    """The request every judge of a jury gets for one answer: the rubric's prompt, asking for its JSON schema."""
    text = rubric.render(input=item.input, response=item.response, reference=item.reference)
    return Prompt(item.instance_id, text, max_tokens=rubric.max_tokens, temperature=0.0, system=rubric.system,
                  json_schema=rubric.json_schema())


def judge_prompts(grader: Grader, item: JudgeItem) -> list[Prompt]:
    """Every request one judge gets for one answer: the rubric's one, or one per rubric item."""
    if isinstance(grader, ItemGrader):
        return grader.prompts(item.instance_id, item.response, item.extra)
    return [judge_prompt(grader, item)]


def _reading(grader: Grader, item: JudgeItem, texts: Sequence[str]) -> Any:
    if isinstance(grader, ItemGrader):
        return grader.read(texts, item.extra, item.response)
    return read_reply(texts[0], grader, item.response)


def rating_row(run: JudgedRun, judge: str, completions: Sequence[Completion] | Completion,
               item: JudgeItem | None = None) -> tuple[bool, tuple[object, ...]]:
    """One judge's answers for an instance (or their failure) as a ratings row, and whether it rated the answer."""
    replies = [completions] if isinstance(completions, Completion) else list(completions)
    failed = next((c for c in replies if not c.ok), None)
    if failed is None:
        reading = _reading(run.rubric, item or JudgeItem(replies[0].instance_id, "", "", ""),
                           [c.text or "" for c in replies])
        ok, ratings, mean = reading.ok, reading.ratings or None, reading.mean
        error_type, error_message = reading.error_type, reading.error_message
    else:
        ok, ratings, mean = False, None, None
        error_type = _TRANSPORT.get(failed.error_type or "", failed.error_type)
        error_message = failed.error_message
        if len(replies) > 1:
            error_message = f"{sum(not c.ok for c in replies)} of {len(replies)} requests failed: {error_message}"

    def total(values: list[int | None]) -> int | None:
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)

    latency = [c.latency_s for c in replies if c.latency_s is not None]
    return ok, row_of("ratings", run_id=run.run_id, instance_id=replies[0].instance_id, jury=run.jury.name,
                      judge=judge, rubric=run.rubric.name, ok=ok,
                      ratings_json=json.dumps(ratings, sort_keys=True) if ratings else None, mean=mean,
                      error_type=error_type, error_message=error_message,
                      latency_s=sum(latency) if latency else None,
                      prompt_tokens=total([c.prompt_tokens for c in replies]),
                      completion_tokens=total([c.completion_tokens for c in replies]),
                      attempts=sum(c.attempts for c in replies))


@dataclass
class _Gathering:
    """One judge's requests for one instance, while they come back."""

    run: JudgedRun
    item: JudgeItem
    replace: bool
    replies: list[Completion | None]

    @property
    def complete(self) -> bool:
        return all(r is not None for r in self.replies)


_Work = tuple[_Gathering, int, Prompt] | None  # (the judge's requests for an instance, which one, its prompt)


class JudgePool:
    """The judges' deployments while a pass (or a run) lasts: per judge a client, a queue and its workers."""

    def __init__(self, writer: StoreWriter, allowlist: PolicyAllowlist, clients: dict[str, ModelClient] | None = None,
                 progress: Progress | None = None, expect_on_submit: bool = False) -> None:
        self.writer = writer
        self.allowlist = allowlist
        self.clients = clients if clients is not None else {}
        self.progress = progress or NoProgress()
        # A run learns what its judges owe as answers arrive; a judge pass knows it ahead and says so itself.
        self.expect_on_submit = expect_on_submit
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
        prompts = judge_prompts(run.rubric, item)
        for judge in judges if judges is not None else run.jury.judge_names:
            if self.expect_on_submit:
                self.progress.judging(judge, 1)
            gathering = _Gathering(run, item, judge in replace, [None] * len(prompts))
            for index, prompt in enumerate(prompts):
                await self.queues[judge].put((gathering, index, prompt))

    async def feed_stored(self, con: duckdb.DuckDBPyConnection, run: JudgedRun, pending: Sequence[Pending]) -> None:
        """Queue the stored answers a jury still owes ratings (read a batch at a time on their own cursor)."""
        cursor = con.cursor()
        cursor.execute(f"USE {ALIAS}")  # a cursor does not inherit the connection's `USE store`
        try:
            for start in range(0, len(pending), BATCH):
                batch = pending[start:start + BATCH]
                texts = judged_texts(cursor, run.run_id, [p.instance_id for p in batch])
                for owed in batch:
                    input_text, reference, response, extra = texts[owed.instance_id]
                    await self.submit(run, JudgeItem(owed.instance_id, input_text, reference, response, extra),
                                      owed.judges, owed.failed)
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
            gathering, index, prompt = work
            gathering.replies[index] = await client.complete(prompt, judge.model)
            if not gathering.complete:
                continue
            run = gathering.run
            ok, row = rating_row(run, judge.name, [r for r in gathering.replies if r is not None], gathering.item)
            dropped = [("-ratings", (run.run_id, prompt.instance_id, run.jury.name, judge.name))] \
                if gathering.replace else []
            self.writer.put_group([*dropped, ("ratings", row)])
            self.outcomes[(run.run_id, judge.name, ok)] += 1
            self.progress.judged(judge.name, ok)

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
