"""Reading answers out of free model text: option letters, numbers, dates, gestational ages."""

from __future__ import annotations

from datetime import date

import pytest

from medhelm_local.metrics.extract import extract_choice, extract_date, extract_number, extract_weeks_days, read_choice
from medhelm_local.metrics.reading import Unreadable

YES_NO_MAYBE = ["yes", "no", "maybe"]
DRUGS = ["Ceftriaxone", "Vancomycin", "Doxycycline", "Azithromycin"]


@pytest.mark.parametrize(("text", "letter"), [
    ("B", "B"),
    ("(B)", "B"),
    ("B.", "B"),
    ("B)", "B"),
    ("B: no", "B"),
    ("  C\n", "C"),
    ("A", "A"),
    ("Answer: B", "B"),
    ("answer: b", "B"),
    ("The answer is C", "C"),
    ("The answer is (A).", "A"),
    ("I think the answer is option B because the trial was negative.", "B"),
])
def test_a_letter_answer_is_read(text: str, letter: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) == letter


@pytest.mark.parametrize(("text", "letter"), [
    ("yes", "A"),
    ("Yes.", "A"),
    ("no", "B"),
    ("Maybe.", "C"),
    ("MAYBE", "C"),
])
def test_an_answer_given_as_the_option_word_is_read(text: str, letter: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) == letter


def test_the_text_of_one_option_is_read_as_that_option() -> None:
    assert extract_choice("Vancomycin", DRUGS) == "B"
    assert extract_choice("I would give doxycycline.", DRUGS) == "C"


def test_an_option_must_match_as_a_whole_word() -> None:
    # "nothing" contains "no" but names no option.
    assert extract_choice("nothing to add", YES_NO_MAYBE) is None


def test_when_several_options_are_named_and_none_is_chosen_nothing_is_read() -> None:
    # tests/data/answers/README.md: a reply naming two options as possible answers is unreadable.
    assert read_choice("Maybe, but more likely yes", YES_NO_MAYBE) == Unreadable("two_options")


@pytest.mark.parametrize("text", ["", "   ", "I cannot tell from the abstract.", "Answer:", "The answer is unclear"])
def test_no_answer_gives_none(text: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) is None


@pytest.mark.parametrize("text", ["D", "(D)", "E.", "Answer: D", "The answer is E"])
def test_a_letter_outside_the_options_gives_none(text: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) is None


def test_the_fifth_letter_is_valid_only_when_there_are_five_options() -> None:
    assert extract_choice("E", DRUGS) is None
    assert extract_choice("E", [*DRUGS, "Linezolid"]) == "E"


def test_a_letter_outside_the_options_does_not_hide_an_option_word() -> None:
    assert extract_choice("The answer is E, which is no.", YES_NO_MAYBE) == "B"


def test_a_sentence_starting_with_the_article_a_is_not_option_a() -> None:
    assert extract_choice("A patient like this should get Doxycycline.", DRUGS) == "C"


@pytest.mark.parametrize(("text", "number"), [
    ("1,234.5", 1234.5),
    ("-3", -3.0),
    ("+7", 7.0),
    ("0.5", 0.5),
    (".5", 0.5),
    ("2.1e3", 2100.0),
    ("1,234,567", 1234567.0),
    ("The creatinine clearance is 25.24 mL/min.", 25.24),
    ("between 3.0 and 4", 3.0),
    ("-0.25 units", -0.25),
])
def test_the_first_number_is_read(text: str, number: float) -> None:
    assert extract_number(text) == pytest.approx(number)


@pytest.mark.parametrize("text", ["no number", "", "one hundred", "-", "."])
def test_text_without_a_number_gives_none(text: str) -> None:
    assert extract_number(text) is None


@pytest.mark.parametrize(("text", "day"), [
    ("02/08/2002", date(2002, 2, 8)),
    ("2/8/2002", date(2002, 2, 8)),
    ("The due date is 11/25/2013.", date(2013, 11, 25)),
    ("02/29/2020", date(2020, 2, 29)),
])
def test_an_mm_dd_yyyy_date_is_read(text: str, day: date) -> None:
    assert extract_date(text) == day


@pytest.mark.parametrize("text", ["13/45/2020", "02/30/2021", "02/29/2021", "00/10/2020", "2020-01-01",
                                  "no date", "11/25/13"])
def test_an_impossible_or_other_format_date_gives_none(text: str) -> None:
    assert extract_date(text) is None


@pytest.mark.parametrize(("text", "days"), [
    ("('3 weeks', '4 days')", 25),
    ("(3 weeks, 4 days)", 25),
    ("3 weeks 4 days", 25),
    ("40 weeks, 0 days", 280),
    ("('0 weeks', '6 days')", 6),
    ("1 week 1 day", 8),
])
def test_a_gestational_age_is_read_in_days(text: str, days: int) -> None:
    assert extract_weeks_days(text) == days


@pytest.mark.parametrize("text", ["3 weeks", "4 days", "25", "weeks and days", ""])
def test_a_gestational_age_without_both_parts_gives_none(text: str) -> None:
    assert extract_weeks_days(text) is None


@pytest.mark.parametrize(("text", "letter"), [
    ("The answer is a no.", "B"),  # the article "a" is not option A
    ("The answer is an emphatic yes.", "A"),
    ("The answer is not maybe; it is yes.", "A"),  # a negated option is not chosen
    ("Not yes. The answer is no.", "B"),
    ("answer: b", "B"),
    ("The answer is (a).", "A"),
])
def test_articles_and_negations_are_not_read_as_choices(text: str, letter: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) == letter


@pytest.mark.parametrize("text", ["A or B", "The answer is A or B", "Answer: (A) or (C)", "yes or no", "yes/no",
                                  "either maybe or no", "Not maybe."])
def test_two_choices_joined_as_alternatives_are_no_answer(text: str) -> None:
    assert extract_choice(text, YES_NO_MAYBE) is None
