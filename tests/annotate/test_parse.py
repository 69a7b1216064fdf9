"""A judge's reply is read defensively; what cannot be read is a failure with its reason, never a guess."""

from __future__ import annotations

import json

import pytest

from medhelm_local.annotate.parse import read_reply
from medhelm_local.annotate.rubric import load_rubric

RUBRIC = load_rubric("clinical_note")  # accuracy, completeness, clarity on 1-5


def _reply(**scores: object) -> str:
    return json.dumps({c: {"explanation": f"{c} ok", "score": s} for c, s in scores.items()})


def test_a_schema_valid_reply_gives_every_criterion_and_the_judges_mean() -> None:
    reading = read_reply(_reply(accuracy=4, completeness=3, clarity=5), RUBRIC)

    assert reading.ok
    assert reading.ratings["accuracy"] == {"score": 4, "explanation": "accuracy ok"}
    assert reading.mean == pytest.approx(4.0)


@pytest.mark.parametrize("wrapped", [
    "```json\n{body}\n```",
    "Here is my assessment.\n{body}\nLet me know if you need more.",
    "{body} {{\"note\": \"a second object\"}}",
])
def test_fenced_json_and_trailing_text_are_read(wrapped: str) -> None:
    body = _reply(accuracy=2, completeness=2, clarity=3)
    reading = read_reply(wrapped.format(body=body), RUBRIC)
    assert reading.ok and reading.mean == pytest.approx(7 / 3)


def test_raw_newlines_and_tabs_inside_an_explanation_are_read() -> None:
    """The demo's judges (vLLM structured output) wrote these; strict JSON refused the reply, and its first
    criterion's own object was read instead: every criterion "missing"."""
    text = ('{"accuracy": {"explanation": "line one\nline\ttwo", "score": 2}, '
            '"completeness": {"explanation": "x", "score": 3}, "clarity": {"explanation": "y", "score": 4}}')
    reading = read_reply(text, RUBRIC)
    assert reading.ok and reading.ratings["accuracy"] == {"score": 2, "explanation": "line one\nline\ttwo"}


def test_a_broken_reply_is_unparseable_never_a_criterions_own_object_read_as_the_reply() -> None:
    text = '{"accuracy": {"explanation": "fine", "score": 2}, "completeness": {"explanation": "x", "score": 3'
    reading = read_reply(text, RUBRIC)
    assert (reading.error_type, reading.ratings) == ("unparseable", {})
    assert reading.error_message is not None and "does not parse" in reading.error_message


def test_scores_as_strings_bare_numbers_and_other_key_cases_are_read() -> None:
    text = json.dumps({"Accuracy": {"Score": "4", "Explanation": "fine"}, "COMPLETENESS": "3/5",
                       "clarity": {"score": 5.0, "reasoning": "clear"}})
    reading = read_reply(text, RUBRIC)

    assert reading.ok
    assert {c: r["score"] for c, r in reading.ratings.items()} == {"accuracy": 4, "completeness": 3, "clarity": 5}
    assert reading.ratings["clarity"]["explanation"] == "clear"


def test_no_json_is_unparseable_and_keeps_the_start_of_the_reply_to_diagnose_the_judge() -> None:
    reading = read_reply("The note is quite good overall.", RUBRIC)

    assert not reading.ok and reading.mean is None
    assert reading.error_type == "unparseable"
    assert "quite good" in (reading.error_message or "")


@pytest.mark.parametrize(("score", "kind"), [(7, "out_of_range"), (0, "out_of_range"), (3.5, "out_of_range"),
                                             ("excellent", "unparseable"), (True, "unparseable")])
def test_a_score_off_the_scale_is_a_failure_never_clamped(score: object, kind: str) -> None:
    reading = read_reply(_reply(accuracy=score, completeness=3, clarity=3), RUBRIC)

    assert not reading.ok and reading.mean is None
    assert reading.error_type == kind
    assert "accuracy" in (reading.error_message or "")


def test_a_missing_criterion_fails_the_reply_and_keeps_what_was_rated_for_review() -> None:
    reading = read_reply(_reply(accuracy=4, completeness=3), RUBRIC)

    assert reading.error_type == "missing_criterion" and reading.mean is None
    assert set(reading.ratings) == {"accuracy", "completeness"}
    assert "clarity" in (reading.error_message or "")


def test_a_criterion_without_a_score_is_missing() -> None:
    text = json.dumps({"accuracy": {"explanation": "no score given"}, "completeness": 3, "clarity": 3})
    assert read_reply(text, RUBRIC).error_type == "missing_criterion"
