"""Run entries end to end: local data -> prompts -> model server -> encrypted store -> scores.

Every completion and its scores are committed as soon as they exist, so a run killed at any
point resumes where it stopped: instances that already have a successful completion are
never requested again. Failed requests are stored with their reason and retried on resume.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from medhelm_local.client.completions import ModelClient
from medhelm_local.errors import DeploymentError
from medhelm_local.policy.allowlist import PolicyAllowlist, allowlist_for
from medhelm_local.records import Aggregate, Completion, Instance
from medhelm_local.run_entry import RunEntry
from medhelm_local.scenarios import Benchmark, DataRoot, create
from medhelm_local.settings import Deployment, Settings
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.queries import RunSummary, completed_ids, get_run, record_run, run_aggregates
from medhelm_local.store.suites import suite_store_path
from medhelm_local.store.writer import StoreWriter

log = logging.getLogger("medhelm_local.runner")
SELECTION_SEED = 0


class Progress(Protocol):
    """Where a run reports its progress (a terminal bar, or nothing)."""

    def start(self, label: str, total: int, already_done: int) -> None: ...
    def advance(self, ok: bool) -> None: ...
    def finish(self) -> None: ...


class NoProgress:
    """Progress that shows nothing (quiet and JSON modes)."""

    def start(self, label: str, total: int, already_done: int) -> None:
        """Ignore."""

    def advance(self, ok: bool) -> None:
        """Ignore."""

    def finish(self) -> None:
        """Ignore."""


@dataclass(frozen=True)
class RunOutcome:
    """What one run entry produced in this invocation, and where the run stands overall."""

    summary: RunSummary
    aggregates: list[Aggregate]
    sent: int
    reused: int
    wall_s: float


def select_instances(instances: Sequence[Instance], limit: int | None) -> list[Instance]:
    """A fixed, seeded sample: a larger limit later extends the same sample rather than replacing it."""
    order = list(instances)
    random.Random(SELECTION_SEED).shuffle(order)
    return order if limit is None else order[:limit]


def deployment_for(settings: Settings, entry: RunEntry) -> Deployment:
    """The configured deployment a run entry names."""
    try:
        return settings.deployments[entry.deployment]
    except KeyError:
        known = ", ".join(sorted(settings.deployments)) or "none configured"
        raise DeploymentError(
            f"no model deployment is called '{entry.deployment}'", where=f"run entry {entry.canonical!r}",
            fix=f"use one of: {known}; or add [deployments.{entry.deployment}] with base_url to your config file",
        ) from None


@dataclass
class PlannedRun:
    """A run entry resolved against settings and data, ready to execute."""

    entry: RunEntry
    run_id: str
    benchmark: Benchmark
    deployment: Deployment
    instances: list[Instance]
    allowlist: PolicyAllowlist


def plan(settings: Settings, entries: Sequence[RunEntry], suite: str,
         max_eval_instances: int | None) -> list[PlannedRun]:
    """Check every entry (benchmark, arguments, deployment on the egress allowlist, data files) before
    anything is written or sent."""
    data = DataRoot(settings.data_root)
    allowlist = allowlist_for(settings)
    planned = []
    for entry in entries:
        benchmark = create(entry.scenario, entry.args)
        deployment = deployment_for(settings, entry)
        allowlist.require(entry.deployment, deployment)
        instances = select_instances(benchmark.load(data), max_eval_instances)
        planned.append(PlannedRun(entry, entry.run_id(suite), benchmark, deployment, instances, allowlist))
    return planned


def _instance_rows(run_id: str, instances: Sequence[Instance]) -> list[tuple[object, ...]]:
    return [(run_id, inst.id, n, inst.split, inst.input,
             json.dumps([{"text": r.text, "correct": r.correct} for r in inst.references]),
             json.dumps(dict(inst.extra)))
            for n, inst in enumerate(instances)]


def _completion_row(run_id: str, c: Completion) -> tuple[object, ...]:
    return (run_id, c.instance_id, c.ok, c.text, c.finish_reason, c.prompt_tokens, c.completion_tokens,
            c.latency_s, c.attempts, c.error_type, c.error_message, c.logprobs_json)


async def _execute(run: PlannedRun, store: StoreHandle, writer: StoreWriter, settings: Settings,
                   concurrency: int | None, progress: Progress) -> tuple[int, int]:
    _t0 = time.perf_counter()
    done = completed_ids(store.con, run.run_id)
    prompts = {inst.id: run.benchmark.prompt(inst) for inst in run.instances}
    writer.put_many("instances", _instance_rows(run.run_id, run.instances))
    writer.put_many("requests", [(run.run_id, p.instance_id, p.text, json.dumps(
        {"max_tokens": p.max_tokens, "temperature": p.temperature, "stop": list(p.stop), "logprobs": p.logprobs}))
        for p in prompts.values()])
    pending = [inst for inst in run.instances if inst.id not in done]
    log.info("run %s: %d pending, %d already done; prepared in %.3f s", run.run_id, len(pending), len(done),
             time.perf_counter() - _t0)
    progress.start(run.entry.canonical, len(run.instances), len(run.instances) - len(pending))
    if not pending:
        progress.finish()
        return 0, len(run.instances)
    client = ModelClient(run.deployment, run.entry.model, run.allowlist, concurrency)
    try:
        await client.check_reachable()
        requests_started = time.perf_counter()

        queue = iter(pending)

        async def worker() -> None:
            # A fixed pool of `limit` workers, not one task per instance: each prompt is encoded
            # only when a slot is free, so the first requests leave at once.
            for inst in queue:
                completion = await client.complete(prompts[inst.id])
                # Score before writing: a completion is never stored without its scores, so a rerun
                # (which skips completed instances) can never leave one unscored.
                scores = run.benchmark.score(inst, completion.text or "") if completion.ok else []
                writer.put_group([("completions", _completion_row(run.run_id, completion))]
                                 + [("scores", (run.run_id, sc.instance_id, sc.metric, sc.value, sc.extracted))
                                    for sc in scores])
                progress.advance(completion.ok)

        await asyncio.gather(*(worker() for _ in range(min(client.limit, len(pending)))))
        log.info("run %s: %d requests in %.3f s", run.run_id, len(pending), time.perf_counter() - requests_started)
    finally:
        await client.aclose()
        progress.finish()
    return len(pending), len(run.instances) - len(pending)


def execute(planned: Sequence[PlannedRun], store: StoreHandle, settings: Settings, suite: str,
            concurrency: int | None = None, progress: Progress | None = None,
            with_aggregates: bool = True) -> list[RunOutcome]:
    """Run each planned entry into the store, one after another, and summarise each.

    `with_aggregates=False` skips the metric summaries (bootstrap intervals) for callers that
    print nothing; everything is in the store either way.
    """
    progress = progress or NoProgress()
    outcomes = []
    for run in planned:
        started = time.perf_counter()
        record_run(store.con, run_id=run.run_id, suite=suite, run_entry=run.entry.canonical,
                   scenario=run.entry.scenario, scenario_args=dict(run.entry.args), model=run.entry.model,
                   deployment=run.entry.deployment, main_metric=run.benchmark.main_metric,
                   access=run.benchmark.access,
                   settings={"max_eval_instances": len(run.instances), "concurrency": concurrency,
                             "api": run.deployment.api})
        log.info("run %s: %d instances selected", run.run_id, len(run.instances))
        writer = StoreWriter(store)
        try:
            sent, reused = asyncio.run(_execute(run, store, writer, settings, concurrency, progress))
        finally:
            flush_started = time.perf_counter()
            writer.close()
            log.info("run %s: store writes flushed in %.3f s", run.run_id, time.perf_counter() - flush_started)
        summary = get_run(store.con, run.run_id)
        log.info("run %s: sent %d, reused %d, ok %d, failed %d", run.run_id, sent, reused, summary.n_ok,
                 summary.n_failed)
        aggregates = run_aggregates(store.con, run.run_id) if with_aggregates else []
        outcomes.append(RunOutcome(summary, aggregates, sent, reused, time.perf_counter() - started))
        log.info("run %s: finished in %.3f s", run.run_id, outcomes[-1].wall_s)
    return outcomes


def store_path_for(settings: Settings, suite: str, store: Path | None) -> Path:
    """The store file of a suite: `--store` if given, else `<output_dir>/<suite>.duckdb`."""
    return store if store is not None else suite_store_path(settings.output_dir, suite)
