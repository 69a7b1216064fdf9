"""MEDEC: did the model flag the note's error (or its absence), and name the right sentence?

A model answers "CORRECT" for a note without error, or "<sentence id> <corrected sentence>".
`read_medec_answer` reads that as (flag, sentence id); an answer that is neither scores 0 on
both metrics. MedHELM's rule differs in one way, kept as `helm_medec_error_flag_accuracy` for
comparison with published numbers: any answer other than exactly "CORRECT" counts as flagging
an error, so unreadable text earns credit on notes that have one.
"""

from __future__ import annotations

import re

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

MEDEC_ERROR_FLAG_ACCURACY = "medec_error_flag_accuracy"
MEDEC_ERROR_SENTENCE_ACCURACY = "medec_error_sentence_accuracy"
HELM_MEDEC_ERROR_FLAG_ACCURACY = "helm_medec_error_flag_accuracy"

_CUE = re.compile(r"^\s*(?:\*\*)?(?:final\s+)?answer\s*(?:\*\*)?\s*:\s*", re.IGNORECASE)
_CORRECT = re.compile(r"^[\W_]*correct\b", re.IGNORECASE)
_SENTENCE_ID = re.compile(r"^[\W_]*(?:sentence\s*(?:id)?\s*[:#]?\s*)?(\d+)\b", re.IGNORECASE)
_SHOUTED_CORRECT = re.compile(r"\bCORRECT\b")


def read_medec_answer(text: str) -> tuple[int, int | None] | None:
    """(1, sentence id) for a flagged error, (0, None) for "CORRECT", or None if unreadable."""
    answer = _CUE.sub("", text.strip(), count=1)
    if _CORRECT.match(answer):
        return 0, None
    found = _SENTENCE_ID.match(answer)
    if found:
        return 1, int(found.group(1))
    if _SHOUTED_CORRECT.search(answer):  # "The text is CORRECT." as the instructions spell it
        return 0, None
    return None


def _gold(instance: Instance) -> tuple[int, int | None]:
    flag = int(instance.extra["error_flag"])
    return flag, int(instance.extra["error_sentence_id"]) if flag else None


def _extracted(read: tuple[int, int | None] | None) -> str | None:
    if read is None:
        return None
    return "CORRECT" if read[0] == 0 else str(read[1])


@metric(MEDEC_ERROR_FLAG_ACCURACY, title="MEDEC error-flag accuracy", task_types=TEXT_TASKS, readers=("medec",),
        follows="medhelm-local: MEDEC's error-flag accuracy, reading the answer robustly (documented improvement)")
def medec_error_flag_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer flags an error exactly when the note has one ("CORRECT" otherwise)."""
    read = read_medec_answer(text)
    return MetricValue(1.0 if read is not None and read[0] == _gold(instance)[0] else 0.0, _extracted(read))


@metric(MEDEC_ERROR_SENTENCE_ACCURACY, title="MEDEC error-sentence accuracy", task_types=TEXT_TASKS,
        readers=("medec",), follows="medhelm-local: the flag and the erroneous sentence's id both right")
def medec_error_sentence_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """1 when the answer flags the note correctly and, for a note with an error, names its sentence id."""
    read = read_medec_answer(text)
    return MetricValue(1.0 if read == _gold(instance) else 0.0, _extracted(read))


@metric(HELM_MEDEC_ERROR_FLAG_ACCURACY, title="MEDEC error-flag accuracy (HELM's rule)", task_types=TEXT_TASKS,
        readers=("medec",), follows="HELM medec_error_flag_accuracy: any answer but exactly CORRECT flags an error")
def helm_medec_error_flag_accuracy(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """HELM's rule: the answer flags an error unless it is exactly "CORRECT"."""
    helm_flag = 0 if text.strip() == "CORRECT" else 1
    return MetricValue(1.0 if helm_flag == _gold(instance)[0] else 0.0, text.strip()[:16])
