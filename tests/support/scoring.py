"""Score answers with named metrics from the registry, as a benchmark would (for metric tests)."""

from __future__ import annotations

from medhelm_local.metrics.registry import ScoringContext, get
from medhelm_local.metrics.scoring import score_answer
from medhelm_local.records import Instance, Score


def scores_of(names: tuple[str, ...] | list[str], instance: Instance, text: str,
              ctx: ScoringContext | None = None) -> list[Score]:
    """Every named metric's Score for one answer."""
    return score_answer(instance, text, [get(name) for name in names], ctx or ScoringContext())
