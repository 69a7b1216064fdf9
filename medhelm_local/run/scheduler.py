"""The suite scheduler: every run entry of a command at once, each endpoint kept full, memory flat.

Each deployment gets one client and `max_concurrency` workers, shared by every run entry that
uses it, so three models on three endpoints work in parallel and two benchmarks on one endpoint
interleave without exceeding its limit. The client adopts the connections opened ahead for it
(run/connections.py), so each worker's first request leaves as soon as its prompt is ready. Each
run streams its instances in batches: read, prompted, written (instances, requests), queued to its
deployment (a bounded queue), answered, scored and written, so memory does not grow with the number
of instances.

A worker that gets a reply sends its next request before the reply is scored and stored: one task
(`_Suite.record`) scores and hands answers to the writer, one at a time, letting the event loop
take new replies between them. When several endpoints' replies arrive together, each slot's next
request then leaves after the others' replies are read, not after they are all scored and stored
(bench/suite.py). At most two answers per slot wait to be recorded.

Every completion and its scores are committed together within moments of the reply, so a run killed
at any point resumes where it stopped: instances with a successful completion are never requested
again (one killed between reply and record is asked again). Failed requests are stored with their
reason and retried on resume.

Runs with a jury overlap judging with generation: each answer, once stored, is queued to the
judges' own deployments (`annotate.judging.JudgePool`, each judge with its own limit), and answers
an earlier invocation stored but no judge rated yet are queued too. Jury scores are derived from
the stored ratings when everything has finished.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from medhelm_local.annotate.judging import JudgedRun, JudgeItem, JudgePool
from medhelm_local.annotate.parse import CONTENT_FAILURES
from medhelm_local.client.completions import ModelClient
from medhelm_local.client.loop import run as run_loop
from medhelm_local.client.tokenizer import ServerTokenizer
from medhelm_local.errors import MedhelmError
from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.progress import NoProgress, Progress
from medhelm_local.records import Completion, Instance, Prompt
from medhelm_local.results.outcomes import RunOutcome, Summaries
from medhelm_local.run.active import ActiveRun, Recorder, instances_of, record_started, start_runs
from medhelm_local.run.connections import Connected, connect_ahead
from medhelm_local.run.plan import PlannedRun
from medhelm_local.run.truncation import fit
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.ratings import Pending, pending_judgings
from medhelm_local.store.rows import completion_row, instance_row, request_row, score_row
from medhelm_local.store.writer import StoreWriter

log = logging.getLogger("medhelm_local.run")
# Instances read, prompted and written at a time per run. Each batch holds the event loop while it is read, and
# every run's producer starts at once, so replies wait on it: small batches let a reply's next request leave
# sooner, large ones delay a suite's first requests (docs/performance.md, "Decisions behind constants").
BATCH = 16
# The store's first commit waits this long after the first rows (seconds). That commit loads pyarrow, holding
# the interpreter: made at once, it ran while the first requests went out and their replies came back, slowing
# both; a moment later the event loop is idle, waiting on the servers (docs/performance.md).
FIRST_COMMIT_AFTER = 0.1


Work = tuple[ActiveRun, Instance, Prompt] | None
Begin = Callable[[], tuple[list[ActiveRun], dict[str, list[Pending]]]]  # records the runs: them, and ratings owed


class _Suite:
    """One invocation's runs on their deployments."""

    def __init__(self, planned: Sequence[PlannedRun], begin: Begin, writer: StoreWriter, allowlist: PolicyAllowlist,
                 concurrency: int | None, progress: Progress, summaries: Summaries,
                 judged: dict[str, JudgedRun] | None = None, store: StoreHandle | None = None,
                 connected: Connected | None = None) -> None:
        self.planned = list(planned)
        self.begin = begin
        self.runs: list[ActiveRun] = []  # once begun
        self.connected = connected or Connected()
        self.summaries = summaries
        self.perturbed = {_entry_of(plan) for plan in planned if "perturbation" in plan.entry.args}
        self.writer = writer
        self.progress = progress
        self.allowlist = allowlist
        self.concurrency = concurrency
        self.clients: dict[str, ModelClient] = {}
        self.judged = judged or {}
        self.owed: dict[str, list[Pending]] = {}  # ratings an earlier invocation's answers still need (once begun)
        self.store = store
        self.pool: JudgePool | None = None
        self.generating: list[str] = []  # deployments that answer runs (judges may share their clients)
        self.tokenizers: dict[tuple[str, str], ServerTokenizer] = {}
        # Replies waiting to be scored and stored, oldest first (see the module's docstring).
        self.answered: deque[tuple[ActiveRun, Instance, Completion]] = deque()
        self.waiting_room = 0  # answers that may wait; set once the clients' limits are known
        self._arrived = asyncio.Event()  # an answer was added
        self._recorded = asyncio.Event()  # the recorder caught up to the waiting room: waiting workers may go on
        self._generated = False  # every worker has stopped: the recorder ends once the queue is empty

    def _open_clients(self) -> None:
        """One client per deployment (built inside the event loop the client runs on); judges share them."""
        for plan in self.planned:
            name = plan.entry.deployment
            if name not in self.clients:
                self.clients[name] = ModelClient(plan.deployment, plan.entry.model, self.allowlist, self.concurrency)
        self.generating = list(self.clients)
        self.waiting_room = 2 * sum(self.clients[name].limit for name in self.generating)
        if self.judged:
            self.pool = JudgePool(self.writer, self.allowlist, self.clients, self.progress, expect_on_submit=True)
            for judged in self.judged.values():
                self.pool.add(judged.jury)

    async def produce(self, run: ActiveRun, queue: asyncio.Queue[Work]) -> None:
        """Stream the run's instances into its deployment's queue, writing instance and request rows per batch."""
        batch: list[tuple[int, Instance]] = []
        for item in instances_of(run):
            batch.append(item)
            if len(batch) >= BATCH:
                await self._flush(run, batch, queue)
                # The workers send what was queued before this producer reads on: a suite's first round leaves
                # batch by batch as it is read, not once every producer has filled its queue.
                await asyncio.sleep(0)
                batch = []
        if batch:
            await self._flush(run, batch, queue)
        run.producing = False
        self._settle(run)

    def _settle(self, run: ActiveRun) -> None:
        """Once everything the run queued is recorded, summarise it in the background as soon as its rows are
        committed, unless its aggregates wait for others: a judged run's jury scores (derived at the end), a
        clean run's robustness (read from its perturbed runs in this invocation)."""
        if run.settle() and run.plan.run_id not in self.judged and _entry_of(run.plan) not in self.perturbed:
            self.writer.when_committed(functools.partial(self.summaries.start, run.plan.run_id))

    def _tokenizer(self, run: ActiveRun) -> ServerTokenizer:
        key = (run.plan.entry.deployment, run.plan.model_name)
        if key not in self.tokenizers:
            self.tokenizers[key] = ServerTokenizer(self.clients[key[0]], key[1])
        return self.tokenizers[key]

    async def _prompts(self, run: ActiveRun, batch: list[tuple[int, Instance]]) -> list[Prompt]:
        """The batch's prompts; a benchmark with long records has them cut to fit the model (run/truncation.py)."""
        bench = run.plan.benchmark
        prompts = [bench.prompt(inst) for _, inst in batch]
        if bench.truncation is None:
            return prompts
        tokenizer = self._tokenizer(run)
        return list(await asyncio.gather(*(fit(tokenizer, bench, inst, prompt) if inst.id not in run.done else
                                           _same(prompt) for (_, inst), prompt in zip(batch, prompts, strict=True))))

    async def _flush(self, run: ActiveRun, batch: list[tuple[int, Instance]], queue: asyncio.Queue[Work]) -> None:
        run_id = run.plan.run_id
        prompts = await self._prompts(run, batch)
        new = [(n, inst, prompt) for (n, inst), prompt in zip(batch, prompts, strict=True) if inst.id not in run.stored]
        if new:
            self.writer.put_group([*(("instances", instance_row(run_id, n, inst)) for n, inst, _ in new),
                                   *(("requests", request_row(run_id, prompt)) for _, _, prompt in new)])
            if self.writer.behind:
                await self.writer.room()
        for (_, inst), prompt in zip(batch, prompts, strict=True):
            if inst.id not in run.done:
                run.queued += 1
                await queue.put((run, inst, prompt))

    async def work(self, client: ModelClient, queue: asyncio.Queue[Work]) -> None:
        """Send queued instances' prompts and hand each reply to the recorder, until the queue says stop."""
        while (item := await queue.get()) is not None:
            run, inst, prompt = item
            completion = await client.complete(prompt, run.plan.entry.model)
            self.answered.append((run, inst, completion))
            self._arrived.set()
            while len(self.answered) > self.waiting_room:  # the recorder is behind: do not hold more answers
                self._recorded.clear()
                await self._recorded.wait()

    async def record(self) -> None:
        """Score and store answers as workers hand them over, until every worker has stopped."""
        while True:
            while self.answered:
                await self._record(*self.answered.popleft())
                # Only once there is room: every set() wakes every waiting worker, and one woken before then
                # would only wait again: each waiting worker looped once for every answer recorded meanwhile.
                if len(self.answered) <= self.waiting_room:
                    self._recorded.set()
                await asyncio.sleep(0)  # replies that came in meanwhile send their next requests first
            if self._generated:
                return
            self._arrived.clear()
            await self._arrived.wait()

    async def _record(self, run: ActiveRun, inst: Instance, completion: Completion) -> None:
        """Score one answer, hand it and its scores to the writer, count it, and queue it to the jury."""
        # Score before writing: a completion is never stored without its scores, so a rerun
        # (which skips completed instances) can never leave one unscored.
        scores = (run.plan.benchmark.score(inst, completion.text or "", completion=completion.helm_text)
                  if completion.ok else [])
        run_id = run.plan.run_id
        retried = [("-completions", (run_id, inst.id))] if inst.id in run.failed_before else []
        options = len(inst.references) if run.choice else None
        self.writer.put_group([*retried, ("completions", completion_row(run_id, completion, options)),
                               *(("scores", score_row(run_id, s)) for s in scores)])
        if self.writer.behind:  # the store is behind a fast endpoint: wait rather than hold rows in memory
            await self.writer.room()
        run.sent += 1
        run.failed_now += 0 if completion.ok else 1
        run.finished += 1
        self._settle(run)
        self.progress.advance(run.index, completion.ok)
        judged = self.judged.get(run_id)
        if judged is not None and completion.ok and self.pool is not None:
            # Waits while the judges' queues are full: generation never runs far ahead of judging.
            reference = inst.correct_references[0].text if inst.correct_references else ""
            await self.pool.submit(judged, JudgeItem(inst.id, inst.input, reference, completion.text or "", inst.extra))

    async def execute(self) -> None:
        """Check every endpoint answers, then run everything; the first error stops all of it."""
        self._open_clients()
        try:
            # The runs are recorded in the store (DuckDB, leaving the interpreter free) while the clients take their
            # connections and the endpoints are checked.
            beginning = asyncio.get_running_loop().run_in_executor(None, self.begin)
            try:
                kept = await asyncio.gather(*(self.clients[name].adopt(self.connected.take(name))
                                              for name in self.generating))
                await asyncio.gather(*(client.check_reachable() for client in self.clients.values()))
            except BaseException:
                await asyncio.wait([beginning])  # the store is that thread's until it is done
                if not beginning.cancelled():
                    beginning.exception()  # retrieved: the endpoint's error is the one to report
                raise
            self.runs, self.owed = await beginning
            self.progress.start([(r.plan.entry.canonical, r.plan.total, min(len(r.done), r.plan.total))
                                 for r in self.runs])
            log.info("%d endpoint(s) answered, %d connection(s) opened ahead: sending", len(self.clients), sum(kept))
            async with asyncio.TaskGroup() as group:
                if self.pool is not None:
                    self.pool.start(group)
                recorder = group.create_task(self.record())
                work = [group.create_task(self._deployment(name, self.clients[name])) for name in self.generating]
                if self.pool is not None and self.store is not None:
                    work += [group.create_task(self.pool.feed_stored(self.store.con, judged, self.owed[run_id]))
                             for run_id, judged in self.judged.items() if self.owed.get(run_id)]
                await asyncio.gather(*work)
                self._generated = True
                self._arrived.set()
                await recorder
                if self.pool is not None:
                    await self.pool.finish()
        except BaseExceptionGroup as grouped:
            raise _first(grouped) from None
        finally:
            for client in self.clients.values():
                await client.aclose()

    async def _deployment(self, name: str, client: ModelClient) -> None:
        queue: asyncio.Queue[Work] = asyncio.Queue(maxsize=2 * client.limit)
        mine = [run for run in self.runs if run.plan.entry.deployment == name]
        async with asyncio.TaskGroup() as group:
            workers = [group.create_task(self.work(client, queue)) for _ in range(client.limit)]
            await asyncio.gather(*(self.produce(run, queue) for run in mine))
            for _ in workers:
                await queue.put(None)


def _judging_sent(pool: JudgePool | None, run_id: str,
                  judged: dict[str, JudgedRun]) -> dict[str, dict[str, int]] | None:
    """Per judge, the ratings this invocation requested for a run and how they ended (None: not judged)."""
    return None if pool is None or run_id not in judged else pool.sent(run_id)


def _entry_of(plan: PlannedRun) -> tuple[str, str, str]:
    """What a clean run and its perturbed runs share (results/figures.py pairs them the same way)."""
    entry = plan.entry
    return entry.scenario, entry.model, entry.deployment


async def _same(prompt: Prompt) -> Prompt:
    return prompt


def _first(grouped: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error to report from a task group: a user-facing one if any, else the first."""
    leaves: list[BaseException] = []

    def walk(exc: BaseException) -> None:
        if isinstance(exc, BaseExceptionGroup):
            for inner in exc.exceptions:
                walk(inner)
        else:
            leaves.append(exc)

    walk(grouped)
    return next((e for e in leaves if isinstance(e, MedhelmError)), leaves[0])


def execute(planned: Sequence[PlannedRun], store: StoreHandle, allowlist: PolicyAllowlist, suite: str,
            concurrency: int | None = None, progress: Progress | None = None,
            judged: dict[str, JudgedRun] | None = None, connected: Connected | None = None,
            audit: Recorder | None = None) -> list[RunOutcome]:
    """Run every planned entry into the store at once (judging the runs in `judged` as answers arrive), then
    summarise and record each run's aggregates. `connected`: the deployments' connections, opened ahead
    (`run.connections.connect_ahead`, while the store opened); opened here when not given. `audit`: the
    appliance's audit log, where the runs' start and what they read are recorded as they start (without that
    record no export treats the runs as public data)."""
    with connected or connect_ahead(planned, allowlist, concurrency) as ahead:
        return _execute(planned, store, allowlist, suite, concurrency, progress or NoProgress(), judged, ahead,
                        audit)


def _execute(planned: Sequence[PlannedRun], store: StoreHandle, allowlist: PolicyAllowlist, suite: str,
             concurrency: int | None, progress: Progress, judged: dict[str, JudgedRun] | None,
             connected: Connected, audit: Recorder | None) -> list[RunOutcome]:
    judged = judged or {}
    recording: list[threading.Thread] = []

    def begin() -> tuple[list[ActiveRun], dict[str, list[Pending]]]:
        """Record the runs (in the store, and their start in the audit log), and read what earlier invocations
        stored: their answers, and (before anything new is stored) those the judges still owe ratings."""
        runs = start_runs(planned, store, suite, concurrency)
        if audit is not None:
            # Beside the runs rather than before them: opening the encrypted log and committing a record takes
            # longer than the first requests do. A run that ends first waits for it (below).
            recording.append(threading.Thread(target=record_started, args=(audit, runs, store, suite),
                                              name="medhelm-run-audit"))
            recording[-1].start()
        return runs, {run_id: pending_judgings(store.con, run_id, j.jury.name, j.jury.judge_names, CONTENT_FAILURES)
                      for run_id, j in judged.items()}

    writer = StoreWriter(store, first_commit_after=FIRST_COMMIT_AFTER)
    with Summaries(store) as summaries:
        suite_run = _Suite(planned, begin, writer, allowlist, concurrency, progress, summaries, judged, store,
                           connected)
        try:
            run_loop(suite_run.execute())
        finally:
            for thread in recording:
                thread.join()
            flush_started = time.perf_counter()
            try:
                writer.close()
            finally:
                progress.finish()
            log.info("store writes flushed in %.3f s", time.perf_counter() - flush_started)
        return _conclude(suite_run.runs, store, summaries, suite_run.pool, judged)


def _conclude(runs: list[ActiveRun], store: StoreHandle, summaries: Summaries, pool: JudgePool | None,
              judged: dict[str, JudgedRun]) -> list[RunOutcome]:
    """Derive the juries' scores, record every run's aggregates, and say how each run went."""
    from medhelm_local.results.aggregates import record_summaries
    from medhelm_local.results.figures import refresh_robustness
    from medhelm_local.run.jury_runs import finish_judged  # here: the judge pass loads once a suite finishes

    for judged_run in judged.values():
        finish_judged(store, judged_run)
    outcomes = []
    aggregating = time.perf_counter()
    computed = summaries.collect([run.plan.run_id for run in runs])
    record_summaries(store.con, {run.plan.run_id: aggregates for run, (aggregates, _) in zip(runs, computed,
                                                                                             strict=True)})
    refresh_robustness(store.con, [run.plan.run_id for run in runs])
    for run, (aggregates, summary) in zip(runs, computed, strict=True):
        wall = (run.finished_at or time.perf_counter()) - run.started
        log.info("run %s: sent %d, reused %d, ok %d, failed %d, %.3f s", run.plan.run_id, run.sent,
                 len(run.done), summary.n_ok, summary.n_failed, wall)
        outcomes.append(RunOutcome(summary, aggregates, run.sent, run.plan.total - run.queued, wall, run.failed_now,
                                   _judging_sent(pool, run.plan.run_id, judged)))
    log.info("aggregates of %d run(s) computed in %.3f s", len(runs), time.perf_counter() - aggregating)
    return outcomes
