"""`judge()`: a judge pass over a suite's stored answers, from Python; `medhelm-local judge SUITE` calls the same
`judge_stored` with the settings it read."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from medhelm_local.errors import ConfigError, MedhelmWarning
from medhelm_local.file_modes import owner_only
from medhelm_local.progress import Progress, checked_progress
from medhelm_local.run.jury_runs import JudgeOutcome, judge_runs, stored_judging
from medhelm_local.run.plan import store_path_for
from medhelm_local.settings import Settings
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import load_kek
from medhelm_local.store.run_ids import resolve_run_ids

if TYPE_CHECKING:
    from medhelm_local.policy.egress_allowlist import PolicyAllowlist


@dataclass(frozen=True)
class JudgeResult:
    """What a judge pass did: the store it wrote to, each judged run's outcome, and the warnings it gave."""

    store: Path
    outcomes: tuple[JudgeOutcome, ...]  # per run: ratings asked per judge this pass, and the run's aggregates
    warnings: tuple[str, ...]  # e.g. a model judging its own answers

    @property
    def failed(self) -> int:
        """Ratings that failed in this pass, over every run and judge (stored as failures, never imputed)."""
        return sum(counts.get("failed", 0) for o in self.outcomes for counts in o.sent.values())


def judge_stored(settings: Settings, allowlist: PolicyAllowlist, suite: str | None, *,
                 runs: Sequence[str] | None = None, jury: str | None = None, retry_failed: bool = False,
                 store: Path | None = None, progress: Progress | None = None,
                 on_warning: Callable[[str], None] = lambda _: None, runs_where: str = "runs") -> JudgeResult:
    """Ask the juries of the suite's jury-scored runs (all, or `runs`: ids or unique beginnings) for every rating
    they still owe, with these settings and allowlist (the one the egress guard enforces). Resumable. `runs_where`:
    how the caller names `runs` in an error (the CLI: its option)."""
    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), create=False, memory_limit=settings.store_memory_limit)
    try:
        named = resolve_run_ids(handle.con, runs, where=runs_where) if runs else None
        judged, said = stored_judging(handle.con, settings, allowlist, jury, named, runs_where)
        if not judged:
            raise ConfigError("no run of this suite is scored by a jury", where=str(path),
                              fix="jury-scored benchmarks are those whose main metric is jury_score (on any scale) or "
                                  "health_bench_score (`medhelm-local benchmarks list`)")
        for warning in said:
            on_warning(warning)
        outcomes = judge_runs(handle, judged, allowlist, retry_failed, progress)
    finally:
        handle.close()
    return JudgeResult(path, tuple(outcomes), tuple(said))


def _warn(message: str) -> None:
    warnings.warn(MedhelmWarning(message), stacklevel=4)


@owner_only
def judge(suite: str | None = None, *, config: Settings | str | Path | None = None, runs: Sequence[str] | None = None,
          jury: str | None = None, retry_failed: bool = False, store: str | Path | None = None,
          output_dir: str | Path | None = None, progress: Progress | bool | None = None) -> JudgeResult:
    """Rate the stored answers of a suite's jury-scored runs with a jury (`jury`, else a run's own, else the `jury`
    setting), as `medhelm-local judge SUITE` does; calling it again asks only what is still owed (`retry_failed`:
    also what a judge answered unusably). A failed rating is stored and counted, not raised."""
    from medhelm_local.run.in_force import settings_in_force

    if suite is None and store is None:
        raise ConfigError("no suite was named", where="judge()", fix="pass the suite's name, or store=PATH")
    progress = checked_progress(progress)
    settings, allowlist = settings_in_force(config, output_dir=None if output_dir is None else Path(output_dir))
    return judge_stored(settings, allowlist, suite, runs=runs, jury=jury, retry_failed=retry_failed,
                        store=None if store is None else Path(store), progress=progress, on_warning=_warn)
