"""Paired comparisons: two models on the same instances, the mean difference and a paired bootstrap interval.

Instances pair by id within runs of the same benchmark subset (same arguments). Only instances both
models scored count; the rest are reported as unpaired, never imputed. A column with several subsets
combines them as its cells do: the difference is the mean of the subsets' mean differences, and each
bootstrap resample draws every subset's instances again within that subset (a stratified bootstrap),
so the interval covers the same quantity. Seeded: the same scores give the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

SAMPLES = 1000
_BLOCK_CELLS = 2_000_000  # resample indices drawn per block, to keep memory flat on large runs
_FEW_VALUES = 64  # differences with at most this many distinct values are resampled as counts


@dataclass(frozen=True)
class Paired:
    """One subset's paired values: the two models' scores on the instances both scored."""

    a: Any  # numpy array
    b: Any
    unpaired: int


def pair(keys_a: Any, values_a: Any, keys_b: Any, values_b: Any) -> Paired:
    """Match two runs' scored instances by key (arrays of instance keys and values, any order, keys unique)."""
    common, index_a, index_b = np.intersect1d(np.asarray(keys_a), np.asarray(keys_b), assume_unique=True,
                                              return_indices=True)
    unpaired = len(keys_a) + len(keys_b) - 2 * len(common)
    return Paired(np.asarray(values_a, dtype=float)[index_a], np.asarray(values_b, dtype=float)[index_b], unpaired)


def bootstrap_means(values: Any, samples: int = SAMPLES, seed: int = 0) -> Any:
    """`samples` bootstrap means of `values` (an array of floats), seeded.

    When the values take few distinct values (differences of 0/1 scores take three), a resample is a
    multinomial draw of counts over them: the same distribution of means, without n draws per resample.
    """
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    if data.size == 1:
        return np.full(samples, data[0])
    distinct, counts = np.unique(data, return_counts=True)
    if distinct.size <= _FEW_VALUES:
        drawn = rng.multinomial(data.size, counts / data.size, size=samples)
        return (drawn @ distinct) / data.size
    means = np.empty(samples)
    per_block = max(1, _BLOCK_CELLS // data.size)
    for start in range(0, samples, per_block):
        size = min(per_block, samples - start)
        means[start:start + size] = data[rng.integers(0, data.size, size=(size, data.size))].mean(axis=1)
    return means


def paired_difference(subsets: Sequence[Paired], samples: int = SAMPLES, seed: int = 0
                      ) -> tuple[float | None, float | None, float | None, int, int]:
    """(difference, ci_low, ci_high, pairs, unpaired): b minus a, subsets weighted equally."""
    usable = [s for s in subsets if len(s.a)]
    pairs = sum(len(s.a) for s in usable)
    unpaired = sum(s.unpaired for s in subsets)
    if not usable:
        return None, None, None, 0, unpaired
    differences = [s.b - s.a for s in usable]
    estimate = float(np.mean([d.mean() for d in differences]))
    draws = np.mean([bootstrap_means(d, samples, seed + i) for i, d in enumerate(differences)], axis=0)
    low, high = np.percentile(draws, [2.5, 97.5])
    return estimate, float(low), float(high), pairs, unpaired
