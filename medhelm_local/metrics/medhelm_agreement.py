"""MedHELM's validation statistics: how its jury was checked against clinicians, computed the same way.

MedHELM's analysis code (som-shahlab/medhelm, `src/medhelm/open-ended-evals/4_calculate_icc.py`) takes,
per answer, a composite score: the mean of the rubric's criteria, each clinician's composite averaged
over the clinicians who rated the answer, and the jury's composite. On a set of answers it reports:

    ICC3k-z         ICC(3,k) (two-way mixed, consistency, average of the k = 2 raters; pingouin's
                    ICC(C,k)) between the clinicians' and the jury's composites, each rater's values
                    first turned into z-scores over the answers (mean 0, standard deviation 1, ddof 1);
                    95 % interval from the F distribution, as pingouin computes it. The figure
                    MedHELM's paper reports ("ICC = 0.47").
    Spearman rho    between the two composites; 95 % interval by Fisher's z (standard error
                    1 / sqrt(n - 3)).
    weighted kappa  Cohen's kappa with quadratic weights on the composites rounded to whole points
                    (half to even, as numpy and pandas round) over the scale's points; 95 %
                    percentile interval from 1,000 bootstrap resamples of the answers (seeded here).
    clinicians      ICC3k-z between the two clinicians who rated the most answers in common (the
                    first such pair in name order), on those answers.

Where MedHELM's code gives no number this module gives none either (None): too few answers, a rater
whose values never vary. Three differences, each where MedHELM's code would mislead or fail:

- composites are taken to 12 decimals, so that equal composites tie. In MedHELM's code the last bit
  of a floating-point sum differs between equal composites summed from different parts, which
  breaks Spearman's ties (and could tip a kappa's x.5 rounding) at random;
- the clinician pair is compared on the answers both rated, z-scored over those (MedHELM's pandas
  pivot fails unless the two rated exactly the same answers);
- bootstrap resamples whose kappa is undefined (every rounded composite the same) are left out
  rather than turning the interval into NaN; the resamples are seeded.

The F quantile is computed here (the regularised incomplete beta function by its continued fraction,
inverted by bisection) so that the appliance needs no scipy: installed next to nltk, scipy makes every
ROUGE-scored run start 2 s slower. Checked against scipy in the tests.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

BOOTSTRAP_SAMPLES = 1000
_Z95 = 1.96  # MedHELM's Fisher-z interval uses 1.96, not the exact normal quantile


@dataclass(frozen=True)
class Estimate:
    """A statistic with its 95 % interval; None where it is undefined."""

    value: float | None
    low: float | None
    high: float | None


NONE = Estimate(None, None, None)


def _number(value: float) -> float | None:
    return None if not math.isfinite(value) else float(value)


# --- the F distribution's quantile -------------------------------------------------------------------

def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        even, odd = m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        for numerator in (even, odd):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def regularised_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def f_quantile(p: float, d1: float, d2: float) -> float:
    """The p-quantile of the F distribution with (d1, d2) degrees of freedom."""
    low, high = 0.0, 1.0
    for _ in range(200):  # bisection on the beta variable u = d1 F / (d1 F + d2), monotone in F
        middle = (low + high) / 2
        if regularised_beta(d1 / 2, d2 / 2, middle) < p:
            low = middle
        else:
            high = middle
        if high - low < 1e-17:
            break
    u = (low + high) / 2
    return d2 * u / (d1 * (1.0 - u))


# --- the four statistics -----------------------------------------------------------------------------

def zscores(values: Sequence[float]) -> list[float]:
    """Values as z-scores over themselves (sample standard deviation); nan when they never vary."""
    n = len(values)
    if n < 2:
        return [math.nan] * n
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return [(v - mean) / sd if sd > 0 else math.nan for v in values]


def icc3k(matrix: Sequence[Sequence[float]]) -> Estimate:
    """ICC(3,k) of a complete targets x raters matrix, with pingouin's F-based 95 % interval."""
    import numpy as np

    y = np.asarray(matrix, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2 or not np.isfinite(y).all():
        return NONE
    n, k = y.shape
    grand, rows, cols = y.mean(), y.mean(axis=1, keepdims=True), y.mean(axis=0, keepdims=True)
    msr = k * float(((rows - grand) ** 2).sum()) / (n - 1)
    mse = float(((y - rows - cols + grand) ** 2).sum()) / ((n - 1) * (k - 1))
    if msr <= 0 or mse <= 0:
        return NONE
    df1, df2 = n - 1, (n - 1) * (k - 1)
    f = msr / mse
    f_low, f_high = f / f_quantile(0.975, df1, df2), f * f_quantile(0.975, df2, df1)
    return Estimate((msr - mse) / msr, 1 - 1 / f_low, 1 - 1 / f_high)


def icc3k_z(a: Sequence[float], b: Sequence[float]) -> Estimate:
    """ICC3k of two raters over the same answers, each rater's values z-scored first."""
    if len(a) != len(b) or len(a) < 2:
        return NONE
    return icc3k(list(zip(zscores(a), zscores(b), strict=True)))


def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start:end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> Estimate:
    """Spearman's rho with the Fisher-z 95 % interval MedHELM gives it."""
    n = len(x)
    if n != len(y) or n < 2:
        return NONE
    rx, ry = _ranks(x), _ranks(y)
    mx, my = math.fsum(rx) / n, math.fsum(ry) / n
    sxy = math.fsum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx, syy = math.fsum((a - mx) ** 2 for a in rx), math.fsum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return NONE
    rho = max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))
    if n <= 3:
        return Estimate(rho, None, None)
    z, half = math.atanh(rho) if abs(rho) < 1 else math.copysign(math.inf, rho), _Z95 / math.sqrt(n - 3)
    return Estimate(rho, math.tanh(z - half), math.tanh(z + half))


def composite(value: float) -> float:
    """A composite to 12 decimals: equal composites then tie whatever order their parts were summed in (the last
    bit of a float sum would break Spearman's ties and kappa's halves at random)."""
    return round(value, 12)


def round_half_even(value: float) -> int:
    """A composite as a whole point, as numpy and pandas round (3.5 -> 4, 2.5 -> 2)."""
    return round(value)


def _kappas(codes_a: Any, codes_b: Any, points: int) -> Any:
    """Quadratic-weighted kappa of each row of two (samples x n) arrays of point indices (nan: undefined)."""
    import numpy as np

    samples = codes_a.shape[0]
    cells = (np.arange(samples)[:, None] * points * points + codes_a * points + codes_b).ravel()
    observed = np.bincount(cells, minlength=samples * points * points).reshape(samples, points, points).astype(float)
    a_totals, b_totals = observed.sum(axis=2), observed.sum(axis=1)
    expected = a_totals[:, :, None] * b_totals[:, None, :] / observed.sum(axis=(1, 2))[:, None, None]
    weights = (np.arange(points)[:, None] - np.arange(points)[None, :]) ** 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1 - (weights * observed).sum(axis=(1, 2)) / (weights * expected).sum(axis=(1, 2))


def weighted_kappa(a: Sequence[float], b: Sequence[float], scale: tuple[int, int],
                   samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> Estimate:
    """Quadratic-weighted kappa of the composites rounded to the scale's points, with a bootstrap interval."""
    import numpy as np

    n = len(a)
    if n != len(b) or n < 2:
        return NONE
    low, high = scale
    codes_a = np.array([min(high, max(low, round_half_even(v))) - low for v in a])
    codes_b = np.array([min(high, max(low, round_half_even(v))) - low for v in b])
    points = high - low + 1
    value = float(_kappas(codes_a[None, :], codes_b[None, :], points)[0])
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    kappas = _kappas(codes_a[draws], codes_b[draws], points)
    kappas = kappas[np.isfinite(kappas)]
    if kappas.size <= 50:  # MedHELM's rule: fewer usable resamples give no interval
        return Estimate(_number(value), None, None)
    return Estimate(_number(value), float(np.percentile(kappas, 2.5)), float(np.percentile(kappas, 97.5)))


def most_overlapping_pair(rated: Mapping[str, set[Any]]) -> tuple[str, str] | None:
    """The two raters with the most answers in common (the first pair in name order among ties)."""
    names = sorted(rated)
    best, pair = 0, None
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            common = len(rated[first] & rated[second])
            if common > best:
                best, pair = common, (first, second)
    return pair


@dataclass(frozen=True)
class Answer:
    """One rated answer: each clinician's composite, and the jury's (None when the jury has none)."""

    key: Any
    clinicians: Mapping[str, float]
    jury: float | None


@dataclass(frozen=True)
class MedhelmRow:
    """MedHELM's four statistics on one set of answers (a benchmark, or several pooled)."""

    name: str
    answers: int  # answers with both a clinician composite and the jury's
    clinicians: int
    icc3k_z: Estimate
    spearman: Estimate
    weighted_kappa: Estimate
    clinicians_icc3k_z: Estimate
    pair: tuple[str, str] | None
    pair_answers: int


def medhelm_row(name: str, answers: Sequence[Answer], scale: tuple[int, int], seed: int = 0) -> MedhelmRow:
    """The four statistics on these answers, as MedHELM's analysis code computes them (see the module docstring)."""
    both = [a for a in answers if a.jury is not None and a.clinicians]
    human = [composite(math.fsum(a.clinicians.values()) / len(a.clinicians)) for a in both]
    jury = [composite(a.jury) for a in both if a.jury is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        icc, rho = icc3k_z(human, jury), spearman(human, jury)
        kappa = weighted_kappa(human, jury, scale, seed=seed)
    rated: dict[str, set[Any]] = {}
    for answer in answers:
        for clinician in answer.clinicians:
            rated.setdefault(clinician, set()).add(answer.key)
    pair = most_overlapping_pair(rated)
    pair_icc, common = NONE, 0
    if pair is not None:
        shared = [a for a in answers if pair[0] in a.clinicians and pair[1] in a.clinicians]
        common = len(shared)
        pair_icc = icc3k_z([composite(a.clinicians[pair[0]]) for a in shared],
                           [composite(a.clinicians[pair[1]]) for a in shared])
        pair = pair if common else None
    return MedhelmRow(name, len(both), len(rated), icc, rho, kappa, pair_icc, pair, common)
