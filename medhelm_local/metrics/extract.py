"""Read an answer out of free model text: option letters, numbers, dates, (weeks, days) tuples.

Models answer "B", "(B)", "Answer: B", "The answer is B. Ceftriaxone", or the option's words
("yes", "maybe"). Each reader returns None when it finds no answer, never a guess.
"""

from __future__ import annotations

import re
from datetime import date
from itertools import pairwise

# "answer is B", "Answer: b", "answer is (a)"; the letter as written, so an article can be told apart.
_ANSWER_IS = re.compile(r"\banswer\s*(?:is|:|-)?\s*(?:option\s*)?(\()?([A-Za-z])(\))?(?![A-Za-z])", re.IGNORECASE)
# "B", "(B)", "B.", "B) ..." but not "A patient ..." (the article) or "I think ..." (the pronoun).
_LONE_LETTER = re.compile(r"^\s*(?:\(([A-Z])\)|([A-Z])(?:[.):]|\s*$))")
# After a lower-case letter: punctuation or the end make it a letter ("answer: b."), a word an article.
_ENDS_LETTER = re.compile(r"\s*(?:[.):,;]|$)")
# "A or B", "yes/no", "either 0 or 1": two answers joined, which is no answer.
_ALTERNATIVE = re.compile(r"\s*,?\s*(?:[Oo][Rr]|and/or|/)\s*(?:\([A-Za-z]\)|[A-Z](?![A-Za-z]))")
_JOINED = re.compile(r"^\W*(?:or|and/or|/)\W*$", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|isn't|rather\s+than|instead\s+of)\s+(?:the\s+|option\s+)?$", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+")
_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_WEEKS_DAYS = re.compile(r"(\d+)\s*'?\s*weeks?'?\s*,?\s*'?\s*(\d+)\s*'?\s*days?", re.IGNORECASE)


class Ambiguous:
    """Marks an answer that names two choices ("A or B"): no answer, and no later rule may guess one."""


AMBIGUOUS = Ambiguous()


def lone_letter(text: str) -> str | None:
    """The letter an answer consists of ("B", "(B).", "B) Ceftriaxone"), or None."""
    found = _LONE_LETTER.match(text)
    return (found.group(1) or found.group(2)) if found else None


def cued_letter(text: str) -> str | Ambiguous | None:
    """The letter after "answer is" / "Answer:", upper-cased; AMBIGUOUS for "answer is A or B"; else None.

    A lower-case letter followed by a word is an article or pronoun ("The answer is a no."), not a
    choice; in parentheses or before punctuation it is one ("answer: b", "answer is (a)").
    """
    for found in _ANSWER_IS.finditer(text):
        letter, in_parentheses = found.group(2), bool(found.group(1) or found.group(3))
        rest = text[found.end():]
        if letter.islower() and not in_parentheses and not _ENDS_LETTER.match(rest):
            continue
        if _ALTERNATIVE.match(rest):
            return AMBIGUOUS
        return letter.upper()
    return None


def _named_options(text: str, options: list[str]) -> list[tuple[int, int, int]]:
    """(start, end, option index) of every whole-word mention of an option that is not negated."""
    lowered = text.lower()
    named = []
    for index, option in enumerate(options):
        words = option.strip().lower()
        if not words:
            continue
        for found in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", lowered):
            if not _NEGATED.search(lowered[:found.start()]):
                named.append((found.start(), found.end(), index))
    return sorted(named)


def extract_choice(text: str, options: list[str]) -> str | None:
    """The letter of the option a model chose, or None.

    Tries, in order: a lone letter ("B", "(B).", "B) ..."), "answer is B" / "Answer: B", then the
    text of the options as whole words, leaving out negated ones ("not maybe"): one option named
    is the answer, several named are read as the first unless joined as alternatives ("yes or no"),
    which is no answer.
    """
    letters = [chr(ord("A") + i) for i in range(len(options))]
    stripped = text.strip()
    letter = lone_letter(stripped)
    if letter in letters:
        return letter
    cued = cued_letter(stripped)
    if isinstance(cued, Ambiguous):
        return None
    if cued in letters:
        return cued
    named = _named_options(stripped, options)
    if len({index for _, _, index in named}) > 1 and any(
            first[2] != second[2] and _JOINED.match(stripped[first[1]:second[0]])
            for first, second in pairwise(named)):
        return None
    return letters[named[0][2]] if named else None


def extract_number(text: str) -> float | None:
    """The first number in the text ("1,234.5", "-3", "2.1e3"), or None."""
    match = _NUMBER.search(text)
    if not match:
        return None
    try:
        return float(match.group(0).replace(",", ""))
    except ValueError:
        return None


def extract_date(text: str) -> date | None:
    """The first MM/DD/YYYY date in the text, or None (also for impossible dates)."""
    match = _DATE.search(text)
    if not match:
        return None
    month, day, year = (int(g) for g in match.groups())
    try:
        return date(year, month, day)
    except ValueError:
        return None


def extract_weeks_days(text: str) -> int | None:
    """A gestational age written as weeks and days, e.g. "('3 weeks', '4 days')", in days; or None."""
    match = _WEEKS_DAYS.search(text)
    if not match:
        return None
    return int(match.group(1)) * 7 + int(match.group(2))
