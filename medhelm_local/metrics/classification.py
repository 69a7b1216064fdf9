"""Classification: read which label an answer gives, and score it against the gold label.

Models answer "1", "Your judgment: 1", "**0**", "Positive, because ...", "pos", or only in words
("The answer is factual"). `extract_label` matches the answer to the label set: exactly (case-
and punctuation-insensitively), after a cue word, as the answer's first words, then as a unique
prefix of one label, then by synonym phrases. It reads a letter as a label ("B" for the second)
only when the prompt lettered the labels, so a model that answers letters to an unlettered prompt
gets no credit. An answer naming no label, or two, reads as None and scores 0, never a guess.

`macro_f1` is the unweighted mean of per-label F1 over the run (every label in the set counts,
an unreadable answer is a miss for its gold label); its per-label counts and confusion table
are the aggregate's detail.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence

from medhelm_local.metrics.extract import Ambiguous, cued_letter, lone_letter
from medhelm_local.metrics.registry import LABEL_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

MACRO_F1 = "macro_f1"
_DECORATION = " \t\r\n'\"`*_.,;:!()[]{}"
_CUE = re.compile(r"\b(?:judge?ments?|answer|label|output|prediction|classification|category|verdict)\b"
                  r"(?:\s+is)?\s*[:=\-]?\s*", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_PUNCT = str.maketrans({c: " " for c in string.punctuation.replace("-", "").replace("_", "")})
_ARTICLE = re.compile(r"^(?:a|an|the) (?=\S)")
_JOINED_ALTERNATIVE = re.compile(r"(?:or|and or|and|vs) ")  # "0 or 1", "0 and or 1", "0 vs 1"
MIN_PREFIX = 3  # a shorter prefix ("a", "po") names a label by chance too often


def normalise(text: str) -> str:
    """Lower case, punctuation as spaces, single-spaced: how answers and labels are compared."""
    return _SPACES.sub(" ", text.lower().translate(_PUNCT)).strip()


def _phrase_labels(text: str, synonyms: Mapping[str, str]) -> set[str]:
    """Labels named by whole-word phrases; longer phrases win ("not factual" before "factual")."""
    lowered = text.lower()
    taken: list[tuple[int, int]] = []
    found: set[str] = set()
    for phrase in sorted(synonyms, key=len, reverse=True):
        for match in re.finditer(rf"(?<!\w){re.escape(phrase.lower())}(?!\w)", lowered):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            found.add(synonyms[phrase])
    return found


def _match_segment(segment: str, by_norm: Mapping[str, str]) -> str | None:
    """The label a piece of answer gives: all of it, its first words, or a unique prefix of one label."""
    norm = normalise(segment)
    if not norm:
        return None
    if norm in by_norm:
        return by_norm[norm]
    norm = _ARTICLE.sub("", norm)  # "a no" as in "The answer is a no."
    if norm in by_norm:
        return by_norm[norm]
    # The answer starts with a label ("positive, because ..."): the longest such label, unless
    # another label follows as an alternative ("0 or 1", "0/1"), which names no single label.
    leading = [label for label in by_norm if norm.startswith(label + " ")]
    if leading:
        first = max(leading, key=len)
        rest = norm[len(first) + 1:]
        joined = _JOINED_ALTERNATIVE.match(rest)
        alternative = rest[joined.end():] if joined else None
        if rest in by_norm or (alternative is not None and any(
                alternative == other or alternative.startswith(other + " ") for other in by_norm)):
            return None
        return by_norm[first]
    # The answer is a unique prefix of one label ("pos" for "positive").
    if len(norm) >= MIN_PREFIX:
        prefixed = [label for label in by_norm if label.startswith(norm)]
        if len(prefixed) == 1:
            return by_norm[prefixed[0]]
    return None


def _lettered(text: str, labels: Sequence[str]) -> str | None:
    letters = string.ascii_uppercase[:len(labels)]
    letter = lone_letter(text)
    if letter is None:
        cued = cued_letter(text)
        letter = None if isinstance(cued, Ambiguous) else cued
    return labels[letters.index(letter)] if letter and letter in letters else None


def extract_label(text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None, *,
                  lettered: bool = False) -> str | None:
    """The label a model gave (spelled as in `labels`), or None when it names none or several."""
    by_norm = {normalise(label): label for label in labels}
    stripped = text.strip().strip(_DECORATION)
    found = _match_segment(stripped, by_norm)
    if found is not None:
        return found
    for cue in _CUE.finditer(text):
        found = _match_segment(text[cue.end():].strip().strip(_DECORATION).split("\n", 1)[0], by_norm)
        if found is not None:
            return found
    first_line = stripped.split("\n", 1)[0]
    if first_line != stripped:
        found = _match_segment(first_line, by_norm)
        if found is not None:
            return found
    if lettered:
        found = _lettered(text, labels)
        if found is not None:
            return found
    named = _phrase_labels(text, synonyms or {})
    return named.pop() if len(named) == 1 else None


@metric(MACRO_F1, title="Macro-F1", task_types=LABEL_TASKS, needs=("labels",), aggregation="macro_f1",
        follows="scikit-learn's f1_score(average='macro') over the benchmark's label set")
def macro_f1(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """Per instance, whether the label read is the gold one; over the run, the mean of per-label F1."""
    chosen = extract_label(answer, ctx.labels, ctx.synonyms, lettered=ctx.lettered)
    gold = instance.correct_references[0].text if instance.correct_references else ""
    return MetricValue(1.0 if chosen == gold else 0.0, chosen, {"gold": gold, "read": chosen})
