"""Calibration of multiple-choice answers: does the model's confidence match how often it is right?

The confidence of an answer is the probability of the option it chose, read from the logprobs of the
first answer token that is an option letter, renormalised over the option letters among that
token's top logprobs (the server returns the top 5); a run stores it with each completion as it
arrives (`completions.confidence`), so a run's figures read two numbers an instance. Correctness
is the run's main metric for that instance (1 or 0). ECE: 10 equal-width bins of confidence, the
mean over bins of |accuracy - confidence| weighted by each bin's share of instances. Brier score:
the mean of (confidence - correct)^2. Both are lower-is-better. A run whose endpoint gave no
logprobs has no calibration figures: "not available", never 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.registry import CHOICE_TASKS, Metric, add

if TYPE_CHECKING:  # numpy is imported where figures are computed, never when a run starts
    from numpy.typing import ArrayLike

ECE, BRIER = "ece", "brier"
BINS = 10
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _letter(token: str) -> str | None:
    text = token.strip().strip("().:*").upper()
    return text if len(text) == 1 and text in _LETTERS else None


def _positions(logprobs: Any) -> Iterator[tuple[str, float, dict[str, float]]]:
    """(token, logprob, {top token: logprob}) per generated token, from either API style's logprobs; lazily, as
    only the tokens up to the first option letter are read."""
    if isinstance(logprobs, list):  # chat: [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]
        return ((str(t.get("token", "")), float(t.get("logprob", -math.inf)),
                 {str(x.get("token", "")): float(x.get("logprob", -math.inf)) for x in t.get("top_logprobs") or []})
                for t in logprobs if isinstance(t, dict))
    if isinstance(logprobs, dict):  # completions: {"tokens", "token_logprobs", "top_logprobs": [{token: lp}]}
        tokens, lps = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
        tops = logprobs.get("top_logprobs") or [None] * len(tokens)
        return ((str(t), float(lp if lp is not None else -math.inf), {str(k): float(v) for k, v in (top or {}).items()})
                for t, lp, top in zip(tokens, lps, tops, strict=False))
    return iter(())


def chosen_probability(logprobs_json: str | None, n_options: int) -> float | None:
    """The probability of the option the answer chose; None without logprobs or a letter among the tokens."""
    if not logprobs_json:
        return None
    letters = set(_LETTERS[:n_options])
    for token, logprob, top in _positions(json.loads(logprobs_json)):
        chosen = _letter(token)
        if chosen is None or chosen not in letters:
            continue
        by_letter: dict[str, float] = {}
        for candidate, value in [*top.items(), (token, logprob)]:
            letter = _letter(candidate)
            if letter in letters:
                by_letter[letter] = max(by_letter.get(letter, -math.inf), value)
        total = sum(math.exp(v) for v in by_letter.values())
        return math.exp(by_letter[chosen]) / total if total > 0 else None
    return None


def expected_calibration_error(confidence: Sequence[float] | ArrayLike, correct: Sequence[float] | ArrayLike,
                               bins: int = BINS) -> float:
    """ECE over `bins` equal-width bins of confidence (1.0 falls in the last bin)."""
    import numpy as np

    p, c = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    cell = np.minimum((p * bins).astype(int), bins - 1)
    # sum over bins of |hits - confidence| / N  ==  sum of (n_b / N) |accuracy_b - confidence_b|
    gap = np.bincount(cell, weights=c, minlength=bins) - np.bincount(cell, weights=p, minlength=bins)
    return float(np.abs(gap).sum() / p.size)


def ece_bootstrap(confidence: Sequence[float] | ArrayLike, correct: Sequence[float] | ArrayLike,
                  samples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Percentile 95 % interval of the ECE, instances resampled with replacement (vectorised per block)."""
    import numpy as np

    from medhelm_local.metrics.aggregate import _interval, _resamples

    p, c = np.asarray(confidence, dtype=float), np.asarray(correct, dtype=float)
    bins = np.minimum((p * BINS).astype(np.intp), BINS - 1)
    # A bin's |hits - confidence| is |the sum of (correct - confidence)| over its instances: one weighted
    # count per (resample, bin) gives every resample's ECE at once.
    gap = c - p
    stats: list[float] = []
    for block in _resamples(p.size, samples, seed):
        cell = bins[block]
        cell += (np.arange(block.shape[0]) * BINS)[:, None]
        sums = np.bincount(cell.ravel(), weights=gap[block].ravel(), minlength=block.shape[0] * BINS)
        stats.extend((np.abs(sums.reshape(-1, BINS)).sum(axis=1) / p.size).tolist())
    return _interval(stats, samples)


def brier_score(confidence: Sequence[float], correct: Sequence[float]) -> list[float]:
    """Each instance's squared error (confidence - correct)^2: the Brier score is their mean."""
    return [(p - c) ** 2 for p, c in zip(confidence, correct, strict=True)]


_FOLLOWS = "HELM's calibration (ECE, 10 equal-width bins); this project reads the chosen option's probability " \
           "renormalised over the option letters"
add(Metric(ECE, "Expected calibration error", "lower", 0.0, 1.0, CHOICE_TASKS, frozenset({"logprobs"}), "calibration",
           _FOLLOWS, "How far confidence is from accuracy (10 equal-width bins); not available without logprobs",
           None, group="calibration"))
add(Metric(BRIER, "Brier score", "lower", 0.0, 1.0, CHOICE_TASKS, frozenset({"logprobs"}), "calibration",
           "Brier (1950): mean squared error of the chosen option's probability",
           "Mean squared error of the chosen option's probability; not available without logprobs", None,
           group="calibration"))
