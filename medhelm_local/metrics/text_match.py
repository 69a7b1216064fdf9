"""HELM's exact-match rules on a free-text answer, as MedHELM's configurable benchmarks score `exact_match`.

A configurable benchmark is a generation task: the answer is compared with the correct reference
(its CSV's `correct_answer`) as text, the best over the correct references. HELM's four rules:

    helm_text_exact_match              the stripped answer equals the stripped reference
    helm_text_quasi_exact_match        equal after normalising (lower case, no punctuation, no a/an/the,
                                       whitespace collapsed)
    helm_text_prefix_exact_match       the stripped answer starts with the stripped reference
    helm_text_quasi_prefix_exact_match the normalised answer starts with the normalised reference

An empty answer scores 0 under every rule, as in HELM.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

TEXT_EXACT_MATCH = "helm_text_exact_match"
TEXT_QUASI_EXACT_MATCH = "helm_text_quasi_exact_match"
TEXT_PREFIX_EXACT_MATCH = "helm_text_prefix_exact_match"
TEXT_QUASI_PREFIX_EXACT_MATCH = "helm_text_quasi_prefix_exact_match"
_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalise_text(text: str) -> str:
    """HELM's normalisation: lower case, punctuation removed, the articles a/an/the removed, whitespace collapsed."""
    lowered = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", lowered).split())


def _best(instance: Instance, answer: str, rule: Callable[[str, str], bool]) -> MetricValue | None:
    golds = [r.text for r in instance.correct_references]
    if not golds:
        return None  # nothing to compare with (a jury-only benchmark): the rule does not apply
    if not answer.strip():  # HELM strips the answer, and an empty one scores 0
        return MetricValue(0.0, "")
    return MetricValue(1.0 if any(rule(gold, answer) for gold in golds) else 0.0, answer.strip()[:32])


@metric(TEXT_EXACT_MATCH, title="Exact match (HELM, free text)", task_types=TEXT_TASKS, needs=("reference",),
        follows="HELM exact_match on generation: the stripped answer equals the stripped reference")
def text_exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue | None:
    """1 when the stripped answer is exactly a correct reference, as HELM scores a generated answer."""
    return _best(instance, answer, lambda gold, pred: gold.strip() == pred.strip())


@metric(TEXT_QUASI_EXACT_MATCH, title="Quasi-exact match (HELM, free text)", task_types=TEXT_TASKS,
        needs=("reference",), follows="HELM quasi_exact_match: equal after HELM's text normalisation")
def text_quasi_exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue | None:
    """1 when the answer equals a correct reference after HELM's normalisation."""
    return _best(instance, answer, lambda gold, pred: normalise_text(gold) == normalise_text(pred))


@metric(TEXT_PREFIX_EXACT_MATCH, title="Prefix exact match (HELM, free text)", task_types=TEXT_TASKS,
        needs=("reference",), follows="HELM prefix_exact_match: the stripped answer starts with the reference")
def text_prefix_exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue | None:
    """1 when the stripped answer starts with a correct reference."""
    return _best(instance, answer, lambda gold, pred: pred.strip().startswith(gold.strip()))


@metric(TEXT_QUASI_PREFIX_EXACT_MATCH, title="Quasi-prefix exact match (HELM, free text)", task_types=TEXT_TASKS,
        needs=("reference",), follows="HELM quasi_prefix_exact_match: prefix match after HELM's normalisation")
def text_quasi_prefix_exact_match(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue | None:
    """1 when the normalised answer starts with a normalised correct reference."""
    return _best(instance, answer, lambda gold, pred: normalise_text(pred).startswith(normalise_text(gold)))
