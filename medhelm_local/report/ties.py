"""The leaderboard's tie groups: per main column, every pair of local models tested on the instances both
scored (metrics.tie_groups), runs paired by benchmark subset as the paired comparisons pair them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.registry import Metric
from medhelm_local.metrics.tie_groups import TieGroups, tie_groups
from medhelm_local.report.model import Cell, Column, RunInfo

if TYPE_CHECKING:
    from medhelm_local.report.build import ScoreValues


def column_ties(columns: Sequence[Column], cells: Mapping[tuple[str, str], Cell], runs: Mapping[str, RunInfo],
                models: Sequence[str], scores: ScoreValues, registry: Mapping[str, Metric]) -> dict[str, TieGroups]:
    """Tie groups of the models with a cell in each ranked main column whose metric is a mean of per-instance
    scores (a macro-F1 has no per-instance difference to test, so such a column has none)."""
    testable = [c for c in columns if c.direction in ("higher", "lower") and c.metric in registry
                and registry[c.metric].aggregation == "mean"]
    values = scores([(runs[key], c.metric) for c in testable for m in models if (c.key, m) in cells
                     for key in cells[(c.key, m)].runs])
    found: dict[str, TieGroups] = {}
    for column in testable:
        present = [m for m in models if (column.key, m) in cells]
        if len(present) < 2:
            continue
        by_subset: dict[Any, dict[str, tuple[Any, Any]]] = {}
        for m in present:
            for key in cells[(column.key, m)].runs:
                scored = values.get((key, column.metric))
                if scored is not None:
                    by_subset.setdefault(runs[key].subset, {})[m] = scored
        paired: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
        for scored_by_model in by_subset.values():
            for pair_, matched in _aligned(present, scored_by_model).items():
                paired.setdefault(pair_, []).append(matched)
        found[column.key] = tie_groups(present, paired, column.direction == "higher")
    return found


def _aligned(models: Sequence[str], scored: Mapping[str, tuple[Any, Any]]) -> dict[tuple[str, str], tuple[Any, Any]]:
    """Every pair of models' scores on the instances both scored, in one subset: the models' scores laid out once
    on the subset's instance keys (NaN where a model has none), then each pair masked, rather than matching ids
    pair by pair."""
    import numpy as np

    have = [m for m in models if m in scored]
    keys, inverse = np.unique(np.concatenate([np.asarray(scored[m][0]) for m in have]), return_inverse=True)
    grid = np.full((len(have), keys.size), np.nan)
    start = 0
    for row, m in enumerate(have):
        size = len(scored[m][0])
        grid[row, inverse[start:start + size]] = np.asarray(scored[m][1], dtype=float)
        start += size
    present = ~np.isnan(grid)
    out = {}
    for i, a in enumerate(have):
        for j in range(i + 1, len(have)):
            both = present[i] & present[j]
            out[(a, have[j])] = (grid[i, both], grid[j, both])
    return out
