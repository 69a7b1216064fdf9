"""Reading the value a calculation answer gives: the answer, not the first number; or why none can be read."""

from __future__ import annotations

from datetime import date

import pytest

from medhelm_local.metrics.numbers import read_date, read_number, read_weeks_days
from medhelm_local.metrics.reading import Unreadable


@pytest.mark.parametrize(("text", "value"), [
    ("CrCl = [(140 - 68) x 78] / (72 x 1.2) = 5616 / 86.4 = 65.0 mL/min", 65.0),  # the end of the chain
    ("The patient's CHA2DS2-VASc score is 4 points.", 4.0),  # digits of a name are no value
    ("E2V3M4 = 9", 9.0),
    ("296.4 mOsm/kg H2O", 296.4),
    ("The MELD-Na is 24.", 24.0),
    ("Approximately 90 MME per day, which exceeds the 50 MME/day threshold.", 90.0),
    ("Give 4 units (glucose 284 mg/dL falls in the 251-300 band).", 4.0),
    ("Die Kreatinin-Clearance beträgt etwa 62,4 ml/min.", 62.4),  # a decimal comma
    ("Total: 1 850 kcal", 1850.0),
    ("−1,250 mL", -1250.0),
    ("The sodium fell by 6 mmol/L (from 134 to 128).", -6.0),
    ("1250 mL negative", -1250.0),
    ("\\boxed{62.42}", 62.42),
    ('{"step_by_step_thinking": "2 + 2 + 1 = 5", "answer": "8"}', 8.0),
    ("three", 3.0),
    ("9/15", 9.0),
])
def test_the_value_the_answer_gives_is_read(text: str, value: float) -> None:
    assert read_number(text) == pytest.approx(value)


@pytest.mark.parametrize(("text", "reason"), [
    ("between 55 and 65 mL/min", "range"),
    ("GCS: 8-9", "range"),
    ("3 or 4, depending on whether the remote TIA is counted.", "two_values"),
    ("The MELD 3.0 is 26 but the MELD-Na is 24.", "two_values"),  # two answers: not the first by default
    ("- Congestive heart failure: 0\n- Hypertension: 1\n- Age 72: 1", "two_values"),
    ("I cannot provide medical calculations.", "refusal"),
    ("Class B", "no_answer"),
    ("   ", "empty"),
])
def test_an_answer_without_one_value_is_unreadable_with_its_reason(text: str, reason: str) -> None:
    assert read_number(text) == Unreadable(reason)


@pytest.mark.parametrize(("text", "day"), [
    ("08/14/2021", date(2021, 8, 14)), ("August 14, 2021", date(2021, 8, 14)), ("2021-08-14", date(2021, 8, 14)),
    ("14/08/2021", date(2021, 8, 14)), ("08/14/21", date(2021, 8, 14)), ("02/03/2020", date(2020, 2, 3)),
    ("Naegele's rule: LMP 11/07/2020 + 280 days = 08/14/2021", date(2021, 8, 14)),
    ("Conception ≈ 2 weeks after the LMP (02/17/2020): 03/02/2020", date(2020, 3, 2)),
])
def test_a_date_is_read_in_any_unambiguous_form(text: str, day: date) -> None:
    assert read_date(text) == day


@pytest.mark.parametrize(("text", "days"), [
    ("('14 weeks', '2 days')", 100), ("(14, 2)", 100), ("14w2d", 100), ("14 weeks and 2 days", 100),
    ("100 days (14 weeks 2 days)", 100), ("14 weeks", 98),
])
def test_a_gestational_age_is_read_in_days(text: str, days: int) -> None:
    assert read_weeks_days(text) == days


def test_a_gestational_age_given_two_ways_that_disagree_is_unreadable() -> None:
    assert read_weeks_days("100 days (14 weeks 3 days)") == Unreadable("two_values")
