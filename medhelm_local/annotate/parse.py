"""Read a judge's reply into ratings, defensively; what cannot be read is a failure with its reason.

Judges are asked for `{criterion: {"explanation": "...", "score": N}}`, and the server's structured
output usually enforces it, but a reply is read as loosely as is safe: the JSON object may sit in a
code fence or before trailing text, keys may differ in case, a score may be a string ("4", "4/5")
or a bare number instead of an object. What is never accepted: a reply with no JSON object
(`unparseable`), a score that is not a whole point of the scale (`out_of_range`), a criterion
without a score (`missing_criterion`). Nothing is guessed for them.

A judge cannot be talked into a score by the answer it rates: the reply is read without what it
echoes of the answer, and a reply whose only ratings were copied from it is a failure
(`echoed_answer`), never a score (`annotate.quoting` owns the rule, for every kind of judge).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from medhelm_local.annotate.quoting import ECHOED_ANSWER, echoed, read_own
from medhelm_local.annotate.rubric import Rubric

# Failures that are the judge's answer (sending it again gets the same): kept on a rerun. Transport
# failures (unreachable, timeout, http_NNN, ...) are retried on a rerun.
CONTENT_FAILURES = frozenset({"unparseable", "out_of_range", "missing_criterion", ECHOED_ANSWER})
_SHOWN = 200  # characters of an unreadable reply kept in the (encrypted) store, to diagnose a judge
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*\d+|out of \d+|points?)?\s*$", re.IGNORECASE)


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


def first_json_object(text: str) -> tuple[dict[str, Any] | None, bool]:
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


def read_reply(text: str, rubric: Rubric, answer: str = "") -> Reading:
    """The ratings in one judge reply to the answer under review, or the failure and its reason."""
    reading, copied = read_own(text, answer, rubric.criterion_names, lambda t: _read(t, rubric), lambda r: r.ok)
    if copied:
        return Reading(error_type=ECHOED_ANSWER, error_message=echoed("ratings", reading.error_message or ""))
    return reading


def _read(text: str, rubric: Rubric) -> Reading:
    found, broken = first_json_object(text)
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
