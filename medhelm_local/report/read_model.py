"""The report's read model: what every page, table and file of a report is made of.

Built from stores (and HELM-format run folders) by `report.build`, never from a model. Plain frozen
records, so the HTML pages, the viewer, JSON, CSV, Markdown and LaTeX all read the same numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from medhelm_local.results.winrate import WinRate

if TYPE_CHECKING:
    from medhelm_local.metrics.registry import Metric
    from medhelm_local.metrics.slices import SlicedMetric
    from medhelm_local.metrics.tie_groups import TieGroups
    from medhelm_local.report.jury_validation import Verdict
    from medhelm_local.report.trend import Trend

# Taxonomy rows: a category's two scores, then its subcategories.
CATEGORY = "category"  # the macro average: the mean of its subcategories (each subcategory weighs the same)
CATEGORY_MEDHELM = "category_medhelm"  # MedHELM's category score: the plain mean of its benchmarks
SUBCATEGORY = "subcategory"  # the mean of its benchmarks
# What a board's one overall figure is, with the heading and the explanation every page shows for it.
MACRO_OVERALL = "macro"
BENCHMARK_MEAN = "benchmark_mean"
OVERALL = {
    MACRO_OVERALL: ("Macro average", "main metrics normalised to 0-1 by their declared range, averaged per "
                                     "subcategory, then per category (the mean of its subcategories), then over "
                                     "categories"),
    BENCHMARK_MEAN: ("Mean of benchmarks", "the main metrics shown, normalised to 0-1 by their declared range, "
                                           "averaged over the benchmarks"),
}


def slug(text: str) -> str:
    """A file- and URL-safe name for `text` (stable: the same text gives the same name)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("._")
    return cleaned[:120] or "_"


# Marks, in the published results' column names, a benchmark whose local runs do not compare with MedHELM's.
NOT_COMPARABLE_MARK = "†"


@dataclass(frozen=True)
class RunInfo:
    """One run as the report shows it: who ran what, where it sits in the taxonomy, and its counts."""

    key: str  # unique within a report: the run id, or "helm:<folder>" for an external run
    run_id: str
    source: str  # the store file, or the HELM run folder
    suite: str
    model: str
    deployment: str
    benchmark: str
    display_name: str
    task_type: str
    category: str
    subcategory: str
    access: str
    main_metric: str
    run_entry: str
    args: Mapping[str, str]
    n_instances: int | None
    n_completed: int | None
    n_failed: int | None
    updated_at: datetime | None = None
    external: bool = False
    not_comparable: str | None = None  # why its scores cannot be set beside published MedHELM results
    served: tuple[tuple[str, int], ...] = ()  # the model builds its answers came from, with their counts

    @property
    def slug(self) -> str:
        """The run's file name in a static report."""
        return slug(self.key)

    @property
    def subset(self) -> tuple[tuple[str, str], ...]:
        """What makes runs of one benchmark different subsets (its arguments), for pairing two models."""
        return tuple(sorted(self.args.items()))


@dataclass(frozen=True)
class Estimate:
    """A value with its 95 % interval and the counts beside it (None: not known, e.g. for published results)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int | None
    n_scored: int | None
    n_failed: int | None
    interval: str = "bootstrap"  # how ci_low/ci_high were made: bootstrap, normal (published), combined

    @property
    def n_pending(self) -> int | None:
        """Instances neither scored nor failed."""
        if self.n is None or self.n_scored is None or self.n_failed is None:
            return None
        return max(0, self.n - self.n_scored - self.n_failed)


@dataclass(frozen=True, kw_only=True)
class MetricSummary(Estimate):
    """One metric over one run."""

    metric: str
    detail: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Column:
    """A benchmark and one of its metrics: a column of the leaderboard, with the metric's declaration."""

    benchmark: str
    metric: str
    display_name: str
    metric_title: str
    category: str
    subcategory: str
    direction: str | None  # higher | lower; None for a metric this program does not know (never ranked)
    group: str
    unit: str
    lower: float | None
    upper: float | None
    main: bool  # the benchmark's main metric (counts in the mean win rate and the macro averages)
    not_comparable: str | None = None  # why a local run in it cannot be set beside published MedHELM results

    @property
    def key(self) -> str:
        """Unique within a report; safe in file names and URLs."""
        return slug(f"{self.benchmark}.{self.metric}")

    @property
    def title(self) -> str:
        """For table headers."""
        return f"{self.display_name} · {self.metric_title}"

    @property
    def arrow(self) -> str:
        """↑ when higher is better, ↓ when lower is, ? when unknown."""
        return {"higher": "↑", "lower": "↓"}.get(self.direction or "", "?")


@dataclass(frozen=True, kw_only=True)
class Cell(Estimate):
    """A model on one column: its runs combined (instances within a run, then runs equally)."""

    column: str
    model: str
    runs: tuple[str, ...]
    normalised: float | None = None  # 0-1 by the metric's declared range, 1 best (main columns)


@dataclass(frozen=True)
class LeaderboardRow:
    """One model: mean win rates (main metrics, then per metric group), category scores both ways, counts."""

    model: str
    external: bool
    win_rate: WinRate
    group_win_rates: Mapping[str, WinRate]
    macro: float | None  # the board's overall figure (Board.overall says which): on the leaderboard, the mean
    # over categories of the category macro averages
    categories: Mapping[str, float | None]  # per category, the macro average (mean of its subcategories)
    n: int
    n_failed: int
    runs: int
    categories_medhelm: Mapping[str, float | None] = field(default_factory=dict)  # MedHELM: mean of benchmarks
    medhelm: float | None = None  # the mean over categories of categories_medhelm (MedHELM publishes none)


@dataclass(frozen=True)
class TaxonomyRow:
    """A category (two rows: its macro average, then MedHELM's mean of its benchmarks) or a subcategory: per
    model, a mean of normalised main scores."""

    level: str  # category | category_medhelm | subcategory
    name: str
    category: str
    values: Mapping[str, float | None]
    benchmarks: tuple[str, ...]  # the benchmarks with results in it


@dataclass(frozen=True)
class Comparison:
    """Model against the baseline on one column, on the instances both scored: the mean difference
    (model minus baseline) with a paired bootstrap interval."""

    column: str
    model: str
    baseline: str
    n_pairs: int
    n_unpaired: int  # instances either of them could not score (or only one ran)
    difference: float | None
    ci_low: float | None
    ci_high: float | None
    note: str = ""


@dataclass(frozen=True)
class CostPoint:
    """One model's mean cost per run (the first registered cost metric) against its macro average."""

    model: str
    metric: str
    cost: float
    score: float


@dataclass(frozen=True)
class JudgeSummary:
    """One judge of one jury over a run: ratings given, failures by reason, mean rating."""

    jury: str
    judge: str
    rated: int
    failed: int
    mean: float | None
    failures: Mapping[str, int]


@dataclass(frozen=True)
class FailureCount:
    """How many instances of a run failed, and why (a request, or one metric's scorer)."""

    stage: str  # request | metric name
    reason: str
    count: int


@dataclass(frozen=True)
class Board:
    """A table of models over columns with mean win rates: the leaderboard, or published results side by side."""

    columns: tuple[Column, ...]
    rows: tuple[LeaderboardRow, ...]
    overall: str = MACRO_OVERALL  # what each row's `macro` is: macro | benchmark_mean (see OVERALL)

    @property
    def overall_label(self) -> tuple[str, str]:
        """The heading of the overall figure and what it is."""
        return OVERALL[self.overall]


@dataclass(frozen=True)
class StoreInfo:
    """A source store as the methods page lists it."""

    path: str
    store_id: str
    schema_version: int
    runs: int


@dataclass(frozen=True)
class Report:
    """Everything a report shows."""

    generated_at: datetime
    stores: tuple[StoreInfo, ...]
    external_sources: tuple[str, ...]
    runs: tuple[RunInfo, ...]
    metrics: Mapping[str, Mapping[str, MetricSummary]]  # run key -> metric -> summary
    columns: tuple[Column, ...]  # every (benchmark, metric) with a value anywhere
    cells: Mapping[tuple[str, str], Cell]  # (column key, model) -> cell
    leaderboard: Board  # local models on main metrics
    taxonomy: tuple[TaxonomyRow, ...]
    baseline: str | None
    comparisons: tuple[Comparison, ...]
    published: Board | None  # local and external models on HELM-rule metrics, when external runs are given
    cost: tuple[CostPoint, ...]
    groups: tuple[str, ...] = field(default=())  # metric groups with columns, in registry order
    specs: Mapping[str, Metric] = field(default_factory=dict)  # the registry's declaration of each metric shown
    ties: Mapping[str, TieGroups] = field(default_factory=dict)  # main column key -> its models' rank groups
    slices: Mapping[str, tuple[SlicedMetric, ...]] = field(default_factory=dict)  # run key -> main metric by slice
    trend: Trend | None = None  # across suites (report --trend): this report is of the last one
    # Jury-scored column key -> validated by clinicians or not (report.jury_validation); empty when built without the
    # policy's rules (an exported report)
    jury_marks: Mapping[str, Verdict] = field(default_factory=dict)

    def rank_group(self, column: str, model: str) -> str | None:
        """A model's rank group on a main column ('1-3'), None where it was not tested."""
        groups = self.ties.get(column)
        rank = groups.ranks.get(model) if groups is not None else None
        return rank.label if rank is not None else None

    @property
    def models(self) -> list[str]:
        """Local models in leaderboard order."""
        return [row.model for row in self.leaderboard.rows]

    def run(self, key: str) -> RunInfo | None:
        """One run by key."""
        return next((r for r in self.runs if r.key == key), None)

    def column(self, key: str) -> Column | None:
        """One column by key."""
        return next((c for c in self.columns if c.key == key), None)

    def benchmark_columns(self, benchmark: str) -> list[Column]:
        """A benchmark's columns, main first."""
        return sorted((c for c in self.columns if c.benchmark == benchmark), key=lambda c: (not c.main, c.group,
                                                                                            c.metric))

    @property
    def benchmarks(self) -> list[str]:
        """Benchmarks with local results, in leaderboard column order."""
        return list(dict.fromkeys(c.benchmark for c in self.leaderboard.columns))

    def runs_of(self, benchmark: str) -> list[RunInfo]:
        """Runs of one benchmark (local and external), by model."""
        return sorted((r for r in self.runs if r.benchmark == benchmark), key=lambda r: (r.external, r.model, r.key))
