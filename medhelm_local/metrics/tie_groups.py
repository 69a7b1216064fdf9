"""Tie groups: which models one benchmark cannot tell apart, from paired tests on the instances they share.

    test         for two models, the per-instance differences of the main metric on the instances both
                 scored (a failure is never imputed, so an instance one of them could not score is left
                 out). Null hypothesis: on each instance the two models are exchangeable, so each
                 difference's sign is a fair coin. Statistic: the (subset-weighted) sum of differences;
                 two-sided p-value: the share of sign patterns whose sum is at least as far from 0.
                   - exact, over all 2^m sign patterns, when at most 16 differences are non-zero;
                   - exact from the binomial distribution when every non-zero difference has the same
                     size (0/1 scores on one subset): the sum is that size times 2 Binomial(m, 1/2) - m;
                   - otherwise 10,000 seeded random sign patterns, p = (1 + as far) / (1 + 10,000); when
                     the differences take few distinct magnitudes (0/1 scores give one), a pattern's sum
                     is drawn as one binomial count per magnitude, which is the same distribution;
                   - when that would still draw more than 50 million signs (many instances with
                     continuous scores), the normal approximation of the same sign-flip distribution
                     (mean 0, variance the sum of squared differences), which is very close at that size.
    correction   Holm's step-down correction over all pairs of models on the benchmark (the family is
                 the benchmark's pairs), at a family-wise error rate of 5 %.
    rank group   a model's best rank is 1 + the models significantly better than it; its worst rank is
                 the number of models minus those significantly worse. "1-3": it could be first or
                 third; "2": the tests place it second.

A benchmark run as several subsets (arguments) weighs each subset equally, as its cells do: each
difference is weighted by 1 / (subsets x instances in its subset) before the sum. Seeded: the same
scores give the same p-values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

ALPHA = 0.05
EXACT_MAX = 16  # non-zero differences up to which every sign pattern is enumerated (2^16 patterns)
DRAWS = 10_000
_NORMAL_ABOVE = 50_000_000  # signs a Monte Carlo test may draw before the normal approximation is used
_FEW_MAGNITUDES = 64


@dataclass(frozen=True)
class PairTest:
    """Two models on one benchmark: the mean difference (b minus a), its p-values and how they were made."""

    a: str
    b: str
    n_pairs: int
    difference: float | None
    p_value: float | None  # None: nothing to test (no shared scored instance)
    p_holm: float | None
    method: str  # exact | monte-carlo | normal | none

    def significant(self, alpha: float = ALPHA) -> bool:
        """Whether the Holm-corrected p-value is below `alpha`."""
        return self.p_holm is not None and self.p_holm < alpha


@dataclass(frozen=True)
class RankGroup:
    """A model's place on one benchmark: the best and worst rank the tests allow."""

    model: str
    best: int
    worst: int

    @property
    def label(self) -> str:
        """'1-3', or '2' when the tests pin it down."""
        return str(self.best) if self.best == self.worst else f"{self.best}-{self.worst}"


@dataclass(frozen=True)
class TieGroups:
    """One benchmark's pairwise tests and each model's rank group."""

    pairs: tuple[PairTest, ...]
    ranks: Mapping[str, RankGroup]
    correction: str = "Holm"


def sign_flip_p(differences: Any, seed: int = 0) -> tuple[float, str]:
    """Two-sided p-value of the paired sign-flip permutation test of sum(differences) = 0, and the method used."""
    d = np.asarray(differences, dtype=float)
    d = d[d != 0.0]
    if d.size == 0:
        return 1.0, "exact"
    observed = abs(float(d.sum()))
    # A sum that equals the observed one up to rounding counts as at least as far (ties count in the p-value).
    tolerance = 1e-9 * max(1.0, float(np.abs(d).sum()))
    if d.size <= EXACT_MAX:
        patterns = ((np.arange(2 ** d.size)[:, None] >> np.arange(d.size)) & 1) * 2 - 1
        sums = np.abs(patterns @ d)
        return float(np.mean(sums >= observed - tolerance)), "exact"
    sizes = np.abs(d)
    if bool(np.all(sizes == sizes[0])):
        return _binomial_two_sided(d.size, int(np.sum(d > 0))), "exact"
    magnitudes, counts = np.unique(sizes, return_counts=True)
    rng = np.random.default_rng(seed)
    if magnitudes.size <= _FEW_MAGNITUDES:
        # Flipping c differences of magnitude a gives a * (2 * Binomial(c, 1/2) - c).
        positives = rng.binomial(counts, 0.5, size=(DRAWS, magnitudes.size))
        sums = np.abs((2 * positives - counts) @ magnitudes)
    elif d.size * DRAWS > _NORMAL_ABOVE:
        z = observed / math.sqrt(float(np.square(d).sum()))
        return float(math.erfc(z / math.sqrt(2))), "normal"
    else:
        sums = np.empty(DRAWS)
        per_block = max(1, 2_000_000 // d.size)
        for start in range(0, DRAWS, per_block):
            size = min(per_block, DRAWS - start)
            signs = rng.integers(0, 2, size=(size, d.size)) * 2 - 1
            sums[start:start + size] = np.abs(signs @ d)
    hits = int(np.sum(sums >= observed - tolerance))
    return (1 + hits) / (1 + DRAWS), "monte-carlo"


def _binomial_two_sided(m: int, k: int) -> float:
    """P(|2B - m| >= |2k - m|) for B ~ Binomial(m, 1/2): the sign-flip p-value of m equal-sized differences, k
    of them positive. Summed in log space, so it holds for any m."""
    low = min(k, m - k)
    if 2 * low >= m:
        return 1.0
    i = np.arange(low + 1, dtype=float)
    # log C(m, i) - m log 2, built up term by term: C(m, i + 1) = C(m, i) (m - i) / (i + 1).
    steps = np.log(m - i[:-1]) - np.log(i[:-1] + 1)
    logs = np.concatenate(([0.0], np.cumsum(steps))) - m * math.log(2)
    top = float(logs.max())
    tail = math.exp(top) * float(np.exp(logs - top).sum())
    return min(1.0, 2 * tail)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


def weighted_differences(subsets: Sequence[tuple[Any, Any]]) -> tuple[Any, float | None, int]:
    """From per-subset paired scores (a, b): the weighted differences whose sum is the mean difference (b
    minus a, subsets weighing the same), that mean difference, and the number of pairs."""
    usable = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in subsets if len(a)]
    if not usable:
        return np.empty(0), None, 0
    parts = [(b - a) / (len(usable) * len(a)) for a, b in usable]
    weighted = np.concatenate(parts)
    return weighted, float(weighted.sum()), sum(len(a) for a, _ in usable)


def tie_groups(models: Sequence[str], paired: Mapping[tuple[str, str], Sequence[tuple[Any, Any]]],
               higher_is_better: bool, seed: int = 0) -> TieGroups:
    """Rank groups of `models` on one benchmark from `paired[(a, b)]`: per subset, (a's scores, b's scores)
    on the instances both scored. A pair missing from `paired` or with no shared instance is not tested
    (and so never separates the two models)."""
    tests: list[PairTest] = []
    for index, (a, b) in enumerate(combinations(models, 2)):
        weighted, difference, n = weighted_differences(paired.get((a, b), ()))
        if n == 0:
            tests.append(PairTest(a, b, 0, None, None, None, "none"))
            continue
        p, method = sign_flip_p(weighted, seed + index)
        tests.append(PairTest(a, b, n, difference, p, None, method))
    tested = [t for t in tests if t.p_value is not None]
    adjusted = iter(holm([t.p_value for t in tested if t.p_value is not None]))
    tests = [PairTest(t.a, t.b, t.n_pairs, t.difference, t.p_value, next(adjusted), t.method)
             if t.p_value is not None else t for t in tests]
    better = {m: 0 for m in models}
    worse = {m: 0 for m in models}
    for t in tests:
        if not t.significant() or t.difference is None or t.difference == 0:
            continue
        b_wins = (t.difference > 0) == higher_is_better
        winner, loser = (t.b, t.a) if b_wins else (t.a, t.b)
        better[loser] += 1
        worse[winner] += 1
    ranks = {m: RankGroup(m, 1 + better[m], len(models) - worse[m]) for m in models}
    return TieGroups(tuple(tests), ranks)
