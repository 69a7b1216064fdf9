"""Agreement statistics: how far judges agree with each other, and raters of any kind with clinicians.

- Krippendorff's alpha, ordinal (the `krippendorff` package): between the judges of a jury, per
  criterion, over the instances of a run. Ordinal because a rubric's points are ordered but not
  evenly spaced in meaning. Missing ratings (a failed judge) are allowed, as alpha allows them.
- The intraclass correlation ICC(3,1) of Shrout and Fleiss (two-way mixed effects, consistency,
  single rater; McGraw and Wong's ICC(C,1)), and ICC(2,1) (two-way random effects, absolute
  agreement, single rater; ICC(A,1)), from the two-way ANOVA mean squares. Checked against
  pingouin's ICC(C,1) and ICC(A,1) in the tests.
- Pairwise ICC with a bootstrap interval over instances: each figure of `judge validate` is the mean
  ICC over pairs of single raters (jury and each clinician, clinician and clinician, ROUGE-L and each
  clinician), so every figure compares one rater with one rater, as MedHELM's table does.

`jury_alpha` (a run-level figure) is the mean over the rubric's criteria of the judges' alpha.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from medhelm_local.metrics.registry import TEXT_TASKS, Metric, add

JURY_ALPHA = "jury_alpha"
IccForm = Literal["ICC(2,1)", "ICC(3,1)"]
BOOTSTRAP_SAMPLES = 1000


def ordinal_alpha(ratings: Sequence[Sequence[float | None]]) -> float | None:
    """Krippendorff's alpha (ordinal) of raters x units (None: missing); None when it is undefined
    (fewer than two pairable units, or a single value in the data)."""
    import numpy as np

    data = np.array([[np.nan if v is None else float(v) for v in row] for row in ratings], dtype=float)
    if data.ndim != 2 or data.shape[0] < 2:
        return None
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    values = np.unique(data[:, pairable][~np.isnan(data[:, pairable])])
    if pairable.sum() < 2 or values.size < 2:
        return None
    import krippendorff

    return float(krippendorff.alpha(reliability_data=data[:, pairable], level_of_measurement="ordinal"))


def _mean_squares(y: Any) -> tuple[Any, Any, Any, int, int]:
    """MSR (targets), MSC (raters), MSE of complete n x k blocks (leading axes are separate samples)."""
    n, k = y.shape[-2], y.shape[-1]
    grand = y.mean(axis=(-2, -1), keepdims=True)
    rows = y.mean(axis=-1, keepdims=True)
    cols = y.mean(axis=-2, keepdims=True)
    msr = k * ((rows - grand) ** 2).sum(axis=(-2, -1)) / (n - 1)
    msc = n * ((cols - grand) ** 2).sum(axis=(-2, -1)) / (k - 1)
    mse = ((y - rows - cols + grand) ** 2).sum(axis=(-2, -1)) / ((n - 1) * (k - 1))
    return msr, msc, mse, n, k


def icc(matrix: Sequence[Sequence[float]] | Any, form: IccForm = "ICC(3,1)") -> float:
    """ICC of a complete targets x raters matrix, in the Shrout-Fleiss form named; nan when undefined."""
    import numpy as np

    y = np.asarray(matrix, dtype=float)
    if y.ndim != 2 or y.shape[0] < 2 or y.shape[1] < 2:
        return math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(_icc_of(y, form))


def _icc_of(y: Any, form: IccForm) -> Any:
    msr, msc, mse, n, k = _mean_squares(y)
    if form == "ICC(3,1)":
        return (msr - mse) / (msr + (k - 1) * mse)
    return (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)


def _pair_icc(a: Any, b: Any, form: IccForm) -> Any:
    """ICC of two raters over resampled rows (arrays samples x n with nan where a rater gave nothing)."""
    import numpy as np

    present = ~(np.isnan(a) | np.isnan(b))
    m = present.sum(axis=-1)
    a0, b0 = np.where(present, a, 0.0), np.where(present, b, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ca, cb = a0.sum(axis=-1) / m, b0.sum(axis=-1) / m
        grand = (ca + cb) / 2
        rows = (a0 + b0) / 2
        msr = 2 * (np.where(present, (rows - grand[..., None]) ** 2, 0.0)).sum(axis=-1) / (m - 1)
        msc = m * ((ca - grand) ** 2 + (cb - grand) ** 2)
        resid = (np.where(present, a0 - rows - ca[..., None] + grand[..., None], 0.0) ** 2
                 + np.where(present, b0 - rows - cb[..., None] + grand[..., None], 0.0) ** 2)
        mse = resid.sum(axis=-1) / (m - 1)
        if form == "ICC(3,1)":
            value = (msr - mse) / (msr + mse)
        else:
            value = (msr - mse) / (msr + mse + 2 * (msc - mse) / m)
    return np.where(m >= 2, value, np.nan)


def pairwise_icc(columns: Mapping[str, Sequence[float | None]], pairs: Sequence[tuple[str, str]],
                 form: IccForm = "ICC(3,1)", samples: int = BOOTSTRAP_SAMPLES,
                 seed: int = 0) -> tuple[float, float, float, int]:
    """The mean ICC over rater pairs (each on the units both rated), a percentile 95 % bootstrap interval
    (instances resampled with replacement, the same draw for every pair), and the units used."""
    import numpy as np

    if not pairs:
        return math.nan, math.nan, math.nan, 0
    data = {name: np.array([np.nan if v is None else float(v) for v in values]) for name, values in columns.items()}
    n = len(next(iter(data.values())))
    used = np.zeros(n, dtype=bool)
    for a, b in pairs:
        used |= ~(np.isnan(data[a]) | np.isnan(data[b]))
    draws = np.random.default_rng(seed).integers(0, n, size=(samples, n))
    with warnings.catch_warnings():  # a pair with too few common instances is nan, and is left out of the mean
        warnings.simplefilter("ignore", RuntimeWarning)
        point = float(np.nanmean([_pair_icc(data[a], data[b], form) for a, b in pairs]))
        stats = np.nanmean(np.stack([_pair_icc(data[a][draws], data[b][draws], form) for a, b in pairs]), axis=0)
    stats = np.sort(stats[~np.isnan(stats)])
    if stats.size == 0:
        return point, math.nan, math.nan, int(used.sum())
    low = float(stats[int(0.025 * (stats.size - 1))])
    high = float(stats[math.ceil(0.975 * (stats.size - 1))])
    return point, low, high, int(used.sum())


add(Metric(JURY_ALPHA, "Judge agreement (Krippendorff's alpha)", "higher", -1.0, 1.0, TEXT_TASKS,
           frozenset({"judge"}), "agreement", "Krippendorff's alpha, ordinal (the krippendorff package), per criterion "
           "between the judges of a jury; the mean over criteria",
           "How far the judges of a jury agree (1 perfect, 0 as by chance)", None, group="agreement"))
