"""Numeric answers within a tolerance of the reference: calculation cards of a hospital's own."""

from __future__ import annotations

from medhelm_local.metrics.extract import extract_number
from medhelm_local.metrics.numbers import read_number
from medhelm_local.metrics.reading import Unreadable
from medhelm_local.metrics.registry import NUMERIC_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

NUMERIC_TOLERANCE = "numeric_tolerance"


@metric(NUMERIC_TOLERANCE, title="Within tolerance", task_types=NUMERIC_TASKS, needs=("reference", "tolerance"),
        follows="medhelm-local: |answer - reference| <= max(absolute, relative x |reference|)")
def numeric_tolerance(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the value the answer gives lies within the card's tolerance of the reference."""
    value = read_number(text)
    if isinstance(value, Unreadable):  # scored 0 and counted, with why, beside the mean
        return MetricValue(0.0, None, {"unreadable": value.reason})
    want = extract_number(instance.references[0].text) if instance.references else None
    ok = False
    if want is not None:
        allowed = max(ctx.tolerance_absolute, abs(want) * ctx.tolerance_relative)
        ok = abs(value - want) <= allowed
    return MetricValue(1.0 if ok else 0.0, f"{value:g}", {"read": value})
