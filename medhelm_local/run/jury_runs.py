"""Which runs a jury rates, and the resumable judge pass over a suite's stored answers.

`plan_judging` (for `run`): each planned run whose benchmark has a jury metric gets the jury named
by its `jury_config_path` argument (MedHELM's), else the command's (`--jury`, else the `jury`
setting). A jury benchmark with no jury runs anyway: its answers are stored unjudged, its jury
score counted as pending (never imputed), and `medhelm-local judge SUITE` rates them later.
`judge_runs` (for `judge`): the same for stored runs, then every owed (instance, judge) rating is
requested, each pass sending only what earlier passes did not store.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb

from medhelm_local.annotate.judging import JudgedRun, JudgePool
from medhelm_local.annotate.jury import (
    MEDHELM_PREFIX,
    ResolvedJury,
    jury_from_medhelm_judges,
    resolve_jury,
    self_judging,
)
from medhelm_local.annotate.parse import CONTENT_FAILURES
from medhelm_local.annotate.rubric import Rubric
from medhelm_local.client.loop import run as run_loop
from medhelm_local.errors import ConfigError, MedhelmError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.progress import NoProgress, Progress
from medhelm_local.records import Aggregate
from medhelm_local.results.aggregates import compute_aggregates, record_summaries
from medhelm_local.results.figures import refresh_robustness
from medhelm_local.run.plan import PlannedRun
from medhelm_local.scenarios import Benchmark, BenchmarkSpec, create
from medhelm_local.settings import Settings
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.ratings import derive_jury_scores, pending_judgings, record_jury
from medhelm_local.store.writer import StoreWriter


@dataclass
class JudgingPlan:
    """The juries of a run command: per run id its jury and rubric; jury runs left unjudged; warnings."""

    judged: dict[str, JudgedRun] = field(default_factory=dict)
    unjudged: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _jury_for(args: dict[str, str], settings: Settings, allowlist: PolicyAllowlist, name: str | None,
              cache: dict[str, ResolvedJury | None], spec: BenchmarkSpec | None = None) -> ResolvedJury | None:
    """--jury if given, else the entry's jury_config_path (MedHELM's), else the judges a MedHELM configurable
    benchmark's config names, else the `jury` setting; resolved once."""
    key = name or (f"{MEDHELM_PREFIX}{args['jury_config_path']}" if "jury_config_path" in args else None)
    if key is None and spec is not None and spec.medhelm_judges:
        own = f"{MEDHELM_PREFIX}{spec.name}"
        if own not in cache:
            cache[own] = jury_from_medhelm_judges(own, spec.medhelm_judges, f"{spec.path} (metric jury_score)",
                                                  settings, allowlist)
        return cache[own]
    if (key or "") not in cache:
        cache[key or ""] = resolve_jury(settings, allowlist, key)
    return cache[key or ""]


def judged_run(run_id: str, jury: ResolvedJury, benchmark: Benchmark, index: int) -> JudgedRun | None:
    """The run as its jury judges it: by its rubric (or rubric items), writing its jury metric; None: no grader."""
    grader = benchmark.spec.grader
    if grader is None:
        return None
    metric = next((m for m in benchmark.metrics if "judge" in m.needs and m.aggregation == "jury"), None)
    return JudgedRun(run_id, jury, grader, index, metric.name if metric else JURY_SCORE)


def plan_judging(planned: Sequence[PlannedRun], settings: Settings, allowlist: PolicyAllowlist,
                 jury: str | None) -> JudgingPlan:
    """Resolve the jury of every planned run that needs one (every judge checked before anything is sent)."""
    plan, cache = JudgingPlan(), dict[str, ResolvedJury | None]()
    for index, run in enumerate(planned):
        if not run.benchmark.judged:
            continue
        resolved = _jury_for(dict(run.entry.args), settings, allowlist, jury, cache, run.benchmark.spec)
        judged = judged_run(run.run_id, resolved, run.benchmark, index) if resolved is not None else None
        if judged is None:
            plan.unjudged.append(run.run_id)
            continue
        plan.judged[run.run_id] = judged
        plan.warnings += self_judging(judged.jury, run.entry.deployment, run.model_name)
    plan.warnings = list(dict.fromkeys(plan.warnings))
    return plan


def stored_judging(con: duckdb.DuckDBPyConnection, settings: Settings, allowlist: PolicyAllowlist, jury: str | None,
                   run_ids: Sequence[str] | None = None,
                   runs_where: str = "runs") -> tuple[list[JudgedRun], list[str]]:
    """The stored runs (all, or those named) whose benchmark has a jury metric, with their juries; warnings.
    `runs_where`: how the caller names the runs argument in an error."""
    rows = con.execute("SELECT run_id, scenario, scenario_args, model, deployment FROM runs "
                       "ORDER BY suite, scenario, model, run_id").fetchall()
    known = {r[0] for r in rows}
    missing = sorted(set(run_ids or ()) - known)
    if missing:
        raise ConfigError(f"no run with id {', '.join(missing)} in this store", where=runs_where,
                          fix="list run ids with `medhelm-local runs list`")
    runs: list[JudgedRun] = []
    warnings: list[str] = []
    cache: dict[str, ResolvedJury | None] = {}
    for run_id, scenario, args_json, model, deployment in rows:
        if run_ids and run_id not in run_ids:
            continue
        args = json.loads(args_json or "{}")
        benchmark = create(scenario, args)
        if not benchmark.judged or benchmark.spec.grader is None:
            if run_ids:
                raise ConfigError(f"run {run_id} ({scenario}) has no jury metric, so there is nothing to judge",
                                  where=runs_where,
                                  fix="name runs of jury-scored benchmarks (`benchmarks list` shows them)")
            continue
        resolved = _jury_for(args, settings, allowlist, jury, cache, benchmark.spec)
        if resolved is None:
            raise ConfigError("no jury is configured, so nothing can be judged",
                              where="the jury named, or the jury setting",
                              fix="declare [juries.NAME] with judges = [...] (judge deployments with purpose judge on "
                                  "the egress allowlist) and set jury = \"NAME\", or name that jury for this pass")
        judged = judged_run(run_id, resolved, benchmark, len(runs))
        if judged is not None:
            runs.append(judged)
        warnings += self_judging(resolved, deployment, settings.deployments[deployment].model or model
                                 if deployment in settings.deployments else model)
    return runs, list(dict.fromkeys(warnings))


def finish_judged(store: StoreHandle, run: JudgedRun) -> int:
    """Record the run's jury (and its judges' prices) and derive its per-instance jury scores from the ratings."""
    prices = {j.name: j.deployment.price.model_dump() if j.deployment.price else None for j in run.jury.judges}
    record_jury(store.con, run.run_id, run.jury.name, prices)
    return derive_jury_scores(store.con, run.run_id, run.jury.name, run.jury.judge_names, run.metric)


@dataclass(frozen=True)
class JudgeOutcome:
    """One run after a judge pass: requests sent per judge and how they ended, and the run's aggregates."""

    run_id: str
    jury: str
    sent: dict[str, dict[str, int]]  # judge -> {"rated": n, "failed": n} in this pass
    aggregates: list[Aggregate]


def _leaf(error: BaseException) -> BaseException:
    """The error to report from a task group: a user-facing one if any."""
    if isinstance(error, BaseExceptionGroup):
        leaves = [_leaf(e) for e in error.exceptions]
        return next((e for e in leaves if isinstance(e, MedhelmError)), leaves[0])
    return error


def judge_runs(store: StoreHandle, runs: Sequence[JudgedRun], allowlist: PolicyAllowlist, retry_content: bool = False,
               progress: Progress | None = None) -> list[JudgeOutcome]:
    """Request every rating the runs' juries still owe, store each as it comes, then derive and aggregate."""
    progress = progress or NoProgress()
    owed = {r.run_id: pending_judgings(store.con, r.run_id, r.jury.name, r.jury.judge_names,
                                     () if retry_content else CONTENT_FAILURES)
            for r in runs}
    progress.start([])  # no answers are generated: a bar per judge, not per run
    per_judge = Counter(judge for r in runs for pending in owed[r.run_id] for judge in pending.judges)
    for judge, count in sorted(per_judge.items()):
        progress.judging(judge, count)
    writer = StoreWriter(store)
    pool = JudgePool(writer, allowlist, progress=progress)

    async def main() -> None:
        for run in runs:
            pool.add(run.jury)
        try:
            await pool.check_reachable()
            async with asyncio.TaskGroup() as group:
                pool.start(group)
                await asyncio.gather(*(pool.feed_stored(store.con, r, owed[r.run_id]) for r in runs))
                await pool.finish()
        except BaseExceptionGroup as grouped:
            raise _leaf(grouped) from None
        finally:
            await pool.aclose()

    try:
        run_loop(main())
    finally:
        try:
            writer.close()
        finally:
            progress.finish()
    outcomes = []
    for run in runs:
        finish_judged(store, run)
        aggregates = compute_aggregates(store.con, run.run_id)
        record_summaries(store.con, {run.run_id: aggregates})  # the jury's scores are sliced like any metric's
        refresh_robustness(store.con, [run.run_id])
        outcomes.append(JudgeOutcome(run.run_id, run.jury.name, pool.sent(run.run_id), aggregates))
    return outcomes


def jury_scored_runs(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[Rubric, str | None, str]]:
    """Runs of the store scored by a jury: run id -> (rubric, the jury their scores come from, benchmark); what
    `annotate.validate.validation_report` checks a ratings file against."""
    found: dict[str, tuple[Rubric, str | None, str]] = {}
    for run_id, scenario, args, settings in con.execute(
            "SELECT run_id, scenario, scenario_args, settings FROM runs").fetchall():
        benchmark = create(scenario, json.loads(args or "{}"))
        rubric = benchmark.spec.rubric
        if benchmark.judged and rubric is not None:
            found[run_id] = (rubric, json.loads(settings or "{}").get("jury"), scenario)
    return found
