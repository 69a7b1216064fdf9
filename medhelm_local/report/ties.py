"""The leaderboard's tie groups: per main column, every pair of local models tested on the instances both
scored (metrics.tie_groups), runs paired by benchmark subset as the paired comparisons pair them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.registry import Metric
from medhelm_local.metrics.tie_groups import TieGroups, tie_groups
from medhelm_local.report.model import Cell, Column, RunInfo
from medhelm_local.report.paired import pair

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
        by_subset = {m: {runs[key].subset: values.get((key, column.metric)) for key in cells[(column.key, m)].runs}
                     for m in present}
        paired: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                for subset, mine in by_subset[a].items():
                    theirs = by_subset[b].get(subset)
                    if mine is not None and theirs is not None:
                        matched = pair(mine[0], mine[1], theirs[0], theirs[1])
                        paired.setdefault((a, b), []).append((matched.a, matched.b))
        found[column.key] = tie_groups(present, paired, column.direction == "higher")
    return found
