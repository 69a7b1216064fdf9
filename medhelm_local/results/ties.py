"""How sure a leaderboard is, computed on per-instance scores: per column, every pair of models tested on the
instances both scored (metrics.tie_groups: tie groups), and the mean win rate's bootstrap interval. A column's
scores come as grids, one per benchmark subset (runs pair by subset as the paired comparisons pair them);
report/uncertainty.py lays the report's columns and cells out as grids and puts the figures on its board.

Mean win rate interval: 200 seeded resamples. In each, every column's instances are drawn again with
replacement (the same draw for every model, since they answered the same instances; within each subset of a
column), each model's cell is recomputed from the drawn instances it scored (subsets averaged equally, as its
cell is), and the mean win rate is computed by HELM's rule; the interval is the 2.5th to 97.5th percentile. A
column whose metric is not a mean of per-instance scores (macro-F1) keeps its values in every resample.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from medhelm_local.metrics.tie_groups import TieGroups, tie_groups

WIN_RATE_SAMPLES = 200


@dataclass(frozen=True)
class Grid:
    """One subset of a column: its models' scores laid out on the subset's instances (NaN where one has none)."""

    models: tuple[str, ...]
    scores: Any  # models x instances


def grid(models: Sequence[str], scored: Mapping[str, tuple[Any, Any]]) -> Grid:
    """The scores of `models` (those in `scored`: instance keys, values) on the union of their instances."""
    have = [m for m in models if m in scored]
    keys, inverse = np.unique(np.concatenate([np.asarray(scored[m][0]) for m in have]), return_inverse=True)
    table = np.full((len(have), keys.size), np.nan)
    start = 0
    for row, m in enumerate(have):
        size = len(scored[m][0])
        table[row, inverse[start:start + size]] = np.asarray(scored[m][1], dtype=float)
        start += size
    return Grid(tuple(have), table)


def _pairs(found: Grid) -> dict[tuple[str, str], tuple[Any, Any]]:
    """Every pair of models' scores on the instances both scored."""
    present = ~np.isnan(found.scores)
    out = {}
    for i, a in enumerate(found.models):
        for j in range(i + 1, len(found.models)):
            both = present[i] & present[j]
            out[(a, found.models[j])] = (found.scores[i, both], found.scores[j, both])
    return out


def column_tie_groups(subsets: Sequence[Grid], higher: bool) -> TieGroups | None:
    """Tie groups of the models with scores in one column's subsets; None with fewer than two such models."""
    present = list(dict.fromkeys(m for g in subsets for m in g.models))
    if not subsets or len(present) < 2:
        return None
    paired: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
    for subset in subsets:
        for pair_, matched in _pairs(subset).items():
            paired.setdefault(pair_, []).append(matched)
    return tie_groups(present, paired, higher)


def _patterns(scores: Any) -> tuple[Any, Any] | None:
    """The distinct columns of a models x instances grid (NaN a value of its own) and how many instances have
    each; None when there are too many kinds of value to number them (continuous scores)."""
    code = np.zeros(scores.shape[1], dtype=np.int64)
    radix = 1
    for row in scores:
        _, inverse = np.unique(row, return_inverse=True)  # NaNs are one value (numpy's equal_nan)
        kinds = int(inverse.max()) + 1 if inverse.size else 1
        if radix * kinds >= 2 ** 62:
            return None
        code += inverse.reshape(-1) * radix
        radix *= kinds
    _, first, counts = np.unique(code, return_index=True, return_counts=True)
    return scores[:, first], counts


def _resample_counts(scores: Any, samples: int, rng: Any) -> tuple[Any, Any]:
    """(counts, columns): how often each column of `scores` (models x columns) is drawn in each resample of the
    instances (samples x columns), and the columns."""
    n = scores.shape[1]
    found = _patterns(scores)
    if found is not None and found[1].size * 4 <= n:
        # Instances with the same scores for every model are interchangeable: a resample's counts over the distinct
        # columns are a multinomial draw, the same distribution as drawing instances, over far fewer columns.
        columns, counts = found
        return rng.multinomial(n, counts / n, size=samples).astype(np.float64), columns
    # How often each instance is drawn in each resample (samples x instances), counted in one bincount.
    index = np.int32 if samples * n < 2 ** 31 else np.int64  # half the memory and time of int64 where it fits
    drawn = rng.integers(0, n, size=(samples, n), dtype=index) + (np.arange(samples, dtype=index) * n)[:, None]
    return np.bincount(drawn.ravel(), minlength=samples * n).reshape(samples, n).astype(np.float64), scores


def _resampled(subsets: Sequence[Grid], models: Sequence[str], samples: int, rng: Any) -> dict[str, Any]:
    """Per model, `samples` bootstrap values of its cell (NaN where a resample drew none of its instances)."""
    per_model: dict[str, list[Any]] = {}
    for subset in subsets:
        counts, columns = _resample_counts(subset.scores, samples, rng)
        present = ~np.isnan(columns)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (counts @ np.where(present, columns, 0.0).T) / (counts @ present.T)  # samples x models
        for i, m in enumerate(subset.models):
            per_model.setdefault(m, []).append(means[:, i])
    return {m: np.nanmean(np.vstack(v), axis=0) if len(v) > 1 else v[0] for m, v in per_model.items()
            if m in models}


def _column_rates(values: Any, higher: bool) -> tuple[Any, Any]:
    """Each resample's win rates in one column (samples x models), as results.winrate.column_win_rates gives them, and
    where a model has one (it has a value and at least one other model does)."""
    present = ~np.isnan(values)
    others = present.sum(axis=1, keepdims=True) - 1
    mine, theirs = values[:, :, None], values[:, None, :]
    with np.errstate(invalid="ignore"):
        beaten = ((theirs < mine) if higher else (theirs > mine)).sum(axis=2)  # NaN compares false
        tied = (theirs == mine).sum(axis=2) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = (beaten + 0.5 * tied) / others
    return rates, present & (others >= 1)


def win_rate_intervals(models: Sequence[str], columns: Sequence[tuple[str, str | None]],
                       values: Mapping[tuple[str, str], float | None], grids: Mapping[str, Sequence[Grid]],
                       samples: int = WIN_RATE_SAMPLES, seed: int = 0) -> dict[str, tuple[float, float] | None]:
    """Each model's mean win rate's bootstrap interval over `columns` ((key, direction): those ranked higher or lower
    count, as in the mean win rate); a column with grids is resampled, any other keeps its `values` ((key, model) ->
    value) throughout. None for a model that lacks a win rate in some resample."""
    rng = np.random.default_rng(seed)
    kept = [{m: values.get((key, m)) for m in models} for key, _ in columns]
    redrawn = [key for key, _ in columns if grids.get(key)]
    # A generator per column, so that columns resample on two threads (numpy's draws, sorts and products let go of
    # the interpreter) and the result is the same whichever finishes first.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="medhelm-win-rate") as pool:
        drawn = dict(zip(redrawn, pool.map(lambda key, generator: _resampled(grids[key], models, samples, generator),
                                           redrawn, rng.spawn(len(redrawn))), strict=True))
    # Per column, its models' values over the resamples (samples x models; its cell's value throughout where not
    # redrawn; NaN where a model has none).
    series = [np.column_stack([drawn[key][m] if key in drawn and m in drawn[key] and fixed[m] is not None
                               else np.full(samples, np.nan if fixed[m] is None else fixed[m]) for m in models])
              for (key, _), fixed in zip(columns, kept, strict=True)]
    total, ranked_in = np.zeros((samples, len(models))), np.zeros((samples, len(models)), dtype=np.int64)
    for series_c, (_, direction) in zip(series, columns, strict=True):
        if direction in ("higher", "lower"):
            rates_c, ranked = _column_rates(series_c, direction == "higher")
            total += np.where(ranked, rates_c, 0.0)  # columns added in order, as mean_win_rates adds them
            ranked_in += ranked
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total / ranked_in
    found = {m: means[:, i][ranked_in[:, i] > 0] for i, m in enumerate(models)}
    return {m: (float(np.percentile(f, 2.5)), float(np.percentile(f, 97.5))) if len(f) == samples else None
            for m, f in found.items()}
