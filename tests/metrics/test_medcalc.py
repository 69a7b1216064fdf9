"""MedCalc-Bench accuracy: the answer must fall inside [Lower Limit, Upper Limit] for its output type."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from support.scoring import scores_of

from medhelm_local.metrics.medcalc import MEDCALC_ACCURACY
from medhelm_local.records import Instance, Reference, Score


def score_medcalc(instance: Instance, text: str) -> list[Score]:
    return scores_of([MEDCALC_ACCURACY], instance, text)


def item(output_type: str, truth: str, lower: str, upper: str) -> Instance:
    """A MedCalc-Bench row as the loader builds it."""
    extra = MappingProxyType({"output_type": output_type, "lower_limit": lower, "upper_limit": upper,
                              "category": "lab", "calculator_id": "2"})
    return Instance("row-0001", "Patient note: ...\n\nQuestion: ...\n", (Reference(truth),), extra=extra)


def only(scores: list[Score]) -> Score:
    assert len(scores) == 1
    assert scores[0].metric == MEDCALC_ACCURACY
    assert scores[0].instance_id == "row-0001"
    return scores[0]


DECIMAL = item("decimal", "25.238", "23.9761", "26.4999")


@pytest.mark.parametrize("text", ["25.238", "24", "23.9761", "26.4999", "CrCl = 26.1 mL/min", " 25.2\n"])
def test_a_decimal_inside_the_limits_scores_one(text: str) -> None:
    assert only(score_medcalc(DECIMAL, text)).value == 1.0


@pytest.mark.parametrize("text", ["23.97", "26.5", "30", "-25.238", "0"])
def test_a_decimal_outside_the_limits_scores_zero(text: str) -> None:
    score = only(score_medcalc(DECIMAL, text))

    assert score.value == 0.0
    assert score.extracted is not None  # read, just wrong


def test_the_extracted_decimal_is_recorded() -> None:
    assert only(score_medcalc(DECIMAL, "The answer is 25.5")).extracted == "25.5"


def test_an_integer_must_equal_the_ground_truth() -> None:
    score_8 = item("integer", "8", "8", "8")

    assert only(score_medcalc(score_8, "8")).value == 1.0
    assert only(score_medcalc(score_8, "8 points")).value == 1.0
    assert only(score_medcalc(score_8, "7")).value == 0.0
    assert only(score_medcalc(score_8, "9")).value == 0.0


def test_a_negative_integer_is_compared_with_its_sign() -> None:
    negative = item("integer", "-1", "-1", "-1")

    assert only(score_medcalc(negative, "-1")).value == 1.0
    assert only(score_medcalc(negative, "1")).value == 0.0


def test_a_date_compares_as_a_calendar_date() -> None:
    due = item("date", "02/08/2002", "02/08/2002", "02/08/2002")

    correct = only(score_medcalc(due, "2/8/2002"))
    assert correct.value == 1.0
    assert correct.extracted == "02/08/2002"
    assert only(score_medcalc(due, "02/09/2002")).value == 0.0
    assert only(score_medcalc(due, "08/02/2002")).value == 0.0  # DD/MM is a different date


def test_a_date_answer_that_is_not_a_date_scores_zero_with_nothing_extracted() -> None:
    due = item("date", "02/08/2002", "02/08/2002", "02/08/2002")

    score = only(score_medcalc(due, "2002"))

    assert score.value == 0.0
    assert score.extracted is None


def test_a_gestational_age_tuple_compares_in_days() -> None:
    age = item("integer", "('3 weeks', '4 days')", "('3 weeks', '4 days')", "('3 weeks', '4 days')")

    correct = only(score_medcalc(age, "('3 weeks', '4 days')"))
    assert correct.value == 1.0
    assert correct.extracted == "3 weeks, 4 days"
    assert only(score_medcalc(age, "3 weeks, 4 days")).value == 1.0
    assert only(score_medcalc(age, "('4 weeks', '3 days')")).value == 0.0
    # 25 days is the right total, but a bare number is not a gestational age.
    assert only(score_medcalc(age, "25")).value == 0.0


def test_a_gestational_age_range_accepts_anything_inside_it() -> None:
    age = item("integer", "('3 weeks', '4 days')", "('3 weeks', '2 days')", "('3 weeks', '6 days')")

    assert only(score_medcalc(age, "('3 weeks', '6 days')")).value == 1.0
    assert only(score_medcalc(age, "('4 weeks', '0 days')")).value == 0.0


@pytest.mark.parametrize("text", ["", "I cannot compute this without the weight.", "N/A"])
def test_an_unreadable_answer_scores_zero_with_nothing_extracted(text: str) -> None:
    score = only(score_medcalc(DECIMAL, text))

    assert score.value == 0.0
    assert score.extracted is None


def row(calculator: str, category: str, truth: str, lower: str, upper: str) -> Instance:
    extra = MappingProxyType({"output_type": "decimal", "lower_limit": lower, "upper_limit": upper,
                              "category": category, "calculator_id": calculator})
    return Instance("row-0001", "", (Reference(truth),), extra=extra)


CREATININE = row("2", "lab", "25.238", "23.9761", "26.4999")
BMI = row("6", "physical", "14.525", "13.79875", "15.25125")
CENTOR = row("20", "risk", "4", "4", "4")
DUE_DATE = row("13", "date", "09/23/2014", "09/23/2014", "09/23/2014")
GESTATION = row("69", "date", "('14 weeks', '1 days')", "('14 weeks', '1 days')", "('14 weeks', '1 days')")


@pytest.mark.parametrize(("instance", "text", "official", "helm", "ours"), [
    (CENTOR, "4.12", 1.0, 0.0, 0.0),  # the official check rounds integers; HELM wants the text "4"
    (CENTOR, "4.5", 1.0, 0.0, 0.0),  # half to even
    (CENTOR, "4", 1.0, 1.0, 1.0),
    (CREATININE, "140 - 38 = 25.238", 1.0, 0.0, 1.0),  # the value after "=" both; HELM: 0 on every lab row
    (CREATININE, "25.238", 1.0, 0.0, 1.0),
    (BMI, "14.525 kg/m^2", 0.0, 0.0, 1.0),  # the official reader takes the last number, 2
    (BMI, "14.525", 1.0, 1.0, 1.0),
    (CREATININE, "2.5238e+01", 0.0, 0.0, 1.0),
    (CREATININE, "25.238%", 0.0, 0.0, 1.0),
    (DUE_DATE, "The estimated date is 09/23/2014.", 0.0, 0.0, 1.0),
    (DUE_DATE, "9/23/2014", 1.0, 1.0, 1.0),
    (GESTATION, "(14, 1)", 1.0, 0.0, 1.0),
    (GESTATION, "('14 weeks', '1 days')", 1.0, 1.0, 1.0),
])
def test_the_official_rule_helms_rule_and_the_published_limits_as_issue_16_lists_them(
        instance: Instance, text: str, official: float, helm: float, ours: float) -> None:
    scores = {s.metric: s.value for s in scores_of(
        ["medcalc_bench_official", "helm_medcalc_bench_accuracy", MEDCALC_ACCURACY], instance, text)}

    assert scores == {"medcalc_bench_official": official, "helm_medcalc_bench_accuracy": helm, MEDCALC_ACCURACY: ours}


def test_an_expression_the_official_reader_would_evaluate_with_numpy_is_a_counted_failure() -> None:
    score = scores_of(["medcalc_bench_official"], CREATININE, "str(np.sqrt(637))")[0]

    assert score.value is None
    assert score.error is not None and score.error.startswith("expression_not_evaluated")
