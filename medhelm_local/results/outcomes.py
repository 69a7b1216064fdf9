"""What a command's runs produced (`RunOutcome`), and their aggregates and summaries, computed in the background
as each run finishes (`Summaries`). Apart from the scheduler, so that `show`, which prints a stored run as an
outcome, loads no HTTP client."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

from medhelm_local.records import Aggregate
from medhelm_local.results.aggregates import compute_aggregates
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.queries import RunSummary, get_run

log = logging.getLogger("medhelm_local.run")


@dataclass(frozen=True)
class RunOutcome:
    """What one run entry produced in this invocation, and where the run stands overall."""

    summary: RunSummary
    aggregates: list[Aggregate]
    sent: int
    reused: int
    wall_s: float
    failed_now: int = 0  # requests that failed in this invocation
    judging: dict[str, dict[str, int]] | None = None  # judge -> {"rated", "failed"} sent in this invocation

    @property
    def all_failed(self) -> bool:
        """True when the run has no answer at all and at least one failed request."""
        return self.summary.n_ok == 0 and self.summary.n_failed > 0


class Summaries:
    """Runs' aggregates and summaries, each run's computed in a pool of four threads once asked for (`start`).
    DuckDB's queries and numpy's resampling leave the interpreter free, so runs summarised while others still run
    cost the event loop little, and a suite's last runs are summarised side by side."""

    def __init__(self, store: StoreHandle) -> None:
        self._store = store
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="medhelm-aggregates")
        self._computed: dict[str, Future[tuple[list[Aggregate], RunSummary]]] = {}

    def start(self, run_id: str) -> None:
        """Compute a run's aggregates in the background (its rows must be committed)."""
        if run_id not in self._computed:
            log.info("run %s: computing its aggregates", run_id)
            self._computed[run_id] = self._pool.submit(self._compute, run_id)

    def collect(self, run_ids: Sequence[str]) -> list[tuple[list[Aggregate], RunSummary]]:
        """Each run's aggregates and summary: those started earlier, the rest computed now."""
        for run_id in run_ids:
            self.start(run_id)
        return [self._computed[run_id].result() for run_id in run_ids]

    def __enter__(self) -> Summaries:
        return self

    def __exit__(self, *_: object) -> None:
        """Wait for anything still computing and stop the threads."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _compute(self, run_id: str) -> tuple[list[Aggregate], RunSummary]:
        started = time.perf_counter()
        cursor = self._store.cursor()
        try:
            aggregates = compute_aggregates(cursor, run_id)
            # The run's counts, final once its rows are committed; its main score is the one just computed (the
            # store records it with the others at the end).
            summary = get_run(cursor, run_id)
            main = next((a.mean for a in aggregates if a.metric == summary.main_metric), None)
            return aggregates, replace(summary, main_score=main)
        finally:
            cursor.close()
            log.info("run %s: aggregates computed in %.3f s", run_id, time.perf_counter() - started)
