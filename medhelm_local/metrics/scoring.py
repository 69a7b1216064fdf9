"""Score one answer with a benchmark's metrics; a scorer that fails is that instance's recorded failure."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from medhelm_local.metrics.registry import Metric, ScoringContext, ScoringFailed, get
from medhelm_local.records import Instance, Score

log = logging.getLogger("medhelm_local.metrics")


def score_answer(instance: Instance, answer: str, metrics: Sequence[Metric], ctx: ScoringContext,
                 completion: str | None = None) -> list[Score]:
    """One Score per metric that applies; a metric whose scorer raises gets a failed Score, never a value.

    `completion`: the reply as a reproduced system's output processors leave it, where that differs from the
    answer (metrics that see "completion" read it).
    """
    scores = []
    for spec in metrics:
        if spec.scorer is None:  # filled in by another stage (the jury)
            continue
        text = completion if completion is not None and spec.sees == "completion" else answer
        try:
            found = spec.scorer(instance, text, ctx)
        except ScoringFailed as exc:
            scores.append(Score(instance.id, spec.name, None, error=exc.reason))
            continue
        except Exception as exc:
            # The type only: an exception's text may quote the answer or the data.
            log.warning("metric %s failed on instance %s: %s", spec.name, instance.id, type(exc).__name__)
            scores.append(Score(instance.id, spec.name, None, error=f"scoring_error: {type(exc).__name__}"))
            continue
        if found is not None:
            scores.append(Score(instance.id, spec.name, found.value, found.extracted, found.detail))
    return scores


def score_with(name: str, instance: Instance, answer: str, ctx: ScoringContext | None = None,
               completion: str | None = None) -> Score | None:
    """One metric's Score for one answer (for tests and ad-hoc checks); None if it does not apply."""
    found = score_answer(instance, answer, [get(name)], ctx or ScoringContext(), completion)
    return found[0] if found else None
