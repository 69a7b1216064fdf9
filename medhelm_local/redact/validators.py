"""The validators a regex rule can name with `check`: (text, match, rules) -> (start, end, type), or None
to drop the match. They know what a regex cannot: a date must be a real date, an IP a real address,
a number followed by a unit is a measurement, a fraction after "strength" is a score."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from medhelm_local.redact.types import PhiType

if TYPE_CHECKING:  # patterns imports this module; the type is only named here
    from medhelm_local.redact.patterns import Rules

Validator = Callable[[str, re.Match[str], "Rules"], tuple[int, int, PhiType | None] | None]


_WORD = re.compile(r"[^\W_][\w'/.&-]{0,40}")
_TRAILING = ".,;:!?)]}'\"-"
_FAX_BEFORE = re.compile(r"(?:fax|facsimile|(?<![\w])f)[ \t]{0,3}(?:no\.?|number|#)?[ \t]{0,3}[:#.]?[ \t]{0,3}$",
                         re.IGNORECASE)
_TIME_AFTER = re.compile(r"[ \t]{0,2}(?:hrs|hr|h|hours|:)(?![a-z])", re.IGNORECASE)


def _words_before(text: str, start: int, count: int) -> list[str]:
    """Up to `count` words before `start` on the same line, nearest first, lower case."""
    line_start = text.rfind("\n", 0, start) + 1
    window = text[max(line_start, start - 60):start]
    window = window[window.rfind("_") + 1:]  # a blanked mask ("[____]") hides what stood before it
    return [w.lower().rstrip(".") for w in reversed(_WORD.findall(window))][:count]


def _word_after(text: str, end: int) -> str:
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
    return _word_after(text, end) in rules.words("units")


def _trim(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    start, end = m.span()
    while end > start and text[end - 1] in _TRAILING:
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break
        end -= 1
    return (start, end, PhiType.URL if "@" not in text[start:end] else PhiType.EMAIL) if end - start >= 4 else None


def _ip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip(".")
    if ":" in value and value.count(":") < 7 and "::" not in value:
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return None
    return m.start(), m.start() + len(value), PhiType.IP


def _fax(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    before = text[max(0, m.start() - 24):m.start()]
    return m.start(), m.end(), PhiType.FAX if _FAX_BEFORE.search(before) else PhiType.PHONE


def _phone_digits(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = re.split(r"\.\s|\s\s", m.group("v"))[0].rstrip(" .-(")  # a sentence or column ends the number
    if not 7 <= sum(ch.isdigit() for ch in value) <= 15 or unit_follows(text, m.start("v") + len(value), rules):
        return None
    kind = PhiType.FAX if m.group().lower().startswith(("fax", "facsimile")) else PhiType.PHONE
    return m.start("v"), m.start("v") + len(value), kind


_PHONE_BEFORE = re.compile(r"(?<![a-z])(?:phone|ph|tel|telephone|telefono|tfno|tlf|movil|mobile|cell|pager|fax|call|"
                           r"contact|reach|reached|number|office|home|work)(?![a-z])", re.IGNORECASE)
_PHONE_AFTER = frozenset({"office", "fax", "mobile", "home", "cell", "work", "phone", "movil", "tel"})
_DATE_SHAPE = re.compile(r"(?:19|20)\d{2}[ .-]\d{1,2}[ .-]\d{1,2}|\d{1,2}[ .-]\d{1,2}[ .-](?:19|20)\d{2}")


def _phone_context(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Digit groups ("917 277 000", "28-64-66-98") are a phone only beside a phone word on the same line."""
    digits = sum(ch.isdigit() for ch in m.group())
    if not 7 <= digits <= 13 or _DATE_SHAPE.fullmatch(m.group()) or unit_follows(text, m.end(), rules):
        return None
    line_start = text.rfind("\n", 0, m.start()) + 1
    before = text[max(line_start, m.start() - 40):m.start()]
    after = (text[m.end():m.end() + 12].lstrip(" -").split() or [""])[0].lower().strip(".,;:)")
    if not (_PHONE_BEFORE.search(before) or after in _PHONE_AFTER):
        return None
    return _fax(text, m, rules)


def _iban(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip()
    compact = value.replace(" ", "")
    if len(compact) < 15 or sum(ch.isdigit() for ch in compact) < 8:
        return None
    return m.start(), m.start() + len(value), PhiType.ACCOUNT


def _date_numeric(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    sep = m.group("sep")
    parts = re.split(r"[tT]", m.group())[0].split(sep)  # "2021-07-22T14:30": the time is part of the date
    first, second, third = (int(p) for p in parts)
    if len(parts[0]) == 4:
        ok = 1 <= second <= 12 and 1 <= third <= 31
    else:
        ok = (1 <= first <= 12 and 1 <= second <= 31) or (1 <= second <= 12 and 1 <= first <= 31)
        ok = ok and (sep != "." or len(parts[2]) == 4)  # "7.35.45" is not a date; "22.07.2021" is
    return (m.start(), m.end(), PhiType.DATE) if ok else None


_FRACTION = re.compile(r"\d{1,2}/\d{1,2}")


def _date_partial(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    month, day = (int(p) for p in m.group().split("/"))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    before = _words_before(text, m.start(), 3)
    cue = bool(before) and before[0] in rules.words("date_cues")
    scores = rules.words("score_words")
    if any(_FRACTION.fullmatch(w) for w in before) and day <= 10:
        return None  # "4/5 RUE and 5/5 LUE": a fraction in a list of fractions is a score
    if _word_after(text, m.end()) in scores or (day == 10 and not cue):
        return None  # "5/5 strength", "a 6/10 prompting": scores, whatever comes before
    if not cue:
        if before and before[0] in scores:
            return None
        if day <= 10 and any(w in scores for w in before):
            return None
        if month <= 3 and day <= 4:  # 1/2, 2/3, 3/4: fractions far more often than dates
            return None
    return m.start(), m.end(), PhiType.DATE


def _month_year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    month = int(re.split(r"[/-]", m.group())[0])
    return (m.start(), m.end(), PhiType.DATE) if 1 <= month <= 12 else None


def _month_alone(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    word = m.group()
    if word.islower():
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if line != line.lower():  # a lower-case month in a cased line is the verb or adjective
            return None
    return m.start(), m.end(), PhiType.DATE


def _year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    if unit_follows(text, m.end(), rules):
        return None
    value = int(m.group())
    could_be_time = value % 100 < 60 and value < 2100
    if could_be_time:
        before = _words_before(text, m.start(), 1)
        if _TIME_AFTER.match(text, m.end()) or (before and before[0] in {"at", "@", "by", "around", "approx",
                                                                           "approximately", "until", "till", "q"}):
            return None
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip():
            return None  # "2000 PT RESTING": a time opening a nursing-note line
    return m.start(), m.end(), PhiType.DATE


def _zip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    before = _words_before(text, m.start(), 2)
    if not before or not (before[0] in rules.words("states") or before[0] in rules.words("zip_labels")
                          or " ".join(reversed(before)) in rules.words("states")):
        return None
    return m.start(), m.end(), PhiType.ZIP


def _not_measure(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    group = "v" if "v" in m.re.groupindex else 0
    return None if unit_follows(text, m.end(group), rules) else (m.start(group), m.end(group), None)


VALIDATORS: dict[str, Validator] = {
    "trim": _trim, "ip": _ip, "fax": _fax, "phone_digits": _phone_digits, "iban": _iban, "date_numeric": _date_numeric,
    "date_partial": _date_partial, "month_year": _month_year, "month_alone": _month_alone, "year": _year,
    "not_measure": _not_measure, "zip": _zip, "phone_context": _phone_context,
}
