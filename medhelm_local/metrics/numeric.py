"""Numeric answers within a tolerance of the reference: calculation cards of a hospital's own."""

from __future__ import annotations

from medhelm_local.metrics.extract import extract_number
from medhelm_local.metrics.registry import NUMERIC_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

NUMERIC_TOLERANCE = "numeric_tolerance"


@metric(NUMERIC_TOLERANCE, title="Within tolerance", task_types=NUMERIC_TASKS, needs=("reference", "tolerance"),
        follows="medhelm-local: |answer - reference| <= max(absolute, relative x |reference|)")
def numeric_tolerance(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the first number in the answer lies within the card's tolerance of the reference."""
    value = extract_number(text)
    want = extract_number(instance.references[0].text) if instance.references else None
    ok = False
    if value is not None and want is not None:
        allowed = max(ctx.tolerance_absolute, abs(want) * ctx.tolerance_relative)
        ok = abs(value - want) <= allowed
    return MetricValue(1.0 if ok else 0.0, None if value is None else f"{value:g}")
