"""ROUGE-L F1: the longest common word subsequence of an answer and its reference, as MedHELM computes it.

Computed by Google's `rouge-score` (the library MedHELM uses) with its default tokenizer
(lowercase; anything but a-z and 0-9 separates words) and the Porter stemmer, so numbers
match MedHELM's `rouge_l`. Neither needs data files, so nothing is ever downloaded.
The score is the best over the correct references; an empty answer scores 0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

ROUGE_L = "rouge_l"


STEMS_CACHED = 1 << 16


@lru_cache(maxsize=1)
def _scorer() -> Any:
    # Imported on first use: it pulls in nltk, a slow import that commands scoring nothing should not pay.
    from nltk.stem import porter  # type: ignore[import-untyped]
    from rouge_score import rouge_scorer, tokenize, tokenizers  # type: ignore[import-untyped]

    class CachedStemmer:
        """nltk's Porter stemmer, remembered per word: a word always stems the same, and answers and references
        repeat words, so this gives rouge-score's own tokens at a fraction of the CPU (the stemmer was most of
        a generation run's CPU, measured with bench/jury.py)."""

        def __init__(self) -> None:
            self.stem = lru_cache(maxsize=STEMS_CACHED)(porter.PorterStemmer().stem)

    class Tokenizer(tokenizers.Tokenizer):  # type: ignore[misc]
        """rouge-score's default tokenizer (its `tokenize` function) with the remembered stemmer."""

        def __init__(self) -> None:
            self.stemmer = CachedStemmer()

        def tokenize(self, text: str) -> list[str]:
            tokens: list[str] = tokenize.tokenize(text, self.stemmer)
            return tokens

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=Tokenizer())


def _unbrace(text: str) -> str:
    # MedHELM's summarization metric drops one leading "{" and one trailing "}" before scoring.
    text = text[1:] if text.startswith("{") else text
    return text[:-1] if text.endswith("}") else text


def rouge_l(reference: str, prediction: str) -> float:
    """ROUGE-L F1 of one prediction against one reference (0 when either has no words)."""
    return float(_scorer().score(_unbrace(reference), _unbrace(prediction.strip()))["rougeL"].fmeasure)


@metric(ROUGE_L, title="ROUGE-L", task_types=TEXT_TASKS, needs=("reference",),
        follows="HELM rouge_l (Google's rouge-score, stemmed, best over the references)")
def score_rouge_l(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """ROUGE-L F1 of one answer against the best-matching correct reference."""
    references = instance.correct_references
    if not references:
        raise ValueError(f"instance {instance.id} has no correct reference to score against")
    return MetricValue(max(rouge_l(ref.text, text) for ref in references))
