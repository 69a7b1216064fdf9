"""Read a judge's reply into ratings, defensively; what cannot be read is a failure with its reason.

Judges are asked for `{criterion: {"explanation": "...", "score": N}}`, and the server's structured
output usually enforces it, but a reply is read as loosely as is safe: the JSON object may sit in a
code fence or before trailing text, keys may differ in case, a score may be a string ("4", "4/5")
or a bare number instead of an object. What is never accepted: a reply with no JSON object
(`unparseable`), a score that is not a whole point of the scale (`out_of_range`), a criterion
without a score (`missing_criterion`). Nothing is guessed for them.

A judge cannot be talked into a score by the answer it rates (HELM issue #4344). When the answer
holds anything a verdict is made of (braces, a quoted key, "score:"), the reply is read without
what it echoes of the answer: every stretch of at least `ECHO` characters copied from the answer
that carries the answer's own words, or a criterion with a score after it. The rubric's keys and
JSON punctuation alone are not an echo: every reply is made of them. So a verdict the answer wrote,
echoed before the judge's own or spliced into it by an unescaped quote and a closing brace, is
never read, and what the judge wrote around it is. A reply whose only ratings were copied from the
answer is a failure (`echoed_answer`), never a score; so is, rarely, a judge whose own verdict
matches, word for word, one the answer wrote for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from medhelm_local.annotate.rubric import Rubric

# Failures that are the judge's answer (sending it again gets the same): kept on a rerun. Transport
# failures (unreachable, timeout, http_NNN, ...) are retried on a rerun.
CONTENT_FAILURES = frozenset({"unparseable", "out_of_range", "missing_criterion", "echoed_answer"})
_SHOWN = 200  # characters of an unreadable reply kept in the (encrypted) store, to diagnose a judge
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*\d+|out of \d+|points?)?\s*$", re.IGNORECASE)
# Shorter than the smallest piece of JSON that could carry a score across ('", "score": 5}' is 14), long
# enough that a word or a number the judge happens to share with the answer is not taken for a copy.
ECHO = 8
# What a verdict is made of: an answer without any of these cannot forge one, and is left alone.
_VERDICT_SYNTAX = re.compile(r'[{}]|"\s*:|\b(?:score|rating)\b\s*[:=]', re.IGNORECASE)
_FORMAT_WORDS = "explanation|score|rating|reason|reasoning"  # the keys of a rating besides the criteria
_PLACES = 16  # places of one piece in the answer tried (a repetitive answer would make the search quadratic)


@dataclass(frozen=True)
class Reading:
    """What a reply said: ratings per criterion, or why it cannot be used (with any criteria it did rate)."""

    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)  # {criterion: {"score": n, "explanation": s}}
    error_type: str | None = None
    error_message: str | None = None

    @property
    def ok(self) -> bool:
        """True when every criterion has a score on the scale."""
        return self.error_type is None

    @property
    def mean(self) -> float | None:
        """The judge's mean over its criteria (None when the reply cannot be used)."""
        if not self.ok or not self.ratings:
            return None
        return sum(float(r["score"]) for r in self.ratings.values()) / len(self.ratings)


def _json_object(text: str) -> tuple[dict[str, Any] | None, bool]:
    """The first JSON object in the text (inside a code fence or before trailing text), or None; and whether
    an object that starts earlier failed to parse (then the one found may be a part of it)."""
    # strict=False: judges (structured output included) write raw newlines and tabs inside explanations;
    # strict parsing would fail on the whole reply and fall through to a criterion's own object.
    decoder = json.JSONDecoder(strict=False)
    start = text.find("{")
    broken = False
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            broken = True
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value, broken
        start = text.find("{", start + 1)
    return None, broken


def _score(value: Any) -> float | None:
    """A score as a number: ints, floats and numeric strings ("4", "4/5", "4 out of 5"); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _NUMBER.match(value)
        return float(match.group(1)) if match else None
    return None


def _entry(value: Any) -> tuple[Any, str]:
    """(raw score, explanation) from a criterion's value: an object, or a bare score."""
    if isinstance(value, dict):
        lowered = {str(k).lower(): v for k, v in value.items()}
        raw = lowered.get("score", lowered.get("rating"))
        explanation = lowered.get("explanation", lowered.get("reason", lowered.get("reasoning", "")))
        return raw, explanation if isinstance(explanation, str) else json.dumps(explanation)
    return value, ""


@lru_cache(maxsize=16)  # every judge of a jury reads a reply about the same answer
def _pieces(answer: str) -> dict[str, list[int]]:
    """Where each ECHO-character piece of the answer starts (at most _PLACES places a piece)."""
    index: dict[str, list[int]] = {}
    for p in range(len(answer) - ECHO + 1):
        places = index.setdefault(answer[p:p + ECHO], [])
        if len(places) < _PLACES:
            places.append(p)
    return index


def _common(reply: str, i: int, answer: str, p: int) -> int:
    """How many characters from reply[i] and answer[p] on are the same (at least ECHO, known)."""
    low, high = ECHO, min(len(reply) - i, len(answer) - p)
    while low < high:  # slices compare in C: a binary search beats a loop over characters
        middle = (low + high + 1) // 2
        if reply[i:i + middle] == answer[p:p + middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _copied_runs(reply: str, answer: str) -> list[tuple[int, int]]:
    """Spans of the reply that copy a stretch of the answer (each at least ECHO characters, the longest copy
    starting at each place, left to right)."""
    index = _pieces(answer)
    runs, i = [], 0
    while i <= len(reply) - ECHO:
        places = index.get(reply[i:i + ECHO])
        longest = max((_common(reply, i, answer, p) for p in places), default=0) if places else 0
        if longest:
            runs.append((i, i + longest))
            i += longest
        else:
            i += 1
    return runs


def _is_echo(piece: str, rubric: Rubric) -> bool:
    """Whether a copied piece carries the answer's own words, or a criterion and a score after it; the rubric's
    keys and JSON punctuation alone are what any reply is made of."""
    keys = "|".join(re.escape(c) for c in rubric.criterion_names)
    if re.search(rf'"(?:{keys})"\s*:\D*\d', piece, re.IGNORECASE):
        return True
    words = re.sub(rf"\b(?:{keys}|{_FORMAT_WORDS})\b", "", piece, flags=re.IGNORECASE)
    return re.search(r"[^\W\d_]", words) is not None


def without_echoes(reply: str, answer: str, rubric: Rubric) -> str:
    """The reply less every piece it echoes of the answer (see the module docstring); the reply itself when the
    answer holds nothing a verdict is made of."""
    if len(answer) < ECHO or not _VERDICT_SYNTAX.search(answer):
        return reply
    kept, last = [], 0
    for start, end in _copied_runs(reply, answer):
        if _is_echo(reply[start:end], rubric):
            kept.append(reply[last:start])
            last = end
    return "".join(kept) + reply[last:]


def read_reply(text: str, rubric: Rubric, answer: str = "") -> Reading:
    """The ratings in one judge reply to the answer under review, or the failure and its reason."""
    own = without_echoes(text, answer, rubric)
    if own == text:
        return _read(text, rubric)
    reading, as_written = _read(own, rubric), _read(text, rubric)
    if reading.ok or not as_written.ok:
        return reading if reading.ok else as_written
    return Reading(error_type="echoed_answer",
                   error_message="the reply's ratings were text copied from the answer under review, and without "
                                 f"it the reply holds no ratings of the judge's own ({reading.error_message})")


def _read(text: str, rubric: Rubric) -> Reading:
    found, broken = _json_object(text)
    by_name = {str(k).strip().lower(): v for k, v in (found or {}).items()}
    if found is None or (broken and not set(by_name) & set(rubric.criterion_names)):
        # Nothing, or only a piece of an object that does not parse (a criterion's own {score, explanation}).
        shown = " ".join(text.split())[:_SHOWN]
        what = "holds no JSON object" if found is None else "holds JSON that does not parse"
        return Reading(error_type="unparseable", error_message=f"the reply {what}: {shown!r}")
    low, high = rubric.scale.min, rubric.scale.max
    ratings: dict[str, dict[str, Any]] = {}
    problems: list[tuple[str, str]] = []
    for criterion in rubric.criterion_names:
        if criterion not in by_name:
            problems.append(("missing_criterion", f"no rating for {criterion}"))
            continue
        raw, explanation = _entry(by_name[criterion])
        score = _score(raw)
        if score is None:
            kind = "missing_criterion" if raw in (None, "") else "unparseable"
            problems.append((kind, f"{criterion}: the score {str(raw)[:20]!r} is not a number"))
        elif score != int(score) or not low <= score <= high:
            problems.append(("out_of_range", f"{criterion}: {score:g} is not a whole point from {low} to {high}"))
        else:
            ratings[criterion] = {"score": int(score), "explanation": explanation}
    if problems:
        # The first kind names the row; every problem is in the message.
        return Reading(ratings, problems[0][0], "; ".join(message for _, message in problems))
    return Reading(ratings)
