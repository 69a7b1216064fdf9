"""MEDEC scoring: error flag and error sentence read from "CORRECT" or "<id> <correction>"."""

from __future__ import annotations

from types import MappingProxyType

import pytest
from support.scoring import scores_of

from medhelm_local.metrics.medec import (
    HELM_MEDEC_ERROR_FLAG_ACCURACY,
    HELM_MEDEC_ERROR_SENTENCE_ACCURACY,
    MEDEC_ERROR_FLAG_ACCURACY,
    MEDEC_ERROR_SENTENCE_ACCURACY,
    read_medec_answer,
)
from medhelm_local.records import Instance, Reference, Score


def score_medec(instance: Instance, text: str) -> list[Score]:
    return scores_of([MEDEC_ERROR_FLAG_ACCURACY, MEDEC_ERROR_SENTENCE_ACCURACY, HELM_MEDEC_ERROR_FLAG_ACCURACY],
                     instance, text)


def note(error_sentence: int | None) -> Instance:
    """A MEDEC note as the loader builds it: with an error in one sentence, or correct."""
    flag = error_sentence is not None
    reference = f"{error_sentence} The corrected sentence." if flag else "CORRECT"
    extra = MappingProxyType({"error_flag": "1" if flag else "0",
                              "error_sentence_id": str(error_sentence) if flag else "-1", "error_type": ""})
    return Instance("ms-test-7", "0 A sentence.\n1 Another.\n", (Reference(reference),), extra=extra)


def by_metric(scores: list[Score]) -> dict[str, Score]:
    assert all(s.instance_id == "ms-test-7" for s in scores)
    return {s.metric: s for s in scores}


@pytest.mark.parametrize(("text", "read"), [
    ("CORRECT", (0, None)), ("CORRECT.", (0, None)), ("correct", (0, None)), ("Answer: CORRECT", (0, None)),
    ("The text is CORRECT.", (0, None)), ("3 The patient was given amoxicillin.", (1, 3)), ("12", (1, 12)),
    ("Sentence 4: Treat with heparin.", (1, 4)), ("**5** Corrected: ...", (1, 5)),
    ("Answer: 7 The dose is 5 mg.", (1, 7)),
])
def test_answers_are_read_as_flag_and_sentence(text: str, read: tuple[int, int | None]) -> None:
    assert read_medec_answer(text) == read


@pytest.mark.parametrize("text", ["", "I am not sure.", "Correction needed somewhere.", "There is an error."])
def test_text_that_is_neither_form_is_unreadable(text: str) -> None:
    assert read_medec_answer(text) is None


def test_the_right_sentence_scores_one_on_both() -> None:
    scores = by_metric(score_medec(note(3), "3 The corrected sentence."))

    assert scores[MEDEC_ERROR_FLAG_ACCURACY].value == 1.0
    assert scores[MEDEC_ERROR_SENTENCE_ACCURACY].value == 1.0
    assert scores[MEDEC_ERROR_FLAG_ACCURACY].extracted == "3"
    assert scores[HELM_MEDEC_ERROR_FLAG_ACCURACY].value == 1.0


def test_a_wrong_sentence_still_flags_the_error() -> None:
    scores = by_metric(score_medec(note(3), "5 Something."))

    assert scores[MEDEC_ERROR_FLAG_ACCURACY].value == 1.0
    assert scores[MEDEC_ERROR_SENTENCE_ACCURACY].value == 0.0


def test_correct_on_a_correct_note_scores_one_and_on_a_wrong_note_zero() -> None:
    assert by_metric(score_medec(note(None), "CORRECT"))[MEDEC_ERROR_SENTENCE_ACCURACY].value == 1.0
    wrong = by_metric(score_medec(note(3), "CORRECT"))
    assert (wrong[MEDEC_ERROR_FLAG_ACCURACY].value, wrong[MEDEC_ERROR_FLAG_ACCURACY].extracted) == (0.0, "CORRECT")
    assert wrong[MEDEC_ERROR_SENTENCE_ACCURACY].value == 0.0


def test_an_unreadable_answer_scores_zero_with_nothing_extracted_even_on_a_note_with_an_error() -> None:
    scores = by_metric(score_medec(note(3), "I cannot review this note."))

    assert (scores[MEDEC_ERROR_FLAG_ACCURACY].value, scores[MEDEC_ERROR_FLAG_ACCURACY].extracted) == (0.0, None)
    assert (scores[MEDEC_ERROR_SENTENCE_ACCURACY].value, scores[MEDEC_ERROR_SENTENCE_ACCURACY].extracted) == (0.0, None)
    # MedHELM counts anything but "CORRECT" as flagging an error, so it gives credit here
    assert scores[HELM_MEDEC_ERROR_FLAG_ACCURACY].value == 1.0


def test_helms_strict_rule_needs_exactly_correct() -> None:
    assert by_metric(score_medec(note(None), "CORRECT."))[HELM_MEDEC_ERROR_FLAG_ACCURACY].value == 0.0
    assert by_metric(score_medec(note(None), " CORRECT\n"))[HELM_MEDEC_ERROR_FLAG_ACCURACY].value == 1.0


@pytest.mark.parametrize(("text", "read"), [
    ("The text is not CORRECT; sentence 4 is wrong.", (1, 4)),
    ("The text isn't CORRECT. Sentence 2 gives the wrong drug.", (1, 2)),
    ("NOT CORRECT: sentence 6", (1, 6)),
    ("Correct sentence: 4 The patient was given heparin.", (1, 4)),
    ("Corrected sentence: 9 Start amoxicillin.", (1, 9)),
    ("In sentence 12 the dose is wrong.", (1, 12)),
    ("CORRECT. All 12 sentences are right.", (0, None)),
    ("The text is CORRECT.", (0, None)),
])
def test_negated_correct_and_correction_labels_are_not_read_as_correct(text: str, read: tuple[int, int | None],
                                                                       ) -> None:
    assert read_medec_answer(text) == read


def test_helms_sentence_rule_scores_zero_on_a_note_with_an_error_whatever_the_answer() -> None:
    flagged, clean = note(4), note(None)

    for text in ("4 The corrected sentence.", "4", "CORRECT"):
        assert by_metric(scores_of([HELM_MEDEC_ERROR_SENTENCE_ACCURACY], flagged, text))[
            HELM_MEDEC_ERROR_SENTENCE_ACCURACY].value == 0.0
    assert by_metric(scores_of([HELM_MEDEC_ERROR_SENTENCE_ACCURACY], clean, "CORRECT"))[
        HELM_MEDEC_ERROR_SENTENCE_ACCURACY].value == 1.0
    assert by_metric(scores_of([HELM_MEDEC_ERROR_SENTENCE_ACCURACY], clean, "CORRECT."))[
        HELM_MEDEC_ERROR_SENTENCE_ACCURACY].value == 0.0
