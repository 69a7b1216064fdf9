"""MedCalc-Bench within the published limits, reading the answer as written (a documented improvement).

The value is the first number, date or gestational age in the answer, read as written ("1,512",
"2.5e1", "1.5%" as 1.5, a date anywhere in a sentence, "14 weeks 1 day"), and must lie within the
row's published [Lower Limit, Upper Limit] for every output type: decimals within the +/- 5 % the
data gives, integers equal to the ground truth (not rounded), dates as calendar dates, gestational
ages as W*7+D days. An answer that cannot be read scores 0; it is not a failure of the request.

It differs from MedCalc-Bench's official rule (`medcalc_bench_official`, the benchmark's main
metric) where the answer holds several numbers (first here, last there) or an integer answer is
not whole ("4.4" for 4: 0 here, 1 there); the cases are listed in tests/metrics/parity/README.md.
"""

from __future__ import annotations

from datetime import date

from medhelm_local.metrics.extract import extract_date, extract_number, extract_weeks_days
from medhelm_local.metrics.numbers import read_date, read_number, read_weeks_days
from medhelm_local.metrics.reading import Unreadable
from medhelm_local.metrics.registry import NUMERIC_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

MEDCALC_ACCURACY = "medcalc_bench_accuracy"


def _bounds(instance: Instance) -> tuple[str, str, str]:
    extra = instance.extra
    return extra["output_type"], extra["lower_limit"], extra["upper_limit"]


@metric(MEDCALC_ACCURACY, title="MedCalc-Bench accuracy (within the published limits)", task_types=NUMERIC_TASKS,
        needs=("reference",), readers=("medcalc_bench",),
        follows="medhelm-local: the first number/date/(weeks, days) read as written, within the published "
                "[Lower Limit, Upper Limit] for every output type, integers not rounded (documented improvement)")
def medcalc_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the value read from the answer lies within the item's limits; `extracted` is what was read."""
    output_type, lower, upper = _bounds(instance)
    value: float | int | date | Unreadable
    lo: float | int | date | None
    hi: float | int | date | None
    if extract_weeks_days(lower) is not None:  # gestational age, listed as "integer" in the data
        value, lo, hi = read_weeks_days(text), extract_weeks_days(lower), extract_weeks_days(upper)
        shown = f"{value // 7} weeks, {value % 7} days" if isinstance(value, int) else None
    elif output_type == "date":
        value, lo, hi = read_date(text), extract_date(lower), extract_date(upper)
        shown = value.strftime("%m/%d/%Y") if isinstance(value, date) else None
    else:
        value, lo, hi = read_number(text), extract_number(lower), extract_number(upper)
        shown = f"{value:g}" if isinstance(value, float) else None
    if isinstance(value, Unreadable):  # scored 0 and counted, with why, beside the mean
        return MetricValue(0.0, None, {"unreadable": value.reason})
    correct = lo is not None and hi is not None and lo <= value <= hi  # type: ignore[operator]
    return MetricValue(1.0 if correct else 0.0, shown, {"read": value if isinstance(value, float | int)
                                                        else shown})
