"""Slices: a run's metrics aggregated per value of the card's slice keys (section, age band, sex, ...).

    per value     the mean of the instances with that value that the metric scored, its seeded 95 %
                  percentile bootstrap interval (as every run aggregate), and the counts beside it:
                  instances with that value, scored, failed (a request or the metric failed: counted,
                  never scored) and pending
    largest gap   between the value with the highest mean and the one with the lowest (values with at
                  least one scored instance): the difference of means with a two-sample bootstrap
                  interval (each value's instances resampled on their own; the instances of one run's
                  slices are disjoint, so the samples are independent)

Only metrics that aggregate as a mean of per-instance scores are sliced (a macro-F1 of a slice is
another statistic, not a part of the run's). Seeded: the same scores give the same intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from medhelm_local.metrics.aggregate import BOOTSTRAP_SAMPLES, bootstrap_ci

if TYPE_CHECKING:  # numpy loads only where a gap is drawn: `show` of a run without slices never needs it
    import numpy as np


@dataclass(frozen=True)
class SliceValue:
    """One metric over the instances with one value of one slice key."""

    key: str
    value: str
    n: int
    n_scored: int
    n_failed: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None

    @property
    def n_pending(self) -> int:
        """Instances neither scored nor failed."""
        return max(0, self.n - self.n_scored - self.n_failed)


@dataclass(frozen=True)
class SliceGap:
    """The largest difference of means between two values of a slice key (high minus low)."""

    key: str
    high: str
    low: str
    gap: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class SlicedMetric:
    """One metric of a run by one slice key: every value, and the largest gap between them."""

    metric: str
    key: str
    values: tuple[SliceValue, ...]
    gap: SliceGap | None
    suppressed: int = 0  # values left out for having fewer instances than a minimum (an export's min_slice_size)


@dataclass(frozen=True)
class InstanceOutcome:
    """What a slice needs of one instance for one metric: its slice values and its score or failure."""

    slices: Mapping[str, str]
    score: float | None  # None: not scored
    failed: bool  # its request failed, or the metric could not score its answer


def _draws(values: Sequence[float], samples: int, seed: int) -> np.ndarray:
    """`samples` bootstrap means of `values`, seeded."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    if data.size == 1:
        return np.full(samples, data[0])
    means: np.ndarray = data[rng.integers(0, data.size, size=(samples, data.size))].mean(axis=1)
    return means


def largest_gap(key: str, scored: Mapping[str, Sequence[float]], samples: int = BOOTSTRAP_SAMPLES,
                seed: int = 0) -> SliceGap | None:
    """The largest gap between two values' means, with a two-sample bootstrap interval (None: under two values)."""
    present = {v: s for v, s in scored.items() if len(s)}
    if len(present) < 2:
        return None
    import numpy as np

    means = {v: float(np.mean(s)) for v, s in present.items()}
    high = max(sorted(means), key=lambda v: means[v])
    low = min((v for v in sorted(means) if v != high), key=lambda v: means[v])  # two values even when all tie
    differences = _draws(present[high], samples, seed) - _draws(present[low], samples, seed + 1)
    ci_low, ci_high = np.percentile(differences, [2.5, 97.5])
    return SliceGap(key, high, low, means[high] - means[low], float(ci_low), float(ci_high))


def slice_metric(metric: str, key: str, outcomes: Sequence[InstanceOutcome], min_size: int = 1) -> SlicedMetric:
    """One metric of one run by one slice key, values in order of their names. A value with fewer than `min_size`
    instances is left out (counted in `suppressed`), from the gap too, so nothing of it can be worked back."""
    groups: dict[str, list[InstanceOutcome]] = {}
    for outcome in outcomes:
        if key in outcome.slices:
            groups.setdefault(outcome.slices[key], []).append(outcome)
    small = [v for v, members in groups.items() if len(members) < min_size]
    for value in small:
        del groups[value]
    values, scored = [], {}
    for value in sorted(groups):
        members = groups[value]
        scores = [o.score for o in members if o.score is not None]
        low, high = bootstrap_ci(scores) if scores else (None, None)
        values.append(SliceValue(key, value, len(members), len(scores), sum(1 for o in members if o.failed),
                                 sum(scores) / len(scores) if scores else None, low, high))
        scored[value] = scores
    return SlicedMetric(metric, key, tuple(values), largest_gap(key, scored), len(small))
