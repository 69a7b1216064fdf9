"""The leaderboard's uncertainty, from results/ties.py: the report's main columns and cells laid out as grids of
per-instance scores, tie groups per column, and each row's mean win rate given its bootstrap interval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.registry import Metric
from medhelm_local.metrics.tie_groups import TieGroups
from medhelm_local.report.read_model import Board, Cell, Column, RunInfo
from medhelm_local.results.ties import WIN_RATE_SAMPLES, Grid, column_tie_groups, grid, win_rate_intervals

if TYPE_CHECKING:
    from medhelm_local.report.build import ScoreValues


def column_grids(columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell], runs: Mapping[str, RunInfo],
                 models: Sequence[str], scores: ScoreValues, registry: Mapping[str, Metric]) -> dict[str, list[Grid]]:
    """Per ranked main column whose metric is a mean of per-instance scores, its subsets' grids."""
    testable = [c for c in columns if c.direction in ("higher", "lower") and c.metric in registry
                and registry[c.metric].aggregation == "mean"]
    values = scores([(runs[key], c.metric) for c in testable for m in models if (c.key, m) in cells
                     for key in cells[(c.key, m)].runs])
    found: dict[str, list[Grid]] = {}
    for column in testable:
        by_subset: dict[Any, dict[str, tuple[Any, Any]]] = {}
        for m in models:
            for key in cells[(column.key, m)].runs if (column.key, m) in cells else ():
                scored = values.get((key, column.metric))
                if scored is not None:
                    by_subset.setdefault(runs[key].subset, {})[m] = scored
        found[column.key] = [grid(models, s) for s in by_subset.values()]
    return found


def column_ties(columns: Sequence[Column], grids: Mapping[str, list[Grid]]) -> dict[str, TieGroups]:
    """Tie groups of the models with scores in each column that has grids."""
    found = {c.key: column_tie_groups(grids.get(c.key) or [], c.direction == "higher") for c in columns}
    return {key: groups for key, groups in found.items() if groups is not None}


def with_win_rate_intervals(board: Board, cells: Mapping[tuple[str, str], Cell], grids: Mapping[str, list[Grid]],
                            samples: int = WIN_RATE_SAMPLES, seed: int = 0) -> Board:
    """The board with each row's mean win rate given its bootstrap interval (rows and values unchanged)."""
    models = [row.model for row in board.rows]
    values = {(c.key, m): cells[(c.key, m)].value if (c.key, m) in cells else None for c in board.columns
              for m in models}
    intervals = win_rate_intervals(models, [(c.key, c.direction) for c in board.columns], values, grids, samples,
                                   seed)
    rows = []
    for row in board.rows:
        found = intervals[row.model] if row.win_rate.value is not None else None
        low, high = found if found is not None else (None, None)
        rows.append(replace(row, win_rate=replace(row.win_rate, ci_low=low, ci_high=high)))
    return replace(board, rows=tuple(rows))
