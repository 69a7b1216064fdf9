"""What a report reads: suite stores (read-only) and HELM-format run folders, behind one interface."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from medhelm_local.errors import ConfigError
from medhelm_local.report.build import build_report
from medhelm_local.report.helm_runs import ExternalRuns, read_external
from medhelm_local.report.read_model import FailureCount, JudgeSummary, MetricSummary, Report, RunInfo, StoreInfo
from medhelm_local.report.stores import StoreReader, open_stores
from medhelm_local.report.trend import SuitePoint, build_trend, suite_labels
from medhelm_local.store.keys import Kek

if TYPE_CHECKING:
    from medhelm_local.policy.file_schemas import JuryValidationRules
    from medhelm_local.report.jury_validation import Agreement, Verdict


class RunReader(Protocol):
    """What pages read about local runs (a store, or the export gate's shaped view of one)."""

    def failures(self, run_id: str) -> list[FailureCount]: ...
    def judges(self, run_id: str) -> list[JudgeSummary]: ...
    def instance_count(self, run_id: str, failed_only: bool = False) -> int: ...
    def instances_json(self, run_id: str, offset: int = 0, limit: int | None = None,
                       failed_only: bool = False) -> Iterator[str]: ...
    def instances_json_runs(self, run_ids: Sequence[str], limit: int | None = None, failed_only: bool = False,
                            offset: int = 0) -> Iterator[tuple[str, str]]: ...
    def score_values(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[Any, Any]]: ...
    def instances_withheld(self, run_id: str) -> str | None: ...


class Sources:
    """Open stores and external runs; which reader holds which run."""

    def __init__(self, readers: Sequence[StoreReader], external: ExternalRuns | None = None,
                 jury_rules: JuryValidationRules | None = None) -> None:
        self.readers = list(readers)
        self.external = external
        self.jury_rules = jury_rules  # the policy's: with them, every jury-scored column is marked validated or not
        self._runs: list[RunInfo] = []
        self._metrics: dict[str, dict[str, MetricSummary]] = {}
        self._holder: dict[str, RunReader] = {}
        self._of_reader: list[list[RunInfo]] = []
        for reader in self.readers:
            mine = reader.runs()
            self._of_reader.append(mine)
            for run in mine:
                self._runs.append(run)
                self._holder.setdefault(run.key, reader)
            self._metrics.update(reader.metrics())
        if external is not None:
            self._runs += external.runs
            self._metrics.update(external.metrics)

    @property
    def runs(self) -> list[RunInfo]:
        """Every run, local then external."""
        return self._runs

    def reader(self, run: RunInfo) -> RunReader | None:
        """The reader that holds a local run (None for an external one)."""
        return None if run.external else self._holder.get(run.key)

    def by_run(self) -> dict[str, RunReader]:
        """The reader of every local run, by run key."""
        return dict(self._holder)

    def scores(self, wanted: Sequence[tuple[RunInfo, str]]) -> dict[tuple[str, str], tuple[Any, Any]]:
        """Per (local run key, metric), its scored instances: one read per store."""
        found: dict[tuple[str, str], tuple[Any, Any]] = {}
        by_reader: dict[int, tuple[RunReader, list[tuple[RunInfo, str]]]] = {}
        for run, metric in wanted:
            reader = self.reader(run)
            if reader is not None:
                by_reader.setdefault(id(reader), (reader, []))[1].append((run, metric))
        for reader, mine in by_reader.values():
            values = reader.score_values([(r.run_id, m) for r, m in mine])
            found.update({(r.key, m): values[(r.run_id, m)] for r, m in mine if (r.run_id, m) in values})
        return found

    def stores(self) -> list[StoreInfo]:
        """The stores read."""
        return [r.info() for r in self.readers]

    def report(self, baseline: str | None = None, trend: bool = False) -> Report:
        """The report over everything read; with `trend`, the stores are successive suites (oldest first): the
        report is of the last store's runs, with every model's trend per benchmark across all of them."""
        runs = self._runs
        if trend:
            if len(self.readers) < 2:
                raise ConfigError("a trend needs two suites or more, and one was given", where="trend",
                                  fix="name two suites or more, oldest first, for a trend (trend=, "
                                      "`medhelm-local report --trend S1 S2`); or ask for no trend")
            latest = {r.key for r in self._of_reader[-1]}
            runs = [r for r in self._runs if r.external or r.key in latest]
        built = build_report(runs, self._metrics, self.stores(),
                             self.external.sources if self.external else (), self.scores, baseline)
        sliced = {run_id: tuple(found) for reader in self.readers for run_id, found in reader.slices().items()}
        built = replace(built, slices={r.key: sliced[r.run_id] for r in runs
                                       if not r.external and r.run_id in sliced and sliced[r.run_id]},
                        jury_marks=self.jury_marks(built))
        if not trend:
            return built
        labels = suite_labels([(mine, reader.label) for reader, mine in zip(self.readers, self._of_reader,
                                                                             strict=True)])
        points = [SuitePoint(label, mine, self._metrics) for label, mine in zip(labels, self._of_reader, strict=True)]
        return replace(built, trend=build_trend(points, self.scores))

    def jury_marks(self, built: Report) -> dict[str, Verdict]:
        """Per jury-scored column, validated or not by the latest clinicians' campaign on its benchmark (none without
        the policy's rules)."""
        if self.jury_rules is None:
            return {}
        from medhelm_local.report.jury_validation import latest, verdict

        jury = [c for c in built.columns if (spec := built.specs.get(c.metric)) is not None
                and "judge" in spec.needs and spec.aggregation == "jury"]
        if not jury:
            return {}
        found: dict[str, Agreement] = {}
        for reader in self.readers:
            found = latest(found, reader.jury_agreements())
        return {c.key: verdict(found.get(c.benchmark), self.jury_rules) for c in jury}

    def close(self) -> None:
        """Close every store."""
        for reader in self.readers:
            reader.close()


def open_sources(paths: Sequence[Path], kek: Kek, memory_limit: str | None = None,
                 helm_runs: Sequence[Path] = (), jury_rules: JuryValidationRules | None = None) -> Sources:
    """Open every store read-only (refusing empty ones and mixed schemas) and read the HELM folders."""
    external = read_external(list(helm_runs)) if helm_runs else None
    handles = open_stores(paths, kek, memory_limit)
    readers = [StoreReader(h) for h in handles]
    try:
        for reader in readers:
            if reader.info().runs == 0:
                raise ConfigError("the suite store has no runs, so there is nothing to report", where=str(
                    reader.handle.path), fix="run benchmarks into the suite first (`medhelm-local run ... --suite "
                                             "NAME`), or leave this store out")
        return Sources(readers, external, jury_rules)
    except BaseException:
        for reader in readers:
            reader.close()
        raise
