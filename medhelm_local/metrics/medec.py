"""MEDEC: did the model flag the note's error (or its absence), and name the right sentence?

A model answers "CORRECT" for a note without error, or "<sentence id> <corrected sentence>".
`read_medec_answer` reads that as (flag, sentence id), also from "Sentence 4: ...", "Correct
sentence: 4 ..." (a label for the correction, not a verdict) and "The text is not CORRECT;
sentence 4 is wrong."; an answer that is neither scores 0 on both metrics. These two are
documented improvements on HELM's rule; HELM's own rule is kept as `helm_medec_error_flag_accuracy`
and `helm_medec_error_sentence_accuracy` to compare with the published MedHELM leaderboard. HELM
differs in two ways: any answer other than exactly "CORRECT" counts as flagging an error (so
unreadable text earns flag credit on notes that have one, and "Correct." loses it on notes that do
not), and it reads the reference "<id> <sentence>" as a whole number, which fails, so its sentence
accuracy is 0 on every note with an error whatever the answer.
"""

from __future__ import annotations

import re

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

MEDEC_ERROR_FLAG_ACCURACY = "medec_error_flag_accuracy"
MEDEC_ERROR_SENTENCE_ACCURACY = "medec_error_sentence_accuracy"
HELM_MEDEC_ERROR_FLAG_ACCURACY = "helm_medec_error_flag_accuracy"
HELM_MEDEC_ERROR_SENTENCE_ACCURACY = "helm_medec_error_sentence_accuracy"

_CUE = re.compile(r"^\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*:\s*", re.IGNORECASE)
# "Correct sentence: 4 ..." / "Corrected version:" label the correction; they are not the verdict CORRECT.
_CORRECTION_LABEL = re.compile(r"^[\W_]*correct(?:ed|ion)?\s+(?:sentence|version)\b[\W_]*", re.IGNORECASE)
_CORRECT = re.compile(r"^[\W_]*correct\b", re.IGNORECASE)
_SENTENCE_ID = re.compile(r"^[\W_]*(?:sentence\s*(?:id)?\s*[:#]?\s*)?(\d+)\b", re.IGNORECASE)
_SHOUTED_CORRECT = re.compile(r"\bCORRECT\b")
_NEGATION_BEFORE = re.compile(r"\b(?:not|isn't|is\s+not|never)\s+(?:\w+\s+)?$", re.IGNORECASE)
_SENTENCE_MENTION = re.compile(r"\bsentence\s*(?:id\s*)?(?:#|no\.?|number)?\s*(\d+)\b", re.IGNORECASE)
_HELM_LEADING_ID = re.compile(r"^(\d+)")


def _says_correct(answer: str) -> bool:
    """True when the answer calls the text CORRECT, not "not CORRECT"."""
    return any(not _NEGATION_BEFORE.search(answer[:found.start()])
               for found in _SHOUTED_CORRECT.finditer(answer))


def read_medec_answer(text: str) -> tuple[int, int | None] | None:
    """(1, sentence id) for a flagged error, (0, None) for "CORRECT", or None if unreadable."""
    answer = _CUE.sub("", text.strip(), count=1)
    label = _CORRECTION_LABEL.match(answer)
    if label:
        found = _SENTENCE_ID.match(answer[label.end():])
        return (1, int(found.group(1))) if found else None
    if _CORRECT.match(answer):
        return 0, None
    found = _SENTENCE_ID.match(answer)
    if found:
        return 1, int(found.group(1))
    if _says_correct(answer):  # "The text is CORRECT." as the instructions spell it
        return 0, None
    mentioned = _SENTENCE_MENTION.search(answer)  # "The text is not CORRECT; sentence 4 is wrong."
    return (1, int(mentioned.group(1))) if mentioned else None


def _gold(instance: Instance) -> tuple[int, int | None]:
    flag = int(instance.extra["error_flag"])
    return flag, int(instance.extra["error_sentence_id"]) if flag else None


def _extracted(read: tuple[int, int | None] | None) -> str | None:
    if read is None:
        return None
    return "CORRECT" if read[0] == 0 else str(read[1])


def helm_medec_read(reference: str, answer: str) -> tuple[bool, bool]:
    """(flag right, sentence right) by HELM's MedecMetric for one reference text and one answer."""
    gold_text = reference.replace(".", "").strip()
    gold_flag, gold_id = (0, -1) if gold_text == "CORRECT" else (1, _helm_int(gold_text))
    predicted = answer.strip()
    if predicted == "CORRECT":
        flag, sentence = 0, -1
    else:
        leading = _HELM_LEADING_ID.match(predicted)
        flag, sentence = 1, int(leading.group(1)) if leading else -2
    if gold_flag == 1 and flag == 1:
        return True, sentence == gold_id
    return flag == gold_flag, gold_flag == 0 and flag == 0


def _helm_int(text: str) -> int:
    # HELM reads the whole reference "<id> <corrected sentence>" (dots removed) as one integer;
    # it fails for every real reference and then stands for -1.
    try:
        return int(text)
    except ValueError:
        return -1


@metric(MEDEC_ERROR_FLAG_ACCURACY, title="MEDEC error-flag accuracy", task_types=TEXT_TASKS, readers=("medec",),
        follows="medhelm-local: MEDEC's error-flag accuracy, reading the answer robustly (documented improvement)")
def medec_error_flag_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer flags an error exactly when the note has one ("CORRECT" otherwise)."""
    read = read_medec_answer(text)
    return MetricValue(1.0 if read is not None and read[0] == _gold(instance)[0] else 0.0, _extracted(read))


@metric(MEDEC_ERROR_SENTENCE_ACCURACY, title="MEDEC error-sentence accuracy", task_types=TEXT_TASKS,
        readers=("medec",),
        follows="medhelm-local: the flag and the erroneous sentence's id both right, the id read from the "
                "reference's own id (documented improvement)")
def medec_error_sentence_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer flags the note correctly and, for a note with an error, names its sentence id."""
    read = read_medec_answer(text)
    return MetricValue(1.0 if read == _gold(instance) else 0.0, _extracted(read))


@metric(HELM_MEDEC_ERROR_FLAG_ACCURACY, title="MEDEC error-flag accuracy (HELM's rule)", task_types=TEXT_TASKS,
        readers=("medec",), follows="HELM MedecMetric medec_error_flag_accuracy: any answer but exactly CORRECT "
                                    "flags an error")
def helm_medec_error_flag_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """HELM's rule: the answer flags an error unless it is exactly "CORRECT"."""
    flag_right, _ = helm_medec_read(instance.correct_references[0].text, text)
    return MetricValue(1.0 if flag_right else 0.0, text.strip()[:16])


@metric(HELM_MEDEC_ERROR_SENTENCE_ACCURACY, title="MEDEC error-sentence accuracy (HELM's rule)",
        task_types=TEXT_TASKS, readers=("medec",),
        follows="HELM MedecMetric medec_error_sentence_accuracy: the answer's leading number against the "
                "reference read as one integer (0 on every note with an error)")
def helm_medec_error_sentence_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """HELM's rule: exactly "CORRECT" on a correct note, or a leading id equal to the reference read as a number."""
    _, sentence_right = helm_medec_read(instance.correct_references[0].text, text)
    return MetricValue(1.0 if sentence_right else 0.0, text.strip()[:16])
