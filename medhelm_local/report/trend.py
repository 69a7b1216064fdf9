"""A model's trend across suites: the same models and benchmarks run again (monthly, say), each suite one point.

    point    a model on a benchmark's main metric in one suite: its cell (runs combined as the leaderboard
             combines them), its 95 % interval and counts, and the model builds its answers came from
    step     the change from the model's previous point to this one, with a 95 % interval of the difference:
               paired       the two suites' runs scored the same instances (matched by instance id within runs
                            of the same benchmark subset): a paired bootstrap of the per-instance differences
                            (results.paired, 1,000 seeded resamples), which removes the instances' own spread
                            from the comparison; instances only one suite scored are counted, never imputed
               two-sample   no instance in common, or a metric that is not a mean of per-instance scores: the
                            two points taken as independent, the difference's half-width the two intervals'
                            half-widths added in quadrature (normal approximation)
             A step is flagged when its interval excludes 0: a change larger than its interval. Each step is
             one test at 5 %, not corrected for the many steps of a report: a flag is a prompt to look, and
             about one unchanged model-benchmark step in twenty is flagged by chance.
    build    a step where the model builds differ (completions.served_model, as the server named them) is
             marked: a model swapped behind the same name shows up even when its scores did not move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.registry import Metric, all_metrics
from medhelm_local.report.read_model import Cell, Column, MetricSummary, RunInfo

if TYPE_CHECKING:
    from medhelm_local.report.build import ScoreValues

PAIRED = "paired"
TWO_SAMPLE = "two-sample"


@dataclass(frozen=True)
class SuitePoint:
    """What one suite gives the trend: its label, runs and their metrics."""

    label: str
    runs: Sequence[RunInfo]
    metrics: Mapping[str, Mapping[str, MetricSummary]]


@dataclass(frozen=True)
class TrendPoint:
    """A model on a benchmark's main metric in one suite."""

    suite: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n_scored: int | None
    n_failed: int | None
    builds: tuple[str, ...]  # the model builds its answers came from (empty: none reported)


@dataclass(frozen=True)
class TrendStep:
    """The change from a model's previous point to the next one (later minus earlier)."""

    suite_from: str
    suite_to: str
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    test: str | None  # paired | two-sample | None (no interval: a point without one)
    n_pairs: int
    n_unpaired: int
    builds_from: tuple[str, ...]
    builds_to: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        """Whether the change is larger than its interval (the 95 % interval excludes 0)."""
        return self.ci_low is not None and self.ci_high is not None and (self.ci_low > 0 or self.ci_high < 0)

    @property
    def build_changed(self) -> bool:
        """Whether the model builds differ between the two suites (both reported one)."""
        return bool(self.builds_from) and bool(self.builds_to) and set(self.builds_from) != set(self.builds_to)


@dataclass(frozen=True)
class TrendLine:
    """One model on one benchmark's main metric across the suites."""

    column: str
    benchmark: str
    display_name: str
    metric: str
    metric_title: str
    direction: str | None
    model: str
    points: tuple[TrendPoint | None, ...]  # one per suite, in suite order (None: not run in that suite)
    steps: tuple[TrendStep, ...]  # between consecutive points present

    def verdict(self, step: TrendStep) -> str:
        """'better', 'worse' or 'changed' for a flagged step (by the metric's direction), else ''."""
        if not step.flagged or step.difference is None:
            return ""
        if self.direction is None:
            return "changed"
        return "better" if (step.difference > 0) == (self.direction == "higher") else "worse"


@dataclass(frozen=True)
class Trend:
    """Every model's trend per benchmark across suites, oldest suite first."""

    suites: tuple[str, ...]
    lines: tuple[TrendLine, ...]

    @property
    def benchmarks(self) -> list[str]:
        """Benchmarks with a line, in line order."""
        return list(dict.fromkeys(line.benchmark for line in self.lines))

    def of(self, benchmark: str) -> list[TrendLine]:
        """The lines of one benchmark, by model."""
        return [line for line in self.lines if line.benchmark == benchmark]

    @property
    def flagged(self) -> list[tuple[TrendLine, TrendStep]]:
        """Every step whose change is larger than its interval."""
        return [(line, step) for line in self.lines for step in line.steps if step.flagged]

    @property
    def build_changes(self) -> list[tuple[TrendLine, TrendStep]]:
        """Every step where the model build changed."""
        return [(line, step) for line in self.lines for step in line.steps if step.build_changed]

    @property
    def model_build_changes(self) -> list[BuildChange]:
        """Each model's build changes between suites, once with the benchmarks where they show."""
        found: dict[tuple[str, str, str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
        for line, step in self.build_changes:
            key = (line.model, step.suite_from, step.suite_to, step.builds_from, step.builds_to)
            found.setdefault(key, []).append(line.display_name)
        return [BuildChange(*key, tuple(benchmarks)) for key, benchmarks in found.items()]


@dataclass(frozen=True)
class BuildChange:
    """A model whose server named another build from one suite to the next."""

    model: str
    suite_from: str
    suite_to: str
    builds_from: tuple[str, ...]
    builds_to: tuple[str, ...]
    benchmarks: tuple[str, ...]  # where its answers show it


def suite_labels(points: Sequence[tuple[Sequence[RunInfo], str]]) -> list[str]:
    """Each suite's label: its runs' suite name(s), or the store's name where that is taken or there is none."""
    labels: list[str] = []
    for runs, store in points:
        label = ", ".join(sorted({r.suite for r in runs})) or store
        labels.append(label if label not in labels else f"{label} ({store})")
    return labels


def build_trend(suites: Sequence[SuitePoint], scores: ScoreValues | None) -> Trend:
    """The trend of every model on every benchmark's main metric across `suites` (oldest first)."""
    from medhelm_local.report.build import main_cells

    registry = all_metrics()
    per_suite = [main_cells([r for r in s.runs if not r.external], s.metrics) for s in suites]
    by_key = {r.key: r for s in suites for r in s.runs}
    columns: dict[str, Column] = {}
    for found, _ in per_suite:
        for column in found:
            columns.setdefault(column.key, column)
    # Every run's scores read at once (one pass per store), for the paired steps.
    wanted = {(k, c.metric): (by_key[k], c.metric) for found, cells in per_suite for c in found
              for (ck, _), cell in cells.items() if ck == c.key and registry.get(c.metric) is not None
              and registry[c.metric].aggregation == "mean" for k in cell.runs}
    values = scores(list(wanted.values())) if scores is not None and wanted else {}
    lines = []
    for key, column in sorted(columns.items(), key=lambda kv: (kv[1].display_name, kv[0])):
        models = sorted({m for _, cells in per_suite for (k, m) in cells if k == key})
        for model in models:
            cells = [found.get((key, model)) for _, found in per_suite]
            points = tuple(None if c is None else _point(s.label, c, by_key) for s, c in zip(suites, cells,
                                                                                              strict=True))
            present = [(p, c) for p, c in zip(points, cells, strict=True) if p is not None and c is not None]
            steps = tuple(_step(before, after, column, by_key, values, registry.get(column.metric))
                          for before, after in pairwise(present))
            lines.append(TrendLine(key, column.benchmark, column.display_name, column.metric, column.metric_title,
                                   column.direction, model, points, steps))
    return Trend(tuple(s.label for s in suites), tuple(lines))


def _point(label: str, cell: Cell, runs: Mapping[str, RunInfo]) -> TrendPoint:
    counts: dict[str, int] = {}
    for key in cell.runs:
        for build, n in runs[key].served:
            counts[build] = counts.get(build, 0) + n
    builds = tuple(b for b, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return TrendPoint(label, cell.value, cell.ci_low, cell.ci_high, cell.n_scored, cell.n_failed, builds)


def _step(before: tuple[TrendPoint, Cell], after: tuple[TrendPoint, Cell], column: Column,
          runs: Mapping[str, RunInfo], values: Mapping[tuple[str, str], tuple[Any, Any]], spec: Metric | None
          ) -> TrendStep:
    (p0, c0), (p1, c1) = before, after
    difference = None if p0.value is None or p1.value is None else p1.value - p0.value
    low = high = None
    test: str | None = None
    pairs = unpaired = 0
    if spec is not None and spec.aggregation == "mean":
        paired = _paired(c0, c1, column, runs, values)
        if paired is not None:
            difference, low, high, pairs, unpaired = paired
            test = PAIRED
    if test is None and difference is not None and None not in (p0.ci_low, p0.ci_high, p1.ci_low, p1.ci_high):
        half = math.hypot((p0.ci_high - p0.ci_low) / 2, (p1.ci_high - p1.ci_low) / 2)  # type: ignore[operator]
        low, high, test = difference - half, difference + half, TWO_SAMPLE
    return TrendStep(p0.suite, p1.suite, difference, low, high, test, pairs, unpaired, p0.builds, p1.builds)


def _paired(earlier: Cell, later: Cell, column: Column, runs: Mapping[str, RunInfo],
            values: Mapping[tuple[str, str], tuple[Any, Any]]) -> tuple[float, float, float, int, int] | None:
    """The paired difference (later minus earlier) on the instances both suites scored, subsets weighted equally
    as the cells weigh them; None when they share no instance."""
    from medhelm_local.results.paired import Paired, pair, paired_difference

    before: dict[Any, tuple[Any, Any]] = {runs[k].subset: values[(k, column.metric)] for k in earlier.runs
                                          if (k, column.metric) in values}
    subsets: list[Paired] = []
    for key in later.runs:
        theirs, ours = before.get(runs[key].subset), values.get((key, column.metric))
        if theirs is not None and ours is not None:
            subsets.append(pair(theirs[0], theirs[1], ours[0], ours[1]))
    difference, low, high, pairs, unpaired = paired_difference(subsets)
    if not pairs or difference is None or low is None or high is None:
        return None
    return difference, low, high, pairs, unpaired
