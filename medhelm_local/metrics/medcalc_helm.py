"""HELM's MedCalc-Bench rule (MedCalcBenchMetric), kept to compare with the published MedHELM leaderboard.

By the row's Category, on the stripped answer: "risk", "severity" and "diagnosis" rows need the
answer to equal the ground truth as written ("4.0" for 4 scores 0); "physical" rows need the whole
answer to parse as a float within [Lower Limit, Upper Limit]; "date" rows need a whole MM/DD/YYYY
date within the limits, or, for gestational ages, "('W weeks', 'D days')" at the start. Every other
category scores 0, whatever the answer: HELM expects "dosage conversion" where the data says
"dosage", and has no branch for "lab", so 367 of the 1047 rows cannot be answered right.
"""

from __future__ import annotations

import re
from datetime import datetime

from medhelm_local.metrics.registry import NUMERIC_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

HELM_MEDCALC_ACCURACY = "helm_medcalc_bench_accuracy"
EXACT_CATEGORIES = frozenset({"risk", "severity", "diagnosis"})
RANGE_CATEGORIES = frozenset({"dosage conversion", "physical"})
_DURATION = re.compile(r"\('(\d+) weeks', '(\d+) days'\)")


def _days(text: str) -> int:
    found = _DURATION.match(text)
    if not found:
        raise ValueError("not a ('W weeks', 'D days') duration")
    return int(found.group(1)) * 7 + int(found.group(2))


def _date(text: str) -> datetime:
    return datetime.strptime(text, "%m/%d/%Y")


def helm_correct(answer: str, reference: str, category: str, lower: str, upper: str) -> bool:
    """HELM's verdict on one stripped answer."""
    if category in EXACT_CATEGORIES:
        return answer == reference
    try:
        if category == "date" and _DURATION.match(reference):
            return _days(lower) <= _days(answer) <= _days(upper)
        if category == "date":
            return _date(lower) <= _date(answer) <= _date(upper)
        if category in RANGE_CATEGORIES:
            return float(lower) <= float(answer) <= float(upper)
    except ValueError:
        return False
    return False


@metric(HELM_MEDCALC_ACCURACY, title="MedCalc-Bench accuracy (HELM's rule)", task_types=NUMERIC_TASKS,
        needs=("reference",), readers=("medcalc_bench",), sees="completion",
        follows="HELM MedCalcBenchMetric: exact text for risk/severity/diagnosis, whole-answer float or date "
                "within the limits for physical/date, 0 for lab and dosage rows")
def helm_medcalc_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when HELM's MedCalc-Bench metric counts the stripped answer correct for the row's category."""
    extra = instance.extra
    answer = text.strip()
    correct = helm_correct(answer, instance.references[0].text, extra["category"], extra["lower_limit"],
                           extra["upper_limit"])
    return MetricValue(1.0 if correct else 0.0, answer[:64])
