"""Read the value a calculation answer gives: a number, a date, or a gestational age.

The value read is the one the reply gives as its answer: after the last "=" of a worked chain ("CrCl =
(140 - 68) x 78 / 86.4 = 65.0"), after "is" ("the clearance is about 62 mL/min"), or the only number left
once inputs in brackets, thresholds after "which" and digits of names (CHA2DS2-VASc, MELD 3.0, E2V3M4,
H2O) are set aside. A range ("8-9", "between 55 and 65"), two values ("3 or 4") or several numbers with
nothing to say which is the answer are unreadable, with that reason: never the first number by default.
"""

from __future__ import annotations

import re
from datetime import date

from medhelm_local.metrics.reading import NO_ANSWER, RANGE, TWO_VALUES, Unreadable, clean, nothing_read

# A number not inside a name: no letter or digit just before ("CHA2DS2", "E2", "HCO3"), none just after
# ("H2O", "2nd"). Thousands by commas or spaces ("1,850", "1 850"), a decimal point or comma ("62,4").
_NUMBER = re.compile(r"(?<![\w.,/])([-+]?)(\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?![\d.,])|\d+)"
                     r"((?:[.,]\d+)?(?:[eE][-+]?\d+)?)(?![\w])")
_NAME_VERSION = re.compile(r"\b(?:MELD|APACHE|SOFA|CURB|CHADS|HAS-BLED|qSOFA)[\s-]*\d+(?:\.\d+)?\b", re.IGNORECASE)
_BRACKETS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
# What follows the answer and only comments on it: a band, a threshold, a class.
_COMMENT = re.compile(r",\s*(?:which|that|indicating|consistent|meaning|i\.e\.)\b|;\s*that\b|\s→\s|\s->\s",
                      re.IGNORECASE)
_EQUALS = re.compile(r"=|≈|≅")
_IS = re.compile(r"\b(?:is|are|was|equals|be)\s+(?:about\s+|approximately\s+|around\s+|roughly\s+|~\s*|"
                 r"elevated\s+at\s+|estimated\s+at\s+)?(?=[-+~]?\d)", re.IGNORECASE)
_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to)\s*\d")
_OR_AFTER = re.compile(r"^\s*(?:[a-zA-Z/%·²³]+\s*)?or\s+\d")
_BETWEEN = re.compile(r"\bbetween\s+$", re.IGNORECASE)
_NEGATIVE_WORDS = re.compile(r"^\s*[a-zA-Z/%]*\s*(?:negative|deficit|loss)\b", re.IGNORECASE)
_FELL_BY = re.compile(r"\b(?:fell|dropped|decreased|declined|fallen|lower)\s+by\s+$", re.IGNORECASE)
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
          "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15}


def _value(sign: str, whole: str, rest: str) -> float:
    if rest.startswith(",") and len(rest) <= 3:  # "62,4": a decimal comma (a thousands group has three digits)
        rest = "." + rest[1:]
    return float(sign + whole.replace(",", "").replace(" ", "") + rest)


def _numbers(text: str) -> list[tuple[int, int, float]]:
    """(start, end, value) of every number that is not part of a name."""
    found = []
    for match in _NUMBER.finditer(text):
        value = _value(*match.groups())
        if _FELL_BY.search(text[:match.start()]) or (value > 0 and _NEGATIVE_WORDS.match(text[match.end():])):
            value = -value
        found.append((match.start(), match.end(), value))
    return found


def _one(text: str, numbers: list[tuple[int, int, float]]) -> float | Unreadable:
    """The first number of a stretch of text, unless it opens a range or two values."""
    start, end, value = numbers[0]
    if _RANGE_AFTER.match(text[end:]) or _BETWEEN.search(text[:start]):
        return Unreadable(RANGE)
    if _OR_AFTER.match(text[end:]):
        return Unreadable(TWO_VALUES)
    return value


def _prepare(text: str) -> str:
    body = clean(text).replace("−", "-").replace("\u2009", " ").replace("\u202f", " ")
    body = _NAME_VERSION.sub(" ", body)
    return body


def read_number(text: str) -> float | Unreadable:
    """The value the answer gives, or why none can be read."""
    body = _prepare(text)
    word = body.strip(" .!").lower()
    if word in _WORDS:
        return float(_WORDS[word])
    plain = _BRACKETS.sub(" ", body)
    if not _numbers(plain) and len({v for _, _, v in _numbers(body)}) == 1:
        plain = body  # the value only in brackets: "(24)", "str(25.238)"
    clauses = [c for c in re.split(r";|\n", plain) if c.strip()]
    equated = [c for c in clauses if _EQUALS.search(c)]
    if equated:
        last = equated[-1]
        if len(equated) == 1 or re.match(r"\s*(?:total|net|sum|overall)\b", last, re.IGNORECASE):
            after = _EQUALS.split(last)[-1]
            numbers = _numbers(after)
            if numbers:
                return _one(after, numbers)
        return Unreadable(TWO_VALUES) if len(equated) > 1 else nothing_read(body)
    head = _COMMENT.split(plain, maxsplit=1)[0]
    cued = [(m.end(), _numbers(head[m.end():])) for m in _IS.finditer(head)]
    cued = [(at, found) for at, found in cued if found]
    if cued:
        values = {_one(head[at:], found) for at, found in cued}
        return values.pop() if len(values) == 1 else Unreadable(TWO_VALUES)
    numbers = _numbers(head)
    if not numbers:
        return nothing_read(body) if _numbers(body) == [] else Unreadable(NO_ANSWER)
    if len({v for _, _, v in numbers}) == 1 or numbers[0][0] <= _lead(head):
        return _one(head, numbers)
    first = _one(head, numbers)
    if isinstance(first, Unreadable):  # "between 55 and 65", "GCS: 8-9"
        return first
    labelled = head.split(":")
    if len(labelled) == 2 and len(_numbers(labelled[1])) == 1:  # "Total: 1 850 kcal"; not a list of items
        return _one(labelled[1], _numbers(labelled[1]))
    return Unreadable(TWO_VALUES)


def _lead(text: str) -> int:
    """Where an answer that opens with its value has it: after spaces, a sign or a tilde."""
    return len(text) - len(text.lstrip(" ~≈"))


_MONTHS = {m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july",
                                           "august", "september", "october", "november", "december"))}
_SLASHED = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})(?![\d/])")
_ISO = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_WORDED = re.compile(r"\b([A-Za-z]+)\.?\s+(\d{1,2}),?\s+(\d{4})\b|\b(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\b")


def _dates(text: str) -> list[tuple[int, date | None]]:
    """(position, date) of every date written in a known form; None for one that names no real day."""
    found: list[tuple[int, date | None]] = []
    for m in _SLASHED.finditer(text):
        first, second, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        year += 2000 if year < 100 else 0
        # MM/DD as the question asks, unless the first cannot be a month ("14/08/2021").
        month, day = (second, first) if first > 12 >= second else (first, second)
        found.append((m.start(), _day(year, month, day)))
    for m in _ISO.finditer(text):
        found.append((m.start(), _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))))
    for m in _WORDED.finditer(text):
        named, day_text, year_text = ((m.group(1), m.group(2), m.group(3)) if m.group(1)
                                      else (m.group(5), m.group(4), m.group(6)))
        named_month = _MONTHS.get(named.lower())
        if named_month is not None:
            found.append((m.start(), _day(int(year_text), named_month, int(day_text))))
    return sorted(found, key=lambda f: f[0])


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def read_date(text: str) -> date | Unreadable:
    """The date the answer gives (after the last "=" when it works one out), or why none can be read."""
    body = _BRACKETS.sub(" ", clean(text))
    after = _EQUALS.split(body)[-1] if _EQUALS.search(body) else body
    dates = {d for _, d in _dates(after)}
    if not dates:
        return nothing_read(body)
    if len(dates) > 1 or None in dates:
        return Unreadable(TWO_VALUES if len(dates) > 1 else NO_ANSWER)
    found = dates.pop()
    return found if found is not None else Unreadable(NO_ANSWER)


_WEEKS_DAYS = re.compile(r"(\d+)\s*'?\s*(?:weeks?|wks?|w)'?\s*(?:,|and)?\s*'?\s*(\d+)\s*'?\s*(?:days?|d)\b'?",
                         re.IGNORECASE)
_PAIR = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
_WEEKS_ONLY = re.compile(r"(\d+)\s*(?:weeks?|wks?)\b", re.IGNORECASE)
_DAYS_ONLY = re.compile(r"(\d+)\s*days?\b", re.IGNORECASE)


def read_weeks_days(text: str) -> int | Unreadable:
    """A gestational age in days ("14 weeks, 2 days", "(14, 2)", "14w2d", "14 weeks"), or why none is read."""
    body = clean(text)
    pair = _PAIR.match(body)
    if pair:
        return int(pair.group(1)) * 7 + int(pair.group(2))
    readings = {int(w) * 7 + int(d) for w, d in _WEEKS_DAYS.findall(body)}
    if not readings:
        readings = {int(w) * 7 for w in _WEEKS_ONLY.findall(body)} or {int(d) for d in _DAYS_ONLY.findall(body)}
    else:  # "100 days (14 weeks 2 days)": a count of days that agrees is the same reading
        readings |= {int(d) for d in _DAYS_ONLY.findall(_WEEKS_DAYS.sub(" ", body))}
    if len(readings) == 1:
        return readings.pop()
    return Unreadable(TWO_VALUES) if readings else nothing_read(body)
