"""Classification exact match: the label read from the answer (digit, cue, or word) equals the gold label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from support.scoring import scores_of

from medhelm_local.metrics.classification import extract_label
from medhelm_local.metrics.exact_match import EXACT_MATCH, HELM_EXACT_MATCH
from medhelm_local.metrics.registry import ScoringContext
from medhelm_local.records import Instance, Reference, Score


def score_label(instance: Instance, text: str, labels: Sequence[str], synonyms: Mapping[str, str]) -> list[Score]:
    return scores_of([EXACT_MATCH, HELM_EXACT_MATCH], instance, text,
                     ScoringContext(labels=tuple(labels), synonyms=dict(synonyms)))

LABELS = ("0", "1")
WORDS = {"factual": "0", "not hallucinated": "0", "hallucinated": "1", "not factual": "1", "non-factual": "1"}


def labelled(label: str) -> Instance:
    return Instance("row-0001-x", "World Knowledge: ...\n\nQuestion: ...\n\nAnswer: ...\n", (Reference(label),))


@pytest.mark.parametrize(("text", "label"), [
    ("1", "1"), ("0", "0"), (" 0\n", "0"), ("'1'.", "1"), ("**1**", "1"), ("`0`", "0"),
    ("Your judgment: 1", "1"), ("Your Judgment: 0", "0"), ("Judgement - 1", "1"), ("Answer: 0", "0"),
    ("1\n\nThe answer invents a mechanism.", "1"), ("0 (factual)", "0"),
    ("hallucinated", "1"), ("The answer is factual.", "0"), ("This is not factual.", "1"),
    ("It is not hallucinated.", "0"), ("Non-factual", "1"),
])
def test_a_label_is_read_from_common_answer_shapes(text: str, label: str) -> None:
    assert extract_label(text, LABELS, WORDS) == label


@pytest.mark.parametrize("text", [
    "", "   ", "I cannot determine this.", "2", "10", "factual or hallucinated, hard to say",
    "maybe",
])
def test_an_answer_naming_no_single_label_reads_as_none(text: str) -> None:
    assert extract_label(text, LABELS, WORDS) is None


def test_words_are_only_read_when_synonyms_are_given() -> None:
    assert extract_label("hallucinated", LABELS) is None


def test_labels_that_are_words_match_case_insensitively_and_return_the_gold_spelling() -> None:
    assert extract_label("Yes.", ("yes", "no")) == "yes"
    assert extract_label("Answer: NO", ("yes", "no")) == "no"


def test_the_correct_label_scores_one_on_both_metrics() -> None:
    scores = {s.metric: s for s in score_label(labelled("1"), "1", LABELS, WORDS)}

    assert scores[EXACT_MATCH].value == 1.0
    assert scores[EXACT_MATCH].extracted == "1"
    assert scores[HELM_EXACT_MATCH].value == 1.0
    assert all(s.instance_id == "row-0001-x" for s in scores.values())


def test_the_wrong_label_scores_zero_and_records_what_was_read() -> None:
    scores = {s.metric: s for s in score_label(labelled("1"), "Your judgment: 0", LABELS, WORDS)}

    assert (scores[EXACT_MATCH].value, scores[EXACT_MATCH].extracted) == (0.0, "0")
    assert scores[HELM_EXACT_MATCH].value == 0.0


def test_a_decorated_right_answer_counts_for_exact_match_but_not_helms_strict_rule() -> None:
    scores = {s.metric: s.value for s in score_label(labelled("0"), "Your judgment: 0", LABELS, WORDS)}

    assert scores == {EXACT_MATCH: 1.0, HELM_EXACT_MATCH: 0.0}


def test_an_unreadable_answer_scores_zero_with_nothing_extracted() -> None:
    scores = {s.metric: s for s in score_label(labelled("0"), "I am unable to judge.", LABELS, WORDS)}

    assert (scores[EXACT_MATCH].value, scores[EXACT_MATCH].extracted) == (0.0, None)
    assert scores[HELM_EXACT_MATCH].value == 0.0


@pytest.mark.parametrize("text", ["0 or 1", "0/1", "Your judgment: 0 or 1", "1 or 0", "either 0 or 1"])
def test_two_labels_given_as_alternatives_read_as_none(text: str) -> None:
    assert extract_label(text, LABELS, WORDS) is None


@pytest.mark.parametrize(("text", "label"), [("1, not 0", "1"), ("0 (factual)", "0"), ("1. Not 0.", "1")])
def test_a_label_followed_by_a_negated_other_label_is_read(text: str, label: str) -> None:
    assert extract_label(text, LABELS, WORDS) == label


def test_an_article_before_a_word_label_is_not_a_letter() -> None:
    assert extract_label("The answer is a no.", ("yes", "no")) == "no"
    assert extract_label("The answer is a no.", ("yes", "no"), lettered=True) == "no"
    assert extract_label("Answer: B", ("yes", "no"), lettered=True) == "no"
