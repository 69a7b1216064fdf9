"""A four-digit number between 1920 and next year is a year or a clock time: nursing notes, written without case, give
times as "2000" and "1930" where text with case writes "20:00". The year validator reads the words around it."""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING

from medhelm_local.redact.context import unit_follows, words_before
from medhelm_local.redact.tokens import line_cased
from medhelm_local.redact.types import PhiType

if TYPE_CHECKING:  # patterns imports the validators; the type is only named here
    from medhelm_local.redact.patterns import Rules

_TIME_AFTER = re.compile(r"[ \t]{0,2}(?:hrs|hr|h|hours|:)(?![a-z])", re.IGNORECASE)
EARLIEST_YEAR = 1920  # no patient's history starts earlier
LATEST_YEAR = date.today().year + 1  # a later four-digit number that can be a clock time is one ("2145")
# A range's other end, after or before a four-digit number: "1930 TO 2300", "2015 and 0100", "0100-2000".
_RANGE_AFTER = re.compile(r"[ \t]{0,2}(?:-|to|and|until|till|thru)[ \t]{0,2}(?P<v>\d{4})(?!\d)", re.IGNORECASE)
_RANGE_BEFORE = re.compile(r"(?<!\d)(?P<v>\d{4})[ \t]{0,2}(?:-|to|and)[ \t]{0,2}$", re.IGNORECASE)
_PER_UNIT = re.compile(r"/[a-z]", re.IGNORECASE)  # "2000/HR", "1500/day": a rate
_FOUR_DIGITS = re.compile(r"(?<![\d/.:-])\d{4}(?![\d/.:-]\d)")
_WORD4 = re.compile(r"[^\W\d_]{4}")
_VALUE_THEN_ARROW = re.compile(r"\d{3,}[ \t]{0,2}(?:->|-->|→|=>)[ \t]{0,2}$")  # "CK 2410 -> 1980"
_MEASURE_AFTER = re.compile(r"[ \t]{1,2}\d{1,4}[ \t]?(?:cc|ml|mls)(?![a-z])", re.IGNORECASE)  # "2000 80CC"
# Words right before a four-digit number that make it a year, whatever was done before them: "REPAIRED IN 2000".
_YEAR_PREPOSITIONS = frozenset({"in", "since", "of", "from", "on", "year", "yr", "circa", "ca"})
# Words before a four-digit number that can be a clock time that make it one ("VISITED UNTIL 2030", "AFTER 2000").
_BEFORE_A_TIME = frozenset({"at", "@", "by", "around", "approx", "approximately", "until", "till", "til", "q",
                            "after", "before", "arrived", "due",  # "NEXT PTT DUE 2000"
                            # who saw the patient, then when: "SEEN BY RENAL FELLOW 1930", "per resident 2000"
                            "fellow", "resident", "attending", "intern", "team"})
# Words after which a four-digit number that can be a clock time says when something was done, read as the time
# when it is before 1960 or on a quarter hour ("HEPARIN STARTED 2000", "PROPOFOL OFF 1930", "VISITED 2000"), with
# any verb in -ed but those of a life's history ("MARRIED 1950", "DIAGNOSED 2000" stay years). "PLACED 2004" stays
# a year: a device's year is not on a quarter hour as often as a time is.
_DONE_WORDS = frozenset({"off", "given", "drawn", "done", "begun", "sent", "hung", "spirometer", "spirometry",
                         "d/c'd", "d/cd", "dc'd", "dcd", "d/ced", "dced", "d/c", "dc"})
_LIFE_EVENTS = frozenset({"married", "divorced", "widowed", "retired", "born", "immigrated", "emigrated", "moved",
                          "diagnosed", "graduated", "served", "deployed", "separated", "remarried", "adopted",
                          "hospitalized", "stented", "replaced", "fractured", "sobered", "quit"})
# Labs whose values run into the thousands, which a four-digit number after them is: "ALT 1980", "CK 2010".
_LAB_VALUES = frozenset({"alt", "ast", "sgot", "sgpt", "ck", "cpk", "ldh", "bnp", "probnp", "ferritin", "lipase",
                         "amylase", "trig", "trigs", "tg", "ggt", "alk", "plt", "plts", "fibrinogen", "ddimer",
                         "d-dimer", "lactate", "ammonia", "osm", "tsh", "cortisol", "iv", "uop", "uo", "ebl", "ivf",
                         "intake", "output", "out", "ins", "outs", "total", "net", "tf", "tfs", "predicted"})


def four_digit_year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A four-digit number of a year's shape, unless a clock time, a rate, a lab value or a spirometer's volume."""
    if unit_follows(text, m.end(), rules) or _PER_UNIT.match(text, m.end()):
        return None  # "PRISMASATE 2000/HR": a rate
    value = int(m.group())
    could_be_time = value % 100 < 60 and value < 2400
    if could_be_time and (_clock_partner(text, m) or (value % 100 % 15 == 0 and _clock_on_the_line(text, m))):
        return None  # "FROM 1930 TO 2300", "between 2015 and 0100": the other end of the range is a clock time;
        # "ECG Q4H: 2000 QRS 118 / 0000 QRS 120", "HALDOL X2 (2000, 2230)": times listed beside a time
    if _VALUE_THEN_ARROW.search(text, max(0, m.start() - 16), m.start()):
        return None  # "CK 2410 -> 1980": a value falling, not a year
    before_one = words_before(text, m.start(), 1)
    if before_one and before_one[0] in _LAB_VALUES:
        return None  # "AST 1420 ALT 1980": a lab value in the thousands, not a year
    if before_one == ["is"] and words_before(text, m.start(), 2)[1:] not in (["it"], ["this"], ["that"], ["year"]):
        return None  # "LUNGS CLEAR, IS 2000": the incentive spirometer's volume ("it is 1998" stays a year)
    before_two = words_before(text, m.start(), 2)
    born = before_one in (["born"], ["b"]) or before_two == ["in", "born"]  # "born 1914", "BORN IN 1909": a birth
    if could_be_time and (value > LATEST_YEAR or (value < EARLIEST_YEAR and not (born and value >= 1890))):
        return None  # "SHEATH PULLED 2030", "HA since 1900": clock times, not years
    if could_be_time:
        before = words_before(text, m.start(), 1)
        if _TIME_AFTER.match(text, m.end()) or (before and before[0] in _BEFORE_A_TIME) \
                or text[max(0, m.start() - 2):m.start()].rstrip(" ").endswith("@") \
                or (text[max(0, m.start() - 2):m.start()].rstrip(" ").endswith("~") and value % 100 % 15 == 0) \
                or (before and before[0] == "since" and value % 100 in (0, 30)):
            return None  # "@2000", "@ 1930", "starting ~2000", "NO BM SINCE 2000": a clock time (a year "since
            # 1995" and "TIA ~2004" stay)
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip():
            return None  # "2000 PT RESTING": a time opening a nursing-note line
        three = words_before(text, m.start(), 3)
        done = not line_cased(text, m.start()) and before and (
            _done_word(before[0]) or (len(three) == 3 and three[0] not in _YEAR_PREPOSITIONS
                                      and any(_done_word(w) for w in three[1:])))  # "INTUBATED IN ED 1930"
        if done and (value < 1960 or value % 100 % 15 == 0):
            return None  # "ALINE PLACED 2000", "TR BAND OFF 1930": when it was done that day (nursing notes,
            # written without case, give times in four digits; text with case writes "20:00" or "8 pm")
        if _MEASURE_AFTER.match(text, m.end()):
            return None  # "JP TO GRAVITY: 2000 80CC PURULENT": a time, then what was measured then
        if text[m.start() - 1:m.start()] == "(" and text[m.end():m.end() + 1] == ")" \
                and re.search(r"\d[a-z%]{0,3}[ \t]*\($", text[max(0, m.start() - 7):m.start()], re.IGNORECASE):
            return None  # "NA 112 (2000) --> 115 (0000)", "FVC 2.1L (2000)": the time of a value
    return m.start(), m.end(), PhiType.DATE


def _done_word(word: str) -> bool:
    """A word saying something was done (a past participle in -ed but a life's event, or a done-word)."""
    return word in _DONE_WORDS or (len(word) >= 5 and word.endswith("ed") and word not in _LIFE_EVENTS)


def _clock_on_the_line(text: str, m: re.Match[str]) -> bool:
    """Whether another four-digit number close by on the line, with no word of four letters between, can only be a
    clock time ("2000 QRS 118 / 0000", "(2000, 2230)"; not "CABG 2000, SEEN 0400")."""
    start = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 24)
    end = text.find("\n", m.end())
    end = min(len(text) if end < 0 else end, m.end() + 24)
    for other in _FOUR_DIGITS.finditer(text, start, end):
        value = int(other.group())
        between = text[min(m.end(), other.end()):max(m.start(), other.start())]
        if other.start() != m.start() and value % 100 < 60 and value < 2400 \
                and (value > LATEST_YEAR or value < EARLIEST_YEAR) and not _WORD4.search(between):
            return True
    return False


def _clock_partner(text: str, m: re.Match[str]) -> bool:
    """Whether the four-digit number `m` is one end of a range ("FROM 1930 TO 2300", "between 2015 and 0100", "0100
    TO 2000") whose other end can only be a clock time: minutes under 60, and after next year or before 1920."""
    after = _RANGE_AFTER.match(text, m.end())
    before = _RANGE_BEFORE.search(text, max(0, m.start() - 12), m.start())
    for other in (after, before):
        if other is not None:
            value = int(other.group("v"))
            if value % 100 < 60 and value < 2400 and (value > LATEST_YEAR or value < EARLIEST_YEAR):
                return True
    return False


