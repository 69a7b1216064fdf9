"""The per-instance aggregation kinds (metrics/kinds.py), with a seeded 95 % bootstrap interval.

`mean`: the mean over scored instances. `macro_f1`: the unweighted mean of per-label F1 from the
(gold, read) labels each instance recorded; its detail holds per-label counts and the confusion
table. `micro_f1`: 2TP / (2TP + FP + FN) from per-instance code counts. `jury`: the metric's own
aggregator (failures per judge), else the mean. Every aggregate counts
the instances it could not score (failed requests and failed scorers) beside its value; nothing
is ever imputed for them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.kinds import per_instance, per_instance_kind
from medhelm_local.metrics.registry import Metric
from medhelm_local.records import Aggregate

BOOTSTRAP_SAMPLES = 1000
# Resamples drawn per block: every resample of a long run drawn at once would take most of a small host's
# memory; the calibration interval holds about five arrays of a block's size at once, so a block stays small
# (bench/memory.py; a larger block raised a long run's peak: docs/performance.md).
_BLOCK_CELLS = 100_000


@dataclass(frozen=True)
class ScoreRow:
    """One stored per-instance score, as aggregations read it."""

    value: float | None
    detail: Mapping[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """True when the metric produced a value for this instance."""
        return self.value is not None


def _resamples(n: int, samples: int, seed: int) -> Any:
    """Index blocks for the bootstrap: `samples` resamples of size n, drawn a block at a time."""
    import numpy as np  # only reports need it; `run --quiet` never imports it

    rng = np.random.default_rng(seed)
    per_block = max(1, _BLOCK_CELLS // max(n, 1))
    drawn = 0
    while drawn < samples:
        size = min(per_block, samples - drawn)
        yield rng.integers(0, n, size=(size, n))
        drawn += size


def _interval(stats: list[float], samples: int) -> tuple[float, float]:
    ordered = sorted(stats)
    return ordered[int(0.025 * samples)], ordered[min(samples - 1, int(0.975 * samples))]


def bootstrap_ci(values: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> tuple[float, float]:
    """Percentile 95 % interval of the mean; seeded, so the same scores give the same interval."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    if data.size == 1:
        return float(data[0]), float(data[0])
    if np.all((data == 0.0) | (data == 1.0)):
        # Resampling n values of 0 and 1 draws a Binomial(n, p) count of ones: the same distribution of
        # means as the general bootstrap, without drawing samples x n indices.
        counts = np.random.default_rng(seed).binomial(data.size, data.mean(), size=samples)
        return _interval((counts / data.size).tolist(), samples)
    means: list[float] = []
    for block in _resamples(data.size, samples, seed):
        means.extend(data[block].mean(axis=1).tolist())
    return _interval(means, samples)


def aggregate(metric: str, n_instances: int, values: Sequence[float] | Any, n_failed: int) -> Aggregate:
    """The mean of one metric over scored instances (a sequence or an array of values); never imputes a
    value for failed or pending ones."""
    count = len(values)
    if not count:
        return Aggregate(metric, n_instances, 0, n_failed, None, None, None)
    low, high = bootstrap_ci(values)
    total = values.sum() if hasattr(values, "sum") else sum(values)  # an array's own sum: not element by element
    return Aggregate(metric, n_instances, count, n_failed, float(total) / count, low, high)


def _f1(tp: float, fp: float, fn: float) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def macro_f1_counts(pairs: Sequence[tuple[str, str | None]]) -> tuple[float, dict[str, dict[str, float]]]:
    """Macro-F1 over the labels seen as gold or read, and the per-label counts; None reads miss their gold."""
    labels = sorted({g for g, _ in pairs} | {r for _, r in pairs if r is not None})
    per_label: dict[str, dict[str, float]] = {}
    for label in labels:
        tp = sum(1 for g, r in pairs if g == label and r == label)
        fp = sum(1 for g, r in pairs if g != label and r == label)
        fn = sum(1 for g, r in pairs if g == label and r != label)
        per_label[label] = {"tp": tp, "fp": fp, "fn": fn, "support": tp + fn, "f1": _f1(tp, fp, fn)}
    macro = sum(c["f1"] for c in per_label.values()) / len(per_label) if per_label else 0.0
    return macro, per_label


def _macro_f1_bootstrap(pairs: Sequence[tuple[str, str | None]], samples: int = BOOTSTRAP_SAMPLES,
                        seed: int = 0) -> tuple[float, float]:
    import numpy as np

    labels = sorted({g for g, _ in pairs} | {r for _, r in pairs if r is not None})
    code = {label: i for i, label in enumerate(labels)}
    k = len(labels)
    gold = np.array([code[g] for g, _ in pairs])
    read = np.array([code[r] if r is not None else k for _, r in pairs])  # k: unreadable
    stats: list[float] = []
    for block in _resamples(len(pairs), samples, seed):
        g, r = gold[block], read[block]
        for row_g, row_r in zip(g, r, strict=True):
            tp = np.bincount(row_g[row_g == row_r], minlength=k)[:k]
            fp = np.bincount(row_r[row_g != row_r], minlength=k + 1)[:k]
            fn = np.bincount(row_g[row_g != row_r], minlength=k)[:k]
            seen = (tp + fp + fn) > 0
            f1 = np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
            stats.append(float(f1[seen].mean()) if seen.any() else 0.0)
    return _interval(stats, samples)


def _macro_f1(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed: int) -> Aggregate:
    pairs = [(str(r.detail["gold"]), None if r.detail.get("read") is None else str(r.detail["read"]))
             for r in rows if r.detail is not None]
    if not pairs:
        return Aggregate(spec.name, n, 0, n_failed, None, None, None)
    macro, per_label = macro_f1_counts(pairs)
    confusion: dict[str, Counter[str]] = {}
    for gold, read in pairs:
        confusion.setdefault(gold, Counter())[read if read is not None else "(unreadable)"] += 1
    low, high = _macro_f1_bootstrap(pairs) if len(pairs) > 1 else (macro, macro)
    detail = {"per_label": per_label, "confusion": {g: dict(c) for g, c in sorted(confusion.items())},
              "unreadable": sum(1 for _, r in pairs if r is None),
              "unreadable_reasons": dict(sorted(Counter(str(r.detail["unreadable"]) for r in rows
                                                        if r.detail and "unreadable" in r.detail).items()))}
    return Aggregate(spec.name, n, len(pairs), n_failed, macro, low, high, detail)


def _micro_f1(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed: int) -> Aggregate:
    import numpy as np

    counts = np.array([[float(r.detail.get(k, 0)) for k in ("tp", "fp", "fn")] for r in rows if r.detail],
                      dtype=float)
    if counts.size == 0:
        return Aggregate(spec.name, n, 0, n_failed, None, None, None)
    tp, fp, fn = counts.sum(axis=0)
    stats: list[float] = []
    for block in _resamples(len(counts), BOOTSTRAP_SAMPLES, 0):
        for sums in counts[block].sum(axis=1):
            stats.append(_f1(*sums))
    low, high = _interval(stats, BOOTSTRAP_SAMPLES)
    return Aggregate(spec.name, n, len(counts), n_failed, _f1(tp, fp, fn), low, high,
                     {"tp": int(tp), "fp": int(fp), "fn": int(fn)})


def _mean(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed: int) -> Aggregate:
    found = aggregate(spec.name, n, [r.value for r in rows if r.value is not None], n_failed)
    reasons = Counter(str(r.detail["unreadable"]) for r in rows if r.detail and "unreadable" in r.detail)
    if not reasons:
        return found
    # Answers the metric could not read: scored 0 (no option, label or value given), counted here with why.
    return replace(found, detail={"unreadable": sum(reasons.values()), "unreadable_reasons": dict(sorted(
        reasons.items()))})


Combine = Callable[[Metric, int, Sequence[ScoreRow], int], Aggregate]


def _scored(how: Combine) -> Combine:
    """A kind that reads the scored rows only: the others count as failed instances."""
    def over(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
        scored = [r for r in rows if r.ok]
        return how(spec, n, scored, n_failed_requests + (len(rows) - len(scored)))

    return over


per_instance_kind("mean", "the mean over scored instances, with a bootstrap interval")(_scored(_mean))
per_instance_kind("macro_f1", "the unweighted mean of per-label F1 over the read labels")(_scored(_macro_f1))
per_instance_kind("micro_f1", "2TP / (2TP + FP + FN) over per-instance code counts")(_scored(_micro_f1))


@per_instance_kind("jury", "a jury's ratings: the metric's own way over a run (failures per judge), else the mean")
def _jury(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
    if spec.aggregator is not None:  # it reads the failed rows too (which judge failed)
        found: Aggregate = spec.aggregator(spec, n, rows, n_failed_requests)
        return found
    return _scored(_mean)(spec, n, rows, n_failed_requests)


def summarise(spec: Metric, n_instances: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
    """One metric over a run by its declared aggregation kind; failed scorers count as failed instances."""
    how = per_instance(spec.aggregation).over_scores
    if how is None:  # per_instance() returns per-instance kinds only: a kind registered without its function
        raise ConfigError(f"the aggregation kind '{spec.aggregation}' has no per-instance function",
                          where=f"metric {spec.name}", fix="register the kind with per_instance_kind")
    return how(spec, n_instances, rows, n_failed_requests)
