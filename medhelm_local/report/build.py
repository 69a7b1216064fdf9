"""From runs and their metrics to a report: columns, cells, leaderboards, the taxonomy, comparisons, cost.

    column        a benchmark and one of its metrics, declared in the metric registry (direction,
                  range, group); a metric the registry does not know is shown and never ranked
    cell          a model on a column: each run's value (its instances' aggregate), then the runs of
                  that benchmark (subsets such as MEDEC's splits) averaged equally
    leaderboard   local models on the benchmarks' main metrics: mean win rate (HELM's rule), a mean
                  win rate per other metric group present (calibration, robustness, efficiency,
                  cost), category scores both ways (below), failures and n
    taxonomy      per subcategory, the mean of the model's main scores normalised to 0-1 by each
                  metric's declared range (1 best); per category, two scores side by side: the
                  macro average (the mean of its subcategories, so each subcategory weighs the same)
                  and MedHELM's category score (the plain mean of its benchmarks, as MedHELM's
                  heat maps compute it, so each benchmark weighs the same)
    comparisons   every model against a baseline on the same instances (results.paired)
    published     local and external (HELM-format) models side by side on HELM-rule metrics
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from statistics import fmean
from typing import Any

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.registry import GROUPS, Metric, all_metrics
from medhelm_local.report.read_model import (
    BENCHMARK_MEAN,
    CATEGORY,
    CATEGORY_MEDHELM,
    MACRO_OVERALL,
    NOT_COMPARABLE_MARK,
    SUBCATEGORY,
    Board,
    Cell,
    Column,
    Comparison,
    CostPoint,
    LeaderboardRow,
    MetricSummary,
    Report,
    RunInfo,
    StoreInfo,
    TaxonomyRow,
)
from medhelm_local.report.stores import UNPLACED
from medhelm_local.report.uncertainty import column_grids, column_ties, with_win_rate_intervals
from medhelm_local.results.paired import Paired, pair, paired_difference
from medhelm_local.results.winrate import mean_win_rates
from medhelm_local.taxonomy import load_taxonomy

# [(run, metric)] -> per (run key, metric), (instance keys, values) of its scored instances (local runs only).
ScoreValues = Callable[[Sequence[tuple[RunInfo, str]]], dict[tuple[str, str], tuple[Any, Any]]]


def _column(benchmark: str, metric: str, runs: Sequence[RunInfo], registry: Mapping[str, Metric]) -> Column:
    spec = registry.get(metric)
    first = min(runs, key=lambda r: (r.external, r.key))
    main = any(r.main_metric == metric and not r.external for r in runs)
    return Column(benchmark, metric, first.display_name, spec.title if spec else metric, first.category,
                  first.subcategory, spec.direction if spec else None, spec.group if spec else "quality",
                  spec.unit if spec else "", spec.lower if spec else None, spec.upper if spec else None, main,
                  next((r.not_comparable for r in runs if r.not_comparable and not r.external), None))


def _combine(column: Column, model: str, runs: Sequence[RunInfo], summaries: Sequence[MetricSummary],
             spec: Metric | None) -> Cell:
    """One cell from the runs of a model on a column: runs averaged equally, counts summed."""
    valued = [s for s in summaries if s.value is not None]
    value = fmean(s.value for s in valued) if valued else None  # type: ignore[misc]
    low = high = None
    interval = summaries[0].interval if summaries else "bootstrap"
    if len(valued) == 1:
        low, high = valued[0].ci_low, valued[0].ci_high
    elif valued and value is not None and all(s.ci_low is not None and s.ci_high is not None for s in valued):
        # Independent runs averaged equally: the half-widths add in quadrature, divided by their number.
        half = math.sqrt(sum(((s.ci_high or 0.0) - (s.ci_low or 0.0)) ** 2 / 4 for s in valued)) / len(valued)
        low, high, interval = value - half, value + half, "combined"

    def total(values: list[int | None]) -> int | None:
        return None if any(v is None for v in values) else sum(v for v in values if v is not None)

    normalised = None
    if column.main and spec is not None and spec.bounded and value is not None:
        normalised = min(1.0, max(0.0, spec.normalise(value)))
    return Cell(value, low, high, total([s.n for s in summaries]), total([s.n_scored for s in summaries]),
                total([s.n_failed for s in summaries]), interval, column=column.key, model=model,
                runs=tuple(r.key for r in runs), normalised=normalised)


def _cells(runs: Sequence[RunInfo], metrics: Mapping[str, Mapping[str, MetricSummary]],
           registry: Mapping[str, Metric]) -> tuple[list[Column], dict[tuple[str, str], Cell]]:
    grouped: dict[tuple[str, str], dict[str, list[RunInfo]]] = {}
    for run in runs:
        for metric in metrics.get(run.key, {}):
            grouped.setdefault((run.benchmark, metric), {}).setdefault(run.model, []).append(run)
    columns, cells = [], {}
    for (benchmark, metric), by_model in sorted(grouped.items()):
        column = _column(benchmark, metric, [r for rs in by_model.values() for r in rs], registry)
        columns.append(column)
        for model, model_runs in by_model.items():
            cells[(column.key, model)] = _combine(column, model, model_runs,
                                                  [metrics[r.key][metric] for r in model_runs], registry.get(metric))
    return columns, cells


def main_cells(runs: Sequence[RunInfo], metrics: Mapping[str, Mapping[str, MetricSummary]]
               ) -> tuple[list[Column], dict[tuple[str, str], Cell]]:
    """The main columns of `runs` and their cells, combined as the leaderboard combines them (report.trend)."""
    columns, cells = _cells(runs, metrics, all_metrics())
    main = [c for c in columns if c.main]
    keys = {c.key for c in main}
    return main, {k: cell for k, cell in cells.items() if k[0] in keys}


def _taxonomy_rows(columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell],
                   models: Sequence[str]) -> list[TaxonomyRow]:
    """Per category its macro average row, then its MedHELM-style row (mean of benchmarks), then its subcategories."""
    main = [c for c in columns if c.main]
    placed = [(cat, [sub.name for sub in subs]) for cat, subs in load_taxonomy().categories]
    unplaced = sorted({c.subcategory for c in main if c.category == UNPLACED or
                       all(c.subcategory not in subs for _, subs in placed)})
    if unplaced:
        placed.append((UNPLACED, unplaced))

    def normalised(in_rows: Sequence[Column], model: str) -> list[float | None]:
        return [cells[(c.key, model)].normalised for c in in_rows if (c.key, model) in cells]

    rows = []
    for category, subcategories in placed:
        sub_rows = []
        for sub in subcategories:
            in_sub = [c for c in main if c.subcategory == sub]
            values = {m: _mean(normalised(in_sub, m)) for m in models}
            sub_rows.append(TaxonomyRow(SUBCATEGORY, sub, category, values,
                                        tuple(dict.fromkeys(c.benchmark for c in in_sub))))
        benchmarks = tuple(dict.fromkeys(b for r in sub_rows for b in r.benchmarks))
        in_category = [c for c in main if c.subcategory in subcategories]
        rows.append(TaxonomyRow(CATEGORY, category, category, {m: _mean([r.values[m] for r in sub_rows])
                                                               for m in models}, benchmarks))
        rows.append(TaxonomyRow(CATEGORY_MEDHELM, category, category,
                                {m: _mean(normalised(in_category, m)) for m in models}, benchmarks))
        rows += sub_rows
    return rows


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


# A board's per-model overall figure, its category macro averages and its MedHELM-style category scores.
Summary = Callable[[str], tuple[float | None, dict[str, float | None], dict[str, float | None]]]


def _board(columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell], runs: Sequence[RunInfo],
           models: Sequence[str], all_columns: Sequence[Column], summary: Summary,
           overall: str = MACRO_OVERALL) -> Board:
    def values(column: Column) -> dict[str, float | None]:
        return {m: cells[(column.key, m)].value if (column.key, m) in cells else None for m in models}

    rates = mean_win_rates(models, [(values(c), c.direction) for c in columns])
    by_group = {}
    for group in GROUPS[1:]:
        in_group = [c for c in all_columns if c.group == group and c.direction is not None]
        if in_group:
            by_group[group] = mean_win_rates(models, [(values(c), c.direction) for c in in_group])
    rows = []
    for model in models:
        mine = [r for r in runs if r.model == model]
        macro, categories, medhelm = summary(model)
        rows.append(LeaderboardRow(model, any(r.external for r in mine), rates[model],
                                   {g: rates_g[model] for g, rates_g in by_group.items()}, macro, categories,
                                   sum(r.n_instances or 0 for r in mine), sum(r.n_failed or 0 for r in mine),
                                   len(mine), medhelm, _mean(list(medhelm.values()))))
    rows.sort(key=lambda r: (r.win_rate.value is None, -(r.win_rate.value or 0.0), r.macro is None,
                             -(r.macro or 0.0), r.model))
    return Board(tuple(columns), tuple(rows), overall)


def _normalised(column: Column, cell: Cell | None, registry: Mapping[str, Metric]) -> float | None:
    """A cell's value on 0-1 by its metric's declared range, 1 best (None when it has no bounded range)."""
    spec = registry.get(column.metric)
    if cell is None or cell.value is None or spec is None or not spec.bounded:
        return None
    return min(1.0, max(0.0, spec.normalise(cell.value)))


def _comparisons(columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell], runs: Mapping[str, RunInfo],
                 models: Sequence[str], baseline: str, scores: ScoreValues,
                 registry: Mapping[str, Metric]) -> list[Comparison]:
    """Every other local model against the baseline on each main column, paired by instance."""
    found = []
    paired_columns = [c for c in columns if (c.key, baseline) in cells and c.metric in registry
                      and registry[c.metric].aggregation == "mean"]
    values = scores([(runs[key], c.metric) for c in paired_columns for m in models if (c.key, m) in cells
                     for key in cells[(c.key, m)].runs])
    for column in columns:
        base = cells.get((column.key, baseline))
        if base is None:
            continue
        spec = registry.get(column.metric)
        base_values = {runs[key].subset: values.get((key, column.metric)) for key in base.runs}
        for model in models:
            cell = cells.get((column.key, model))
            if model == baseline or cell is None:
                continue
            if spec is None or spec.aggregation != "mean":
                found.append(Comparison(column.key, model, baseline, 0, 0, None, None, None,
                                        "not a mean of per-instance scores, so no paired difference"))
                continue
            subsets: list[Paired] = []
            for key in cell.runs:
                theirs, ours = base_values.get(runs[key].subset), values.get((key, column.metric))
                if theirs is not None and ours is not None:
                    subsets.append(pair(theirs[0], theirs[1], ours[0], ours[1]))
            if not subsets:
                found.append(Comparison(column.key, model, baseline, 0, 0, None, None, None,
                                        "no run of the same benchmark subset to pair with"))
                continue
            difference, low, high, pairs, unpaired = paired_difference(subsets)
            found.append(Comparison(column.key, model, baseline, pairs, unpaired, difference, low, high))
    return found


def _cost(columns: Sequence[Column], runs: Sequence[RunInfo], metrics: Mapping[str, Mapping[str, MetricSummary]],
          rows: Sequence[LeaderboardRow]) -> list[CostPoint]:
    """Each model's mean cost per run on the first cost metric present, against its macro average."""
    cost_metrics = sorted({c.metric for c in columns if c.group == "cost"})
    if not cost_metrics:
        return []
    metric = cost_metrics[0]
    points = []
    for row in rows:
        spent = [metrics[r.key][metric].value for r in runs if r.model == row.model and metric in metrics[r.key]]
        present = [v for v in spent if v is not None]
        if present and row.macro is not None:
            points.append(CostPoint(row.model, metric, fmean(present), row.macro))
    return points


def _read_once(scores: ScoreValues) -> ScoreValues:
    """`scores` with what it returned kept: the comparisons and the tie groups read the same per-instance scores,
    which on a large suite is most of a report's reading."""
    kept: dict[tuple[str, str], tuple[Any, Any]] = {}
    asked: set[tuple[str, str]] = set()

    def read(wanted: Sequence[tuple[RunInfo, str]]) -> dict[tuple[str, str], tuple[Any, Any]]:
        new = [(run, metric) for run, metric in wanted if (run.key, metric) not in asked]
        if new:
            kept.update(scores(new))
            asked.update((run.key, metric) for run, metric in new)
        return {(run.key, metric): kept[(run.key, metric)] for run, metric in wanted if (run.key, metric) in kept}

    return read


def _check_unique(runs: Sequence[RunInfo]) -> None:
    seen: dict[str, RunInfo] = {}
    for run in runs:
        if run.key in seen:
            raise ConfigError(f"run {run.run_id} is in two stores ({seen[run.key].source} and {run.source})",
                              where="the stores given to the report",
                              fix="give each run once: merge shard stores with `medhelm-local store merge` and "
                                  "report the merged store, or leave one copy out")
        seen[run.key] = run


def build_report(runs: Sequence[RunInfo], metrics: Mapping[str, Mapping[str, MetricSummary]],
                 stores: Sequence[StoreInfo] = (), external_sources: Sequence[str] = (),
                 scores: ScoreValues | None = None, baseline: str | None = None) -> Report:
    """The whole report from runs (local and external) and their metrics."""
    _check_unique(runs)
    registry = all_metrics()
    local = [r for r in runs if not r.external]
    if not local:
        raise ConfigError("there are no runs to report", where="the stores given",
                          fix="run a benchmark into the suite first (`medhelm-local run ... --suite NAME`)")
    columns, cells = _cells(runs, metrics, registry)
    models = sorted({r.model for r in local})
    if baseline is not None and baseline not in models:
        raise ConfigError(f"the baseline '{baseline}' has no runs in these stores", where="baseline",
                          fix=f"name one of: {', '.join(models)}")
    local_columns = [c for c in columns if any((c.key, m) in cells for m in models)]
    main = [c for c in local_columns if c.main]
    taxonomy = _taxonomy_rows(main, cells, models)
    categories = [r for r in taxonomy if r.level == CATEGORY]
    medhelm = [r for r in taxonomy if r.level == CATEGORY_MEDHELM]

    def by_taxonomy(model: str) -> tuple[float | None, dict[str, float | None], dict[str, float | None]]:
        values = {r.name: r.values.get(model) for r in categories}
        return _mean(list(values.values())), values, {r.name: r.values.get(model) for r in medhelm}

    board = _board(main, cells, local, models, local_columns, by_taxonomy)
    chosen = baseline or board.rows[0].model
    by_key = {r.key: r for r in runs}
    scores = _read_once(scores) if scores is not None else None
    comparisons = _comparisons(main, cells, by_key, [r.model for r in board.rows], chosen, scores,
                               registry) if scores is not None else []
    ties = {}
    if scores is not None:
        grids = column_grids(main, cells, by_key, models, scores, registry)
        ties = column_ties(main, grids)
        board = with_win_rate_intervals(board, cells, grids)
    published = _published(runs, columns, cells, registry)
    return Report(datetime.now(UTC).replace(microsecond=0), tuple(stores), tuple(external_sources), tuple(runs),
                  metrics, tuple(columns), cells, board, tuple(taxonomy), chosen, tuple(comparisons), published,
                  tuple(_cost(local_columns, local, metrics, board.rows)),
                  tuple(g for g in GROUPS if any(c.group == g for c in columns)),
                  {c.metric: registry[c.metric] for c in columns if c.metric in registry}, ties)


def _published(runs: Sequence[RunInfo], columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell],
               registry: Mapping[str, Metric]) -> Board | None:
    """Local and external models on the metric each external benchmark is published with."""
    external = [r for r in runs if r.external]
    if not external:
        return None
    wanted = {(r.benchmark, r.main_metric) for r in external}
    # A benchmark whose local runs do not compare with MedHELM's (on any metric) is marked in the column's name,
    # and its reason listed below the table.
    apart = {r.benchmark: r.not_comparable for r in runs if not r.external and r.not_comparable}
    chosen = [replace(c, display_name=f"{c.display_name} {NOT_COMPARABLE_MARK}", not_comparable=apart[c.benchmark])
              if c.benchmark in apart else c for c in columns if (c.benchmark, c.metric) in wanted]
    models = sorted({m for c in chosen for (key, m) in cells if key == c.key})

    def summary(model: str) -> tuple[float | None, dict[str, float | None], dict[str, float | None]]:
        return _mean([_normalised(c, cells.get((c.key, model)), registry) for c in chosen]), {}, {}

    return _board(chosen, cells, [r for r in runs if r.model in models], models, chosen, summary, BENCHMARK_MEAN)
