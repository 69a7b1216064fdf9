"""A planned run while it executes: what earlier invocations stored, what it reads next, how far it is.

`start_runs` records each run in the store and reads back what an earlier, interrupted invocation
already answered, so the scheduler sends only what is missing; `instances_of` streams a run's
instances (a second pass over its files: planning checked them) with their ordinals.

What a run read (each data file's sha256, and whether that is a published release) is kept in its
row from its first invocation, and every invocation says so in the audit log as its runs start
(`run.started`), which the export gate checks the row against. A run is never resumed on other files than it started on,
and its second pass must read the very files planning did: one run's results come from one data.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from medhelm_local.errors import DatasetCorruptError, MedhelmError, MedhelmWarning
from medhelm_local.records import Instance, TaskType
from medhelm_local.run.plan import PlannedRun
from medhelm_local.scenarios.data_read import DataRead
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.queries import RunRecord, record_runs, stored_progress

log = logging.getLogger("medhelm_local.run")


@dataclass(eq=False)
class ActiveRun:
    """A planned run while it executes."""

    index: int
    plan: PlannedRun
    done: set[str]  # answered in an earlier invocation: never sent again
    stored: set[str]  # instance and request rows already written: not written again
    failed_before: set[str]  # a failed completion is stored: replaced when the retry is stored
    order: dict[str, int] | None  # with a sample: instance id -> ordinal
    started: float = field(default_factory=time.perf_counter)
    sent: int = 0
    failed_now: int = 0
    queued: int = 0
    finished: int = 0
    producing: bool = True
    finished_at: float | None = None

    @functools.cached_property
    def choice(self) -> bool:
        """Whether the run's answers choose among options (their confidence is then stored for calibration)."""
        return self.plan.benchmark.task_type == TaskType.MULTIPLE_CHOICE

    def settle(self) -> bool:
        """Note when everything queued has been recorded; True the one time that happens."""
        if not self.producing and self.finished == self.queued and self.finished_at is None:
            self.finished_at = time.perf_counter()
            return True
        return False


def sample_order(plan: PlannedRun, stored: list[str]) -> dict[str, int] | None:
    """Ordinals of the sample, by its order over all instances (so shards' ordinals never collide).

    A store written before sampling was keyed by id (schema v1) keeps its instances first, then
    the sample extends it.
    """
    if plan.sample is None or plan.limit is None:
        return None
    sampled = set(plan.sample)
    legacy = [i for i in stored if i not in sampled]
    order = list(dict.fromkeys([*legacy, *plan.sample]))[:plan.limit] if legacy else plan.sample
    return {instance_id: n for n, instance_id in enumerate(order)
            if plan.shard is None or plan.shard.holds(instance_id)}


def instances_of(run: ActiveRun) -> Iterator[tuple[int, Instance]]:
    """(ordinal, instance) of the run, streamed from its files (a second pass: planning checked them).

    Without a sample the ordinal is the instance's place among all instances, shard or not.
    """
    plan = run.plan
    read, instances = plan.benchmark.reading(plan.data)
    if plan.data_read is not None and dict(read.files) != dict(plan.data_read.files):
        raise _changed(plan, plan.data_read, read, "while the run was starting")
    for position, instance in enumerate(instances):
        if run.order is None:
            if plan.shard is None or plan.shard.holds(instance.id):
                yield position, instance
        elif instance.id in run.order:
            yield run.order[instance.id], instance


def start_runs(planned: Sequence[PlannedRun], store: StoreHandle, suite: str,
               concurrency: int | None) -> list[ActiveRun]:
    """Record each planned run in the store and read what earlier invocations did: each run, ready to go on.
    DatasetCorruptError, before anything is written, if a run would resume on other files than it started on."""
    _check_same_data(planned, store)
    records = []
    for plan in planned:
        bench = plan.benchmark
        records.append(RunRecord(
            run_id=plan.run_id, suite=suite, run_entry=plan.entry.canonical, scenario=plan.entry.scenario,
            scenario_args=dict(plan.entry.args), model=plan.entry.model, deployment=plan.entry.deployment,
            main_metric=bench.main_metric, access=bench.access,
            settings={"max_eval_instances": plan.limit, "concurrency": concurrency, "api": plan.deployment.api,
                      "shard": plan.shard.label if plan.shard else None, "planned_instances": plan.total,
                      "price": plan.deployment.price.model_dump() if plan.deployment.price else None},
            benchmark={"name": bench.name, "display_name": bench.display_name, "task_type": bench.task_type.value,
                       "subcategory": bench.subcategory, "category": bench.spec.card.taxonomy.category,
                       "access": bench.access, "metrics": [m.name for m in bench.metrics],
                       "not_comparable": bench.not_comparable},
            data=plan.data_read.to_json() if plan.data_read is not None else None))
    record_runs(store.con, records)
    progress = stored_progress(store.con, [plan.run_id for plan in planned])
    runs = []
    for index, plan in enumerate(planned):
        earlier = progress[plan.run_id]
        runs.append(ActiveRun(index, plan, earlier.done, set(earlier.stored), earlier.failed,
                              sample_order(plan, earlier.stored)))
        log.info("run %s: %d instances selected, %d already answered", plan.run_id, plan.total, len(earlier.done))
    return runs


def _changed(plan: PlannedRun, before: DataRead, now: DataRead, when: str) -> DatasetCorruptError:
    changed = sorted(set(before.files) ^ set(now.files) | {f for f in now.files if before.files.get(f) != now.files[f]})
    return DatasetCorruptError(
        f"run {plan.run_id}: the data of {plan.entry.scenario} changed {when} ({', '.join(changed[:3])})",
        where=str(plan.data.root / now.folder) if now.origin == "data root" else f"run entry {plan.entry.canonical}",
        fix="restore the files the run started on and run the same command again, or evaluate the data now there "
            "as a new suite (suite=, `medhelm-local run ... --suite NAME`): one run's results come from one set of "
            "files")


def _check_same_data(planned: Sequence[PlannedRun], store: StoreHandle) -> None:
    """Refuse to resume a run whose row records other files than planning read now."""
    rows = store.con.execute("SELECT run_id, data_json FROM runs WHERE run_id IN (SELECT unnest(?)) AND data_json "
                             "IS NOT NULL", [[p.run_id for p in planned]]).fetchall()
    recorded = dict(rows)
    for plan in planned:
        if plan.run_id in recorded and plan.data_read is not None:
            try:
                before = DataRead.from_json(json.loads(recorded[plan.run_id]))
            except ValueError:
                before = None
            if before is None or dict(before.files) != dict(plan.data_read.files):
                raise _changed(plan, before or DataRead("", ""), plan.data_read, "since the run started")


class Recorder(Protocol):
    """Where a run's start is recorded: the appliance's audit log (`audit.AuditLog`)."""

    def append(self, kind: str, details: dict[str, Any]) -> Any:
        """Add one record."""
        ...


def record_started(audit: Recorder, runs: Sequence[ActiveRun], store: StoreHandle, suite: str) -> None:
    """One `run.started` audit record for this invocation's runs: each run's benchmark, access level and what it
    read. A log that cannot be written is a warning: the runs go on, and no export treats them as public."""
    details = {"suite": suite, "store": str(store.path), "store_id": store.store_id, "runs": [
        {"run_id": run.plan.run_id, "benchmark": run.plan.entry.scenario, "access": run.plan.benchmark.access,
         "shipped": run.plan.benchmark.spec.builtin, "resumed": bool(run.stored),
         "data": run.plan.data_read.to_json() if run.plan.data_read is not None else None} for run in runs]}
    try:
        audit.append("run.started", details)
    except (MedhelmError, OSError) as exc:
        import warnings

        reason = exc.message if isinstance(exc, MedhelmError) else (exc.strerror or str(exc))
        warnings.warn(MedhelmWarning(f"the start of {len(runs)} run(s) could not be recorded in the audit log "
                                     f"({reason}); they run, and no export will treat them as public data"),
                      stacklevel=2)
