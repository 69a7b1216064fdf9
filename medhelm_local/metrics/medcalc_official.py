"""MedCalc-Bench's official rule: the benchmark's answer reader, then its correctness check, by calculator.

What MedCalc-Bench's evaluation (evaluation/run.py `extract_answer`, evaluation/evaluate.py
`check_correctness`) does, written down from reading it and pinned by tests/metrics/parity:

- The answer: the last `"answer": ...}` field when the text holds one (MedCalc-Bench's own prompts
  ask for that JSON), else the whole answer, stripped (the prompt here asks for the bare value).
- Dates (calculators 13, 68): a M/D/YYYY date at the very start, equal to the ground truth.
- Gestational age (69): the first "(W, D)" / "W weeks D days" pair, equal to the ground truth.
- Integers (scores): "N out of" gives N; a comma list "3, 4, 5" gives its length; else the last
  number; then rounded half to even and compared with the ground truth ("4.4" for 4 is right).
- Decimals: a `str(...)` expression is evaluated; else the number before "mL/min/1.73"; else the
  last percentage divided by 100; else the last number; within [Lower Limit, Upper Limit].
- Anything that would raise in the reference (an unreadable answer, "07") scores 0.
"""

from __future__ import annotations

import builtins
import re
from datetime import datetime
from typing import Any

from medhelm_local.metrics.pyeval import MATH, EvalError, Unsupported, evaluate
from medhelm_local.metrics.registry import NUMERIC_TASKS, MetricValue, ScoringContext, ScoringFailed, metric
from medhelm_local.records import Instance

MEDCALC_OFFICIAL = "medcalc_bench_official"

DATE_CALCULATORS = frozenset({13, 68})
GESTATIONAL_CALCULATORS = frozenset({69})
INTEGER_CALCULATORS = frozenset({4, 15, 16, 17, 18, 20, 21, 25, 27, 28, 29, 32, 33, 36, 43, 45, 48, 51})
DECIMAL_CALCULATORS = frozenset({2, 3, 5, 6, 7, 8, 9, 10, 11, 19, 22, 23, 24, 26, 30, 31, 38, 39, 40, 44, 46, 49,
                                 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67})
NOT_FOUND = "Not Found"
NOT_AVAILABLE = "N/A"
_PLACEHOLDERS = frozenset({"str(short_and_direct_answer_of_the_question)",
                           "str(value which is the answer to the question)", "X.XX"})

_JSON_ANSWER = re.compile(r'[Aa]nswer":\s*(.*?)\}')
_LEADING_DATE = re.compile(r"^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/(\d{4})")
_WEEKS_DAYS = re.compile(r"\(?[\"']?(\d+)\s*(weeks?)?[\"']?,?\s*[\"']?(\d+)\s*(days?)?[\"']?\s*\)?")
_OUT_OF = re.compile(r"(\d+) out of")
_LIST = re.compile(r"-?\d+(, ?-?\d+)+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_PERCENT = re.compile(r"(-?\d+(?:\.\d+)?)%")
_EGFR = re.compile(r"(-?\d+(?:\.\d+)?)\s*mL/min/1.73")  # the unescaped "." is the reference's
_EXPRESSION = re.compile(r"str\((.*)\)")
# Applied in this order, as the reference does: "g" last-but-one, so "log" becomes "lo" (an unknown name).
_EXPRESSION_EDITS = (("^", "**"), ("is odd", "% 2 == 1"), ("is even", "% 2 == 0"), ("sqrt", "math.sqrt"),
                     (".math", ""), ("weight", ""), ("height", ""), ("mg/dl", ""), ("g/dl", ""), ("mmol/L", ""),
                     ("kg", ""), ("g", ""), ("mEq/L", ""))
# The names the reference's expression eval sees (builtins off); numpy is not evaluated here.
_EXPRESSION_NAMES: dict[str, object] = {"min": min, "pow": pow, "round": round, "abs": abs, "int": int,
                                        "float": float, "math": MATH, "np": Unsupported, "numpy": Unsupported}
# The checker's eval sees Python's builtins and evaluate.py's imports: the common numeric builtins are
# evaluated, every other name that would exist there is reported as not evaluated.
_CHECK_NAMES: dict[str, object] = {
    **{name: Unsupported for name in (*dir(builtins), "re", "os", "argparse", "np", "pd", "datetime")},
    "abs": abs, "round": round, "min": min, "max": max, "pow": pow, "int": int, "float": float, "bool": bool,
}


class Wrong(Exception):  # noqa: N818  (the reference raises here, and its runner records "Incorrect")
    """The reference would raise while reading or checking this answer: it scores 0."""


def answer_field(text: str) -> str:
    """What the reference reads the answer from: the last JSON "answer" field, or the whole answer."""
    fields = _JSON_ANSWER.findall(text)
    if not fields:
        return text.strip()
    found: str = fields[-1].strip().strip('"')
    return NOT_FOUND if found in _PLACEHOLDERS else found


def _literal(text: str, names: dict[str, object] | None = None) -> Any:
    try:
        return evaluate(text, names)
    except EvalError as exc:
        raise Wrong(str(exc)) from None


def _read_date(field: str) -> str:
    found = _LEADING_DATE.search(field)
    return f"{int(found.group(1)):02}/{int(found.group(2)):02}/{found.group(3)}" if found else NOT_AVAILABLE


def _read_weeks_days(field: str) -> str:
    if not _WEEKS_DAYS.search(field):  # the reference reads the unedited field first and fails on None
        raise Wrong("no (weeks, days) in the answer")
    edited = field.replace("[", "(").replace("]", ")").replace("'", "").replace('"', "")
    found = _WEEKS_DAYS.search(edited)
    return f"({found.group(1)}, {found.group(3)})" if found else NOT_AVAILABLE


def _read_integer(field: str) -> str:
    if found := _OUT_OF.search(field):
        return found.group(1)
    if found := _LIST.search(field):
        return str(len(found.group(0).split(",")))
    numbers = _NUMBER.findall(field)
    return numbers[-1] if numbers else NOT_AVAILABLE


def _read_decimal(field: str) -> str:
    if found := _EXPRESSION.search(field):
        return _evaluate_expression(found.group(1))
    value: Any
    if found := _EGFR.search(field):
        value = _literal(found.group(1))
    elif percents := _PERCENT.findall(field):
        value = _literal(percents[-1]) / 100
    elif numbers := _NUMBER.findall(field):
        value = _literal(numbers[-1])
    else:
        return NOT_AVAILABLE
    return str(value)


def _evaluate_expression(expression: str) -> str:
    for old, new in _EXPRESSION_EDITS:
        expression = expression.replace(old, new)
    expression = expression.split("#")[0]
    opened, closed = expression.count("("), expression.count(")")
    expression = expression + ")" * (opened - closed) if opened > closed else "(" * (closed - opened) + expression
    try:
        return str(evaluate(expression, _EXPRESSION_NAMES))
    except EvalError:
        return NOT_AVAILABLE


def read_answer(field: str, calculator: int) -> str:
    """The value the reference reads for this calculator, as the string it passes to its checker."""
    if calculator in DATE_CALCULATORS:
        return _read_date(field)
    if calculator in GESTATIONAL_CALCULATORS:
        return _read_weeks_days(field)
    if calculator in INTEGER_CALCULATORS:
        return _read_integer(field)
    if calculator in DECIMAL_CALCULATORS:
        return _read_decimal(field)
    return field


def _pair(text: str) -> tuple[Any, Any] | None:
    found = _WEEKS_DAYS.search(text)
    if not found:
        return None
    return _literal(found.group(1)), _literal(found.group(3))


def is_correct(answer: str, truth: str, calculator: int, lower: str, upper: str) -> bool:
    """The reference's check of the value read against the row; raises Wrong where the reference raises."""
    try:
        if calculator in DATE_CALCULATORS:
            return datetime.strptime(answer, "%m/%d/%Y").date() == datetime.strptime(truth, "%m/%d/%Y").date()
        if calculator in GESTATIONAL_CALCULATORS:
            wanted = _pair(truth)
            if wanted is None:
                raise Wrong("ground truth has no (weeks, days)")
            return _pair(answer) == wanted
        if calculator in INTEGER_CALCULATORS:
            return bool(round(_literal(answer, _CHECK_NAMES)) == _literal(truth, _CHECK_NAMES))
        if calculator in DECIMAL_CALCULATORS:
            value = _literal(answer, _CHECK_NAMES)
            return bool(value >= _literal(lower, _CHECK_NAMES) and value <= _literal(upper, _CHECK_NAMES))
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise Wrong(type(exc).__name__) from None
    raise Wrong(f"unknown calculator {calculator}")


def official_score(text: str, instance: Instance) -> tuple[float, str | None]:
    """(1 or 0, the value read) by MedCalc-Bench's rule; raises Unsupported when its eval is beyond pyeval."""
    extra = instance.extra
    calculator = int(extra["calculator_id"])
    try:
        answer = read_answer(answer_field(text), calculator)
    except Wrong:
        return 0.0, None
    try:
        correct = is_correct(answer, instance.references[0].text, calculator, extra["lower_limit"],
                             extra["upper_limit"])
    except Wrong:
        correct = False
    return (1.0 if correct else 0.0), answer


@metric(MEDCALC_OFFICIAL, title="MedCalc-Bench accuracy (official rule)", task_types=NUMERIC_TASKS,
        needs=("reference",), readers=("medcalc_bench",),
        follows="MedCalc-Bench's evaluation: run.py extract_answer per calculator, then evaluate.py "
                "check_correctness (integers rounded, the last number read, dates at the start)")
def medcalc_official(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when MedCalc-Bench's own reader and checker count the answer correct; `extracted` is what it read."""
    try:
        value, answer = official_score(text, instance)
    except Unsupported as exc:
        raise ScoringFailed(f"expression_not_evaluated: {exc}") from None
    return MetricValue(value, None if answer is None else answer[:64])
