"""Exact match for multiple choice and classification: the answer read is the correct option or label.

`exact_match` reads the answer robustly (a letter, "Answer: B", the option's own words; for
classification the label, matched case- and punctuation-insensitively, by a cue, or by a unique
prefix). A classification answer is read as a letter only when the prompt letters the labels.
`helm_exact_match` is HELM's strict rule: the stripped output must be exactly the correct letter
(multiple choice) or label (classification); kept to compare with published leaderboards.
"""

from __future__ import annotations

import string

from medhelm_local.metrics.classification import label_value
from medhelm_local.metrics.extract import read_choice
from medhelm_local.metrics.reading import Unreadable
from medhelm_local.metrics.registry import CHOICE_TASKS, LABEL_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

EXACT_MATCH = "exact_match"
HELM_EXACT_MATCH = "helm_exact_match"
LETTERS = string.ascii_uppercase


def correct_letters(instance: Instance) -> tuple[str, ...]:
    """Letters of the references marked correct (options are lettered in reference order)."""
    return tuple(LETTERS[i] for i, ref in enumerate(instance.references) if ref.correct)


def _gold_label(instance: Instance) -> str:
    return instance.correct_references[0].text if instance.correct_references else ""


@metric(EXACT_MATCH, title="Exact match", task_types=CHOICE_TASKS | LABEL_TASKS, needs=("options",),
        follows="medhelm-local: HELM's exact match, with the answer read robustly (documented improvement)")
def exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """1 when the option or label read from the answer is the correct one, else 0."""
    if ctx.labels:
        return label_value(instance, answer, ctx)
    letter = read_choice(answer, [ref.text for ref in instance.references])
    if isinstance(letter, Unreadable):  # scored 0 (no option chosen) and counted, with why, beside the mean
        return MetricValue(0.0, None, {"unreadable": letter.reason})
    return MetricValue(1.0 if letter in correct_letters(instance) else 0.0, letter)


@metric(HELM_EXACT_MATCH, title="Exact match (HELM's strict rule)", task_types=CHOICE_TASKS | LABEL_TASKS,
        needs=("options",), follows="HELM exact_match: the stripped output equals the correct letter or label",
        sees="completion")
def helm_exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """1 when the stripped answer is exactly the correct letter (or label), as HELM scores it."""
    stripped = answer.strip()
    gold = {r.text for r in instance.correct_references} if ctx.labels else set(correct_letters(instance))
    return MetricValue(1.0 if stripped in gold else 0.0, stripped[:16])
