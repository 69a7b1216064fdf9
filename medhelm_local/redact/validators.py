"""The validators a regex rule can name with `check`: (text, match, rules) -> (start, end, type), or None
to drop the match. They know what a regex cannot: a date must be a real date, an IP a real address,
a number followed by a unit is a measurement, a fraction after "strength" is a score."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING

from medhelm_local.redact.context import Validator, unit_follows, words_before
from medhelm_local.redact.date_checks import DATE_CHECKS
from medhelm_local.redact.types import PhiType

if TYPE_CHECKING:  # patterns imports this module; the type is only named here
    from medhelm_local.redact.patterns import Rules

__all__ = ["VALIDATORS", "Validator", "unit_follows"]


_TRAILING = ".,;:!?)]}'\"-"
_FAX_BEFORE = re.compile(r"(?:fax|facsimile|(?<![\w])f)[ \t]{0,3}(?:no\.?|number|#)?[ \t]{0,3}[:#.]?[ \t]{0,3}$",
                         re.IGNORECASE)


def _trim(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    start, end = m.span()
    while end > start and text[end - 1] in _TRAILING:
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break
        end -= 1
    return (start, end, PhiType.URL if "@" not in text[start:end] else PhiType.EMAIL) if end - start >= 4 else None


# Endings of web addresses that are English words too, so that two sentences run together without a space read
# like an address: "NO EDEMA.HOSPITAL COURSE", "WILL MONITOR.CARE PLAN REVIEWED", "A DRESSING WAS APPLIED.IT SHOULD".
_WORD_ENDINGS = frozenset({"it", "us", "co", "de", "es", "ca", "nl", "au", "med", "care", "health", "hospital", "info",
                           "io", "biz"})
# A sentence going on after such an address, on its line: a space or a colon, then a word.
_SENTENCE_GOES_ON = re.compile(r"[ \t]{0,2}:?[ \t]{1,3}[a-z]", re.IGNORECASE)


def _domain(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A bare web address ("partners.org", "mychart.bidmc.org"), unless one word ran into the next sentence
    with a stop and no space ("EDEMA.HOSPITAL COURSE:", "monitor.care plan reviewed")."""
    found = _trim(text, m, rules)
    if found is None:
        return None
    value = text[found[0]:found[1]]
    label, _, ending = value.rpartition(".")
    if "." not in label and "/" not in ending and "@" not in value and ending.lower() in _WORD_ENDINGS \
            and label.isalpha() and _SENTENCE_GOES_ON.match(text, found[1]):
        return None
    if "/" not in ending and ending.isalpha() and all(part.isdigit() for part in label.split(".")):
        return None  # "HEMOGLOBIN OF 8.3.HOSPITAL COURSE": a value, then the next heading run into it
    return found


def _ip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip(".")
    if ":" in value and value.count(":") < 7 and "::" not in value:
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return None
    return m.start(), m.start() + len(value), PhiType.IP


# A number whose groups stand apart ("781 - 555 - 0181", "857 555 ~0174") is a phone only in the North American
# plan's shape: an area code and an exchange that start with 2-9 ("HR 140 - 160 - 1800" is a range).
_LOOSE_GROUPS = re.compile(r"\d[ \t]{1,2}[~-]|[~-][ \t]{1,2}\d|\d[ \t]{2,3}\d")
_NANP = re.compile(r"(?:\+?1\D{0,3})?\(?[2-9]\d\d\D{1,4}[2-9]\d\d\D")


_CLOCK_RANGE = re.compile(r"(?:[01]\d|2[0-3])[0-5]\d-(?:[01]\d|2[0-3])[0-5]\d(?!\d)")


def _fax(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    if _LOOSE_GROUPS.search(m.group()) and not _NANP.match(m.group()):
        return None
    if _round_range(m.group()):
        return None  # "IS Q1H AWAKE, 750-1000": a range of volumes in round numbers, not a local number
    if _CLOCK_RANGE.match(m.group()):
        return None  # "OUTPUT 0800-1400 110 CC": from one clock time to another, then a volume
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


_SHORT_EXT_BEFORE = re.compile(r"(?<![a-z])(?:phone|ph|tel|call|called|calls|reach|reached|ext|extension|pager|"
                               r"beeper|pgr|cell|number|#|x)(?![a-z])", re.IGNORECASE)


def _short_extension(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """An in-house extension written "4-7109" is a phone only with a phone word earlier on its line."""
    line_start = text.rfind("\n", 0, m.start()) + 1
    before = text[max(line_start, m.start() - 40):m.start()]
    if not _SHORT_EXT_BEFORE.search(before) or unit_follows(text, m.end(), rules):
        return None
    return m.start(), m.end(), PhiType.PHONE


def _iban(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip()
    compact = value.replace(" ", "")
    if len(compact) < 15 or sum(ch.isdigit() for ch in compact) < 8:
        return None
    return m.start(), m.start() + len(value), PhiType.ACCOUNT


def _zip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    before = words_before(text, m.start(), 2)
    if not before or not (before[0] in rules.words("states") or before[0] in rules.words("zip_labels")
                          or " ".join(reversed(before)) in rules.words("states")):
        return None
    return m.start(), m.end(), PhiType.ZIP


def _not_measure(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    group = "v" if "v" in m.re.groupindex else 0
    if unit_follows(text, m.end(group), rules) or _round_range(m.group(group)):
        return None
    return m.start(group), m.end(group), None


def _round_range(value: str) -> bool:
    """Whether a number is two round numbers (multiples of 50) joined by a dash, rising, up to 10,000: a range
    ("750-1000", "500-1500"), not a phone or a record number."""
    low, dash, high = value.partition("-")
    return bool(dash) and low.isdigit() and high.isdigit() and 100 <= int(low) < int(high) <= 10000 \
        and int(low) % 50 == 0 and int(high) % 50 == 0


_TEMPERATURE = frozenset({"t", "temp", "tmax", "tm", "tc", "temperature", "febrile", "fever", "afebrile", "of"})


# Words between a temperature's word and its value: "TEMPERATURE IS 101 F", "FEVER TO 104 F", "T MAX 101 F".
_TEMPERATURE_LINKS = frozenset({"is", "was", "to", "of", "at", "max", "up", "spiked", "peaked", "reached"})
# Rates per minute written with a slash, which read like an age and a sex: "PULSE RATE: 110/M".
_RATES = frozenset({"pulse", "hr", "rate", "rr", "resp", "respirations", "heart"})
# The other scale of the same temperature, just before or just after it: "36.8 C (98 F)", "101 F (38.3 C)".
_CELSIUS_BEFORE = re.compile(r"\d[ \t]?°?[ \t]?c[ \t]?[(\[][ \t]?$", re.IGNORECASE)
_CELSIUS_AFTER = re.compile(r"[ \t]?[(\[][ \t]?\d{2}(?:[.,]\d{1,2})?[ \t]?°?[ \t]?c(?![a-z])", re.IGNORECASE)
# A radioisotope's mass number, not an age: "technetium-99m", "Tc-99m".
_ISOTOPE_BEFORE = re.compile(r"(?<![a-z])(?:technetium|tc)[ \t]?-?[ \t]?$", re.IGNORECASE)


def _not_temperature(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    """"Edna K., 90F": an age and a sex, unless a temperature ("T 99F", "fever of 101F", "TEMPERATURE IS 101 F",
    "36.8 C (98 F)"), a rate per minute ("PULSE RATE: 110/M") or an isotope ("technetium-99m")."""
    before = words_before(text, m.start(), 3)
    if before and (before[0] in _TEMPERATURE or before[0] in _RATES):
        return None
    if before[:1] and before[0] in _TEMPERATURE_LINKS and any(w in _TEMPERATURE and w != "of" for w in before[1:]):
        return None
    head = text[max(0, m.start() - 16):m.start()]
    if _CELSIUS_BEFORE.search(head) or _ISOTOPE_BEFORE.search(head) or _CELSIUS_AFTER.match(text, m.end()):
        return None
    return m.start("v"), m.end("v"), None


def _extension(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    """"X4471", "x6-2290": an extension, unless a round volume after a bare x ("IS x1000")."""
    value = m.group("v")
    if unit_follows(text, m.end("v"), rules) or (m.group()[:1] in "xX" and value.endswith(("00", "50"))):
        return None
    return m.start("v"), m.end("v"), None


def _long_id(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    """An identifier in an unusual grouping ("431-22-90-7", "QR415/22817") holds at least six digits."""
    if sum(ch.isdigit() for ch in m.group()) < 6 or unit_follows(text, m.end(), rules):
        return None
    return m.start(), m.end(), None


# Words between "#" and a number that are no part of it: a verb, or where the phone rings ("# IS ...", "#: HM ...").
_WORD_THEN_SPACE = re.compile(r"([a-z]{2,3}) ", re.IGNORECASE)
_WORDS_BEFORE_A_NUMBER = frozenset({"is", "was", "hm", "wk", "cel", "ph", "tel", "are", "at"})


def _long_id5(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    """A value after "#" ("BAND # BB 44172", "specimen # Y4471 23 009812") is an identifier with five digits or more
    (fewer: a bed, a gauge, a count); not a measurement."""
    value = m.group("v")
    if sum(ch.isdigit() for ch in value) < 5 or unit_follows(text, m.end("v"), rules):
        return None
    word = _WORD_THEN_SPACE.match(value)
    if word is not None and word.group(1).lower() in _WORDS_BEFORE_A_NUMBER:
        return m.start("v") + word.end(), m.end("v"), None  # "# IS 239-555-0140", "#: HM 351-555-0162": the number
    return m.start("v"), m.end("v"), None


VALIDATORS: dict[str, Validator] = {
    "trim": _trim, "ip": _ip, "fax": _fax, "phone_digits": _phone_digits, "iban": _iban, "not_measure": _not_measure,
    "zip": _zip, "phone_context": _phone_context, "long_id": _long_id, "extension": _extension,
    "not_temperature": _not_temperature, "domain": _domain, "short_extension": _short_extension, "long_id5": _long_id5,
    **DATE_CHECKS,
}
