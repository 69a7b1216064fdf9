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

from medhelm_local.metrics.extract import read_choice
from medhelm_local.metrics.reading import (
    MISMATCH,
    NO_ANSWER,
    NOT_A_LABEL,
    TWO_LABELS,
    TWO_OPTIONS,
    Unreadable,
    clean,
    nothing_read,
)
from medhelm_local.metrics.registry import LABEL_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

MACRO_F1 = "macro_f1"
_DECORATION = " \t\r\n'\"`*_.,;:!()[]{}"
_CUE = re.compile(r"\b(?:judge?ments?|answer|label|output|prediction|classification|category|verdict|result|integer)"
                  r"\b(?:\s+is)?\s*[:=\-]?\s*|^[^:\n]{1,40}:\s*", re.IGNORECASE)
# A hedge before one label ("Probably yes", "It's a maybe"): the label is still the answer.
_HEDGED = re.compile(r"^(?:probably|likely|most\s+likely|i\s+think|i\s+believe|it'?s|it\s+is)\s+(?:an?\s+)?",
                     re.IGNORECASE)
_ARTICLES = re.compile(r"(?<=\w)\s+(?:an?|the)\s+(?=\w)", re.IGNORECASE)
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


def _lettered(text: str, labels: Sequence[str]) -> str | Unreadable | None:
    """The label a letter names ("C - maybe", "(C)", "so A."), when the prompt lettered the labels."""
    letters = list(string.ascii_uppercase[:len(labels)])
    found = read_choice(text, list(labels))
    if isinstance(found, Unreadable):
        return found if found.reason in (MISMATCH, TWO_OPTIONS) else None
    return labels[letters.index(found)]


def _key(label: str) -> str:
    """A label compared without spaces and hyphens: "nonurgent" is "non-urgent"."""
    return normalise(label).replace(" ", "").replace("-", "")


def _all_lines_labels(text: str, by_norm: Mapping[str, str]) -> set[str]:
    """The labels of an answer made only of label lines ("yes\nno\nmaybe"); empty otherwise."""
    lines = [normalise(line) for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not all(line in by_norm for line in lines):
        return set()
    return {by_norm[line] for line in lines}


def read_label(text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None, *,
               lettered: bool = False) -> str | Unreadable:
    """The label a model gave (spelled as in `labels`), or why none can be read."""
    by_norm = {normalise(label): label for label in labels}
    body = clean(text)
    if len(_all_lines_labels(body, by_norm)) > 1:
        return Unreadable(TWO_LABELS)
    if lettered or all(len(label) == 1 and label.isupper() for label in labels):
        letters = _lettered(body, labels)
        if letters is not None:
            return letters
    stripped = _HEDGED.sub("", body.strip().strip(_DECORATION)).strip(_DECORATION)
    found = _match_segment(stripped, by_norm)
    if found is not None:
        return found
    keys = {_key(label): label for label in labels}
    if _key(stripped) in keys:
        return keys[_key(stripped)]
    if len(stripped) == 1 and stripped.isalpha() and not lettered:  # "Y" for yes, "N" for no
        prefixed = [label for label in labels if normalise(label).startswith(stripped.lower())]
        if len(prefixed) == 1 and not any(len(label) == 1 for label in labels):
            return prefixed[0]
    for cue in _CUE.finditer(body):
        found = _match_segment(body[cue.end():].strip().strip(_DECORATION).split("\n", 1)[0], by_norm)
        if found is not None:
            return found
    first_line = stripped.split("\n", 1)[0]
    if first_line != stripped:
        found = _match_segment(first_line, by_norm)
        if found is not None:
            return found
    named = _phrase_labels(_ARTICLES.sub(" ", body), synonyms or {})
    if len(named) == 1:
        return named.pop()
    return Unreadable(TWO_LABELS) if len(named) > 1 else _nothing(body, by_norm)


def _nothing(body: str, by_norm: Mapping[str, str]) -> Unreadable:
    """Why no label was read: two labels named, a letter or word that is no label, or nothing at all."""
    named = {label for norm, label in by_norm.items() if re.search(rf"(?<!\w){re.escape(norm)}(?!\w)",
                                                                      normalise(body))}
    if len(named) > 1:
        return Unreadable(TWO_LABELS)
    found = nothing_read(body)
    if found.reason == NO_ANSWER and len(body.strip().strip(_DECORATION).split()) == 1:
        return Unreadable(NOT_A_LABEL)
    return found


def extract_label(text: str, labels: Sequence[str], synonyms: Mapping[str, str] | None = None, *,
                  lettered: bool = False) -> str | None:
    """The label a model gave (spelled as in `labels`), or None when it names none or several."""
    found = read_label(text, labels, synonyms, lettered=lettered)
    return None if isinstance(found, Unreadable) else found


@metric(MACRO_F1, title="Macro-F1", task_types=LABEL_TASKS, needs=("labels",), aggregation="macro_f1",
        follows="scikit-learn's f1_score(average='macro') over the benchmark's label set")
def macro_f1(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """Per instance, whether the label read is the gold one; over the run, the mean of per-label F1."""
    return label_value(instance, answer, ctx)


def label_value(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """1 when the label read is the gold one; an unreadable answer scores 0 and says why in its detail."""
    found = read_label(answer, ctx.labels, ctx.synonyms, lettered=ctx.lettered)
    gold = instance.correct_references[0].text if instance.correct_references else ""
    if isinstance(found, Unreadable):
        return MetricValue(0.0, None, {"gold": gold, "read": None, "unreadable": found.reason})
    return MetricValue(1.0 if found == gold else 0.0, found, {"gold": gold, "read": found})
