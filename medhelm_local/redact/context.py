"""What the validators read around a match: the words before and after it on its line, and units."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from medhelm_local.redact.types import PhiType

if TYPE_CHECKING:  # patterns imports the validators; the type is only named here
    from medhelm_local.redact.patterns import Rules

Validator = Callable[[str, re.Match[str], "Rules"], tuple[int, int, PhiType | None] | None]

_WORD = re.compile(r"[^\W_][\w'/.&-]{0,40}")


def words_before(text: str, start: int, count: int) -> list[str]:
    """Up to `count` words before `start` on the same line, nearest first, lower case."""
    line_start = text.rfind("\n", 0, start) + 1
    window = text[max(line_start, start - 60):start]
    window = window[window.rfind("_") + 1:]  # a blanked mask ("[____]") hides what stood before it
    return [w.lower().rstrip(".") for w in reversed(_WORD.findall(window))][:count]


# What a Gram stain shows, after "gram": "GRAM NEG RODS", "gram positive cocci".
_GRAM_STAIN = frozenset({"neg", "pos", "negative", "positive", "stain", "(-)", "(+)", "+", "-"})

# Who or what a "per" after a number cites instead of a rate's unit: "IN 2001 PER PT", "1998 per old records".
WHO_TOLD = frozenset({"pt", "pt's", "patient", "patient's", "family", "family's", "chart", "records", "report",
                       "old", "pcp", "osh", "hcp", "face", "the", "his", "her", "ems", "outside", "med", "medical"})


def cited_after_per(text: str, end: int, rules: Rules) -> bool:
    """Whether the word after "per" (at `end`, just past "per") is who or what a value was cited from: a relation or
    a word of WHO_TOLD ("IN 98 PER WIFE", "1914 per face sheet")."""
    who = word_after(text, end)
    return who in rules.words("relations") or who in WHO_TOLD


def word_after(text: str, end: int) -> str:
    """The word after `end` (past up to three spaces), lower case, or ''."""
    i = end
    while i < len(text) and i < end + 3 and text[i] in " \t":
        i += 1
    m = _WORD.match(text, i)
    return m.group().lower().rstrip(".,") if m else ""


def unit_follows(text: str, end: int, rules: Rules) -> bool:
    """True when a unit word or sign follows the number ending at `end` (a measurement, not an identifier)."""
    nxt = text[end:end + 1]
    if nxt in ("%", "°"):
        return True
    i = end
    while i < len(text) and i < end + 3 and text[i] in " \t":
        i += 1
    m = _WORD.match(text, i)
    if m is None or text[m.end():m.end() + 1] == ":":
        return False  # "JOB#: 71193   CC: HARRIS": a field label, not cubic centimetres
    unit = m.group().lower().rstrip(".,")
    if unit == "gram" and word_after(text, m.end()) in _GRAM_STAIN:
        return False  # "BCX FROM 2/18 GRAM NEG RODS": a Gram stain's result, not a weight
    units = rules.words("units")
    if unit == "per" and cited_after_per(text, m.end(), rules):
        return False  # "SCOPE WAS IN 2001 PER DAUGHTER": who said so, not a rate
    return unit in units or ("/" in unit and unit.split("/")[0] in units)  # "FENTANYL 2000 MCG/100 ML": a dose
