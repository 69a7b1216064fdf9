"""Date validators: a numeric date must be a real date, a fraction or a score is not one (a four-digit number that
may be a clock time is read in clock_years.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from medhelm_local.redact.clock_years import four_digit_year
from medhelm_local.redact.context import Validator, cited_after_per, unit_follows, word_after, words_before
from medhelm_local.redact.name_words import WEEKDAYS
from medhelm_local.redact.place_words import CHANGE_BEFORE_TO
from medhelm_local.redact.score_checks import (
    AIR_LEAK,
    LIMBS,
    PAIN,
    SCORE_LINKS,
    graded,
    laboratory_pair,
    scored_twice,
    strength_before,
)
from medhelm_local.redact.tokens import line_cased
from medhelm_local.redact.types import PhiType

if TYPE_CHECKING:  # patterns imports the validators; the type is only named here
    from medhelm_local.redact.patterns import Rules

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


_TIMES = re.compile(r"x\d{1,2}")
# Words before a count of culture bottles: "BLD CX 2/2", "bcx 1/4", "MSSA 4/4".
_BOTTLES = frozenset({"cx", "bcx", "cxs", "cultures", "bottles", "sets", "mssa", "mrsa", "gpc", "gnr", "gpcs", "gnrs"})
# Words between an event and its date that say where or again ("ADMIT HERE 3/2", "intubated again 3/4").
_WHERE = frozenset({"here", "there", "again", "also", "previously", "prior"})
# Units and places an event happened in, between the event and its date: "SEEN IN EW 3/4", "ADMITTED TO MICU 3/2",
# "INTUBATED AT OSH 1/2" (only after a word that says when, so that "TO FLOOR 3/4 TAB" stays a fraction).
_INTO = frozenset({"in", "to", "at", "from"})
_UNITS_BETWEEN = frozenset({"ew", "ed", "er", "eu", "micu", "sicu", "ccu", "csru", "cvicu", "nicu", "icu", "tsicu",
                            "floor", "osh", "or", "pacu", "rehab", "clinic", "nh", "ir", "cath", "ctu"})
# Words right before a dash or stop month-day that make it a date: "ON 3-17", "SINCE 3-2", "HOSPITALIZED 11-02".
_WHEN_WORDS = frozenset({"on", "since", "admitted", "admit", "hospitalized", "discharged", "dated", "until", "till",
                         "planned", "scheduled", "readmitted", "transferred", "intubated", "extubated", "placed",
                         "inserted", "removed", "started", "stopped", "done", "seen", "tx'd", "txd", "xferred",
                         "xfer'd"}) | WEEKDAYS
# Endings of an operation's name that a year may follow with "in": "HELLER MYOTOMY IN 97", "colectomy in 03".
_PROCEDURES = ("ectomy", "otomy", "ostomy", "oscopy", "oplasty", "orrhaphy", "opexy")
# Verbs before a two-digit year that read as one only when no size or length can be meant (00-09, 60-99):
# "AICD PLACED 05", "PACER PLACED IN 04"; "NGT PLACED 16" stays a number.
_IMPLANTED = frozenset({"placed", "inserted", "implanted"})
# Devices a two-digit year follows only as 00-09, since a rate follows them too: "pacer 02 for chb", not "PACER 80".
_DEVICES = frozenset({"pacer", "pacemaker", "defibrillator"})
# History words a two-digit year follows without "in": "SINCE 99", "former smoker (quit 88)", "SOBER 02".
_SINCE_WORDS = frozenset({"since", "quit", "sober", "retired", "widowed"})
# Words of a history that a year follows with "in" or "since", read only as 00-09 or 60-99 as well: "LAST ADMIT IN
# 02", "HIP FX IN 98", "stent to rca in 99", "PREDNISONE SINCE 99".
_HISTORY = frozenset({"admit", "admits", "admitted", "admission", "admissions", "hospitalized", "hospitalization",
                      "hosp", "surgery", "sx",
                      "fx", "fracture", "fractured", "stroke", "seizure", "seizures", "arrest", "mvc", "fall", "injury",
                      "stented", "replaced", "replacement", "rca", "lad", "lcx", "circ", "since", "sober", "quit",
                      "smoker", "smoking", "widowed", "retired", "moved", "immigrated", "emigrated"})
# Settings of non-invasive ventilation, written inspiratory over expiratory pressure: "BIPAP AT NIGHT 10/5".
_PRESSURES = frozenset({"bipap", "bi-pap", "ipap", "niv", "nippv"})
# Parenteral nutrition products named by amino acid over dextrose: "CLINIMIX E 5/15", "clinimix 4.25/10".
_NUTRITION = frozenset({"clinimix", "kabiven", "procalamine"})


def _date_partial(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Month/day ("7/22", "11/2", "10/07"), unless a fraction or a score ("1/2 NS", "4/5 strength", "3/6")."""
    first, second = m.group().split("/")
    month, day = int(first), int(second)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    if len(second) == 2 and second[0] == "0":
        return m.start(), m.end(), PhiType.DATE  # "10/07", "1/09": no fraction is written with a zero
    if text[m.start() - 1:m.start()] == "#" and month <= day:
        return None  # "PLEX #3/5": the third of five
    before = words_before(text, m.start(), 3)
    if before and _TIMES.fullmatch(before[0]):
        before = before[1:]  # "BM X2 4/10": how many times, then when
    if graded(text, m.start(), m.end(), month, day, before):
        return None  # "GCS OF 11/15", "3/6 SEM", "4+/5 VS 5/5": a score or a grade (score_checks.py)
    if before and before[0] in _COUNTED and month <= day and before[1:2] != ["last"]:
        return None  # "IVIG DAY 3/5", "cycle 2/6", "abx day 4/14", "day 5/5": the third of five, not a date
    if before and before[0] == "pod":
        return None  # "now pod 6/4": a day after an operation counted, not a date after it
    if before and before[0] in _BOTTLES and month <= day <= 4:
        return None  # "BLD CX 2/2 GPC": two of two bottles grew
    if len(before) > 1 and before[0] in _WHERE:
        before = before[1:]  # "LAST ADMIT HERE 3/2": the event, then where, then when
    elif len(before) == 3 and before[1] in _INTO and before[0] in _UNITS_BETWEEN \
            and before[2] in rules.words("date_cues"):
        before = before[2:]  # "SEEN IN EW 3/4", "ADMITTED TO MICU 3/2": the event, the unit it happened in, then when
    if m.group() == "2/2" and re.match(r"[ \t]{1,2}[a-z]", text[m.end():m.end() + 3], re.IGNORECASE) \
            and word_after(text, m.end()) not in _AFTER_A_DATE \
            and not (before and before[0] in ("on", "since", "from", "until", "of")):
        return None  # "DILTIAZEM HELD 2/2 BP": "secondary to", the commonest fraction a nurse writes
    if month > day and any(w in _PRESSURES for w in before):
        return None  # "BIPAP AT NIGHT 10/5": inspiratory over expiratory pressure
    if any(w in _NUTRITION for w in before[:2]):
        return None  # "CLINIMIX E 5/15": amino acids over dextrose
    if before[:1] == ["to"] and before[1:2] and before[1] in CHANGE_BEFORE_TO:
        return None  # "PSV WEANED TO 5/5", "peep increased to 10/8": a setting changed to, not a date
    if before and any(w in _WEANED for w in before) and _VENT_AFTER.match(text, m.end()):
        return None  # "WEANED TO 10/5 .40": pressure support over PEEP, then the oxygen
    cue = bool(before) and (before[0] in rules.words("date_cues") or before[0] in rules.words("event_words")
                            or before[1:2] == ["last"]  # "LAST DOSE 10/12": the last of something, then when
                            or before[0] in _RESULTS  # "C DIFF NEG 2/4": a result, then when
                            or "s/p" in before[1:3]  # "S/P WHIPPLE 2/3": a procedure and when
                            or (len(before) > 1 and before[1] in _IMAGING))  # "CT ABD 3/3": a study and its part
    near = words_before(text, m.start(), 4) + words_before(text[:m.end() + 20], m.end() + 20, 3)
    if day == 7 and month < 7 and not cue and any(w in AIR_LEAK for w in near):
        return None  # "(1/7 on pleurevac)", "cough only (1/7)": an air leak, read on the chest drain's seven columns
    scores, after = rules.words("score_words"), word_after(text, m.end())
    if scored_twice(text, m.start(), m.end(), day, before):
        return None  # "5/10 WHEN COUGHING AND 4/10 AT REST", "(4/5 vs 5/5)": scores share their scale
    fraction = after in rules.words("fraction_words") or (after != "per" and unit_follows(text, m.end(), rules))
    if after in scores or fraction:
        return None  # "5/5 strength", "1/2 NS", "3/4 tab": scores and fractions, whatever comes before
    if month <= day <= 4 and after in _GROWN:
        return None  # "BCX FROM OSH 4/4 MSSA", "2/4 bottles gpc": how many bottles grew what
    if day == 10 and (not cue or any(w in PAIN for w in words_before(text, m.start(), 5))):
        return None  # "a 6/10 prompting", "relief to 3/10", "seen by ct. pain 5/10": a pain score
    if not cue:
        if before and before[0] in scores:
            return None
        if strength_before(day, before):
            return None  # "L SIDE 5/5", "R SIDED WEAKNES 4/5": a strength grade, its word typed right or not
        if day <= 10 and any(w in scores and w not in SCORE_LINKS for w in before):
            return None
        if month <= 3 and day <= 4:  # 1/2, 2/3, 3/4: fractions far more often than dates
            return None
        if month < day <= 10 and after in ("done", "complete", "completed", "sent", "positive", "neg", "negative"):
            return None  # "AFB X3 (2/3 DONE)": how many of a series, with no word before it that says when
    return m.start(), m.end(), PhiType.DATE


def _date_dash(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Month-day written with a dash or a stop ("ON 3-17", "since 3-2", "ADMITTED 3.2.06", "S/P ORIF 5.14"): only
    right after a word that says when, since the same shapes are ranges and values everywhere ("HR 80-90", "K 3.2")."""
    parts = re.split(r"[-.]", m.group())
    month, day = int(parts[0]), int(parts[1])
    if not (1 <= month <= 12 and 1 <= day <= 31) or unit_follows(text, m.end(), rules):
        return None
    before = words_before(text, m.start(), 3)
    if not text[:m.start()].rstrip(" \t:")[-1:].isalpha():
        return None  # "ON ADMIT -> 2.9": an arrow or a value between the word and the number
    if len(before) > 1 and before[0] in _WHERE:
        before = before[1:]  # "TRANSFERRED HERE 10-24"
    strong = bool(before) and before[0] in WEEKDAYS  # "SINCE TUES 3-2": no range follows a weekday
    if len(before) > 1 and before[0] in _IMAGING and before[1] in ("on", "dx", "dx'd", "since"):
        before, strong = before[1:], True  # "DX ON CTA 3-4": when, the study, then the date
    if not before or (before[0] not in _WHEN_WORDS and "s/p" not in before[1:3]) \
            or word_after(text, m.end()) in ("of", "to", "x", "times"):
        return None  # "ON 12-14 OF PS", "ON 5-10 TO KEEP MAP": a setting or a dose range
    if len(parts) == 2 and "." in m.group() and before[0] in ("on", "planned", "scheduled"):
        return None  # "PT ON 2.5 OF NEO", "ON 0.5": a rate; a stop date needs a stronger word ("ADMITTED 3.2")
    if len(parts) == 2 and "-" in m.group() and month < day <= month + 10 and parts[1][0] != "0" and not strong:
        return None  # "ON 2-4", "SINCE 8-12": read as a range, which rises by a little; "3-17", "10-3", "11-02" do not
    return m.start(), m.end(), PhiType.DATE


def _month_year2(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Month/two-digit year ("6/85", "9/96"): a month and a number no day can be."""
    month, year = (int(p) for p in m.group().split("/"))
    if not 1 <= month <= 12 or year <= 31 or unit_follows(text, m.end(), rules):
        return None
    before = words_before(text, m.start(), 1)
    if before and before[0] in _COUNTED:
        return None  # "VANCO DAY 6/42": the sixth day of 42, not June 1942
    if laboratory_pair(text, m.start(), m.end(), month, year):
        return None  # "H&H 10/32", "ANA 1/80 POSITIVE": haemoglobin over haematocrit or a titre, not a month and year
    return m.start(), m.end(), PhiType.DATE


def _event_year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A two-digit year after an event ("MI 97", "CABG in 02", "HELLER MYOTOMY IN 97"): the word before must be
    one, or a procedure's name with "in" before the year."""
    word = m.group("w").lower().rstrip("'s")
    value = m.group("v")
    year_like = value[0] == "0" or int(value) >= 60
    with_in = re.search(r"[ \t]in[ \t]", m.group(), re.IGNORECASE) is not None
    between = re.sub(r"(?i)\bin\b", "", text[m.end("w"):m.start("v")]).strip()
    if between and not year_like:
        return None  # "AVR (21 CE PERICARDIAL)", "BKA L 45": past a side, a count or a bracket, only a year's shape
    # "AICD PLACED 05", not "NGT PLACED 16"; "CABG in 02" or "last admit in 02", not "HR in 40"
    implanted = (word in _IMPLANTED or (word in _HISTORY and (with_in or word in _SINCE_WORDS))
                 or ((with_in or word in _DEVICES) and value[0] == "0")) and year_like
    procedure = word.endswith(_PROCEDURES) and (with_in or year_like)  # "thymectomy 94", "colectomy in 03"
    implanted = implanted or (word in _YEARS_ONLY_AFTER and year_like and not between)  # "BREAST CA 97", not
    # "RESECTION (91 VS 48 MMHG)"
    cited = year_like and with_in and _per_who(text, m.end(), rules)  # "SAW A DOCTOR IN 98 PER WIFE"
    if (word not in rules.words("event_words") and not procedure and not implanted and not cited) \
            or unit_follows(text, m.end(), rules):
        return None
    return m.start("v"), m.end("v"), PhiType.DATE


_PER = re.compile(r"[ \t]{1,2}per(?![a-z])", re.IGNORECASE)


def _per_who(text: str, end: int, rules: Rules) -> bool:
    """Whether "per" and who said so follow `end` ("IN 98 PER WIFE", "99 per old chart")."""
    after = _PER.match(text, end)
    return after is not None and cited_after_per(text, after.end(), rules)


# Events a value follows as often as a year ("CA 10" is calcium, "SZ 15" how long), read as one only in a year's
# shape (00-09, 60-99): "BREAST CA 97", "HX OF DT'S 98", "HIP REPLACEMENT 93".
_YEARS_ONLY_AFTER = frozenset({"ca", "sz", "szs", "dt", "dts", "replacement", "replacements", "repair", "fusion",
                               "resection", "graft", "reconstruction"})
# Endings of a disease's name that a two-digit year follows in a history: "PANCREATITIS 05", "CMV RETINITIS 97".
_DISEASES = ("itis", "osis", "oma")


def _year2_list(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Two-digit years listed after an event, a disease or a count of events ("MI X2 (94, 02)", "PRIOR INTUBATIONS
    (88, 95, 03)", "PANCREATITIS 05 AND 06"): every one of a year's shape (00-09, 60-99), since values are listed so
    too ("HR 88, 95")."""
    word = m.group("w").lower().replace(" ", "")
    values = re.findall(r"\d{2}", m.group("v"))
    if not all(v[0] == "0" or int(v) >= 60 for v in values) or unit_follows(text, m.end(), rules):
        return None
    plural = word.endswith("s") and (word[:-1] in rules.words("event_words") or word[:-1] in _HISTORY)
    event = (word in rules.words("event_words") or word in _HISTORY or plural or _TIMES.fullmatch(word) is not None
             or word.endswith(_DISEASES + _PROCEDURES) or word.endswith(("tions", "ations")))
    if not event or (_TIMES.fullmatch(word) and not re.search(r"[a-z]", text[max(0, m.start() - 12):m.start()],
                                                               re.IGNORECASE)):
        return None  # "x2 (94, 02)" only after an event's name: "MI X2 (94, 02)"
    return m.start("v"), m.end("v"), PhiType.DATE


# Words before a number with an apostrophe after it that make it feet or degrees, not a year: "AMBULATED 40'",
# "HOB UP 30'", "TMAX 99'".
_LENGTH_WORDS = frozenset({"ambulated", "amb", "ambulate", "walked", "walk", "walking", "ambulating", "feet", "ft",
                           "distance", "x", "times", "approx", "about", "of", "another", "additional",
                           "hob", "elevated", "up", "raised", "angle", "incline", "tilt", "degrees", "deg", "head",
                           "t", "temp", "tmax", "tm", "max", "temperature", "febrile", "afebrile", "to"})


def _year_after(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A two-digit year with the apostrophe after it, as history lists write it ("CABG X3 97'", "chole 81'"):
    not feet walked ("AMBULATED 40'"), and after a word or a year, not after another number ("5 10'")."""
    before = words_before(text, m.start(), 1)
    after_a_year = bool(before) and re.fullmatch(r"(?:19|20)\d\d", before[0]) is not None  # "(2003, 06')"
    if not before or before[0] in _LENGTH_WORDS or (before[0].replace(".", "").isdigit() and not after_a_year):
        return None
    if text[m.end():m.end() + 1].isdigit():
        return None  # "5'10": a height
    return m.start("v"), m.end("v"), PhiType.DATE


_ORDINAL = re.compile(r"(\d{1,2})(st|nd|rd|th)", re.IGNORECASE)
_AFTER_ORDINAL = frozenset("at of in by when until before after".split())
# Verbs after "may" that make it the modal: "bed on 7 may be ready", "3 may need".
_AFTER_THE_MODAL = frozenset("be need have go get not require benefit take come also want still help".split())
# After "on the <ordinal>" a few more words close the date's phrase: "placed on the 2nd for long term abx".
_AFTER_ON_THE_ORDINAL = frozenset("for and with w w/ to so but".split())  # "ON THE 9TH W/ FEVER"


def _ordinal_day(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """"on the 23rd", "Monday the 14th": an ordinal day closing its phrase (not "the 2nd dose")."""
    found = _ORDINAL.fullmatch(m.group("v"))
    if found is None or not 1 <= int(found.group(1)) <= 31:
        return None
    after = word_after(text, m.end())
    on_the = m.group().lower().startswith("on") or text[max(0, m.start() - 3):m.start()].lower().endswith("on ")
    if after and after not in _AFTER_ORDINAL and after[:3] not in _MONTHS \
            and not (on_the and after in _AFTER_ON_THE_ORDINAL):
        return None  # "the 2nd dose"; but "placed on the 2nd for long term abx"
    pair = _ORDINAL_PAIR.match(text, m.end())
    if pair is not None and pair.group(1).lower() in _COUNTED | _ORDERED:
        return None  # "on the 11th and 12th days", "the 20th, 25th, and 50th percentiles": counted, not dates
    return m.start("v"), m.end("v"), PhiType.DATE


_COUNTED = frozenset({"day", "cycle", "dose", "week", "round", "session", "trial", "fraction", "days", "cycles",
                      "doses", "weeks"})
# A second ordinal joined to the first, and the word after it: "the 11th and 12th days".
_ORDINAL_PAIR = re.compile(r"(?:[ \t]{0,2}(?:,|and|or|to|-|–)(?:[ \t]{0,2}and)?[ \t]{0,2}(?:the[ \t]{1,2})?"
                           r"\d{1,2}(?:st|nd|rd|th)){1,4}[ \t]{1,2}([a-z]+)", re.IGNORECASE)
# What a list of ordinals can count besides days and doses: "the 1st and 2nd toes", "9th, 10th or 11th nerve".
_ORDERED = frozenset({"toe", "toes", "finger", "fingers", "digit", "digits", "rib", "ribs", "percentile", "percentiles",
                      "nerve", "nerves", "intercostal", "ics", "space", "spaces", "vertebra", "vertebrae", "metatarsal",
                      "metatarsals", "grade", "grades", "trimester", "trimesters", "decade", "decades", "hour",
                      "hours", "month", "months", "year", "years", "cycle", "cycles", "line", "lines", "time", "times"})
# Words after a date, not after "2/2" read "secondary to": "PLACED 2/2 AT BEDSIDE", "PRESENTED 2/2 W/ HA".
_AFTER_A_DATE = frozenset({"at", "w", "with", "for", "and", "in", "on", "to", "by", "from", "am", "pm", "after",
                           "before", "per", "when", "then", "was", "were", "s/p", "via", "but", "while", "@", "w/"})
# Results written before the date they came back: "C DIFF NEG 2/4", "bcx pos 3/1".
_RESULTS = frozenset({"neg", "negative", "pos", "positive"})
# What grows in blood culture bottles, after how many of them: "4/4 MSSA", "2/4 bottles gpc".
_GROWN = frozenset({"mssa", "mrsa", "gnr", "gnrs", "gpc", "gpcs", "gpr", "vre", "staph", "strep", "ecoli", "e",
                    "klebsiella", "pseudomonas", "enterococcus", "candida", "bottles", "btls", "bottle", "yeast",
                    "cons", "coag"})
# Studies whose part may stand between them and a date: "CT ABD 3/3", "MRI C-SPINE 2/4", "US RUQ 1/3".
_IMAGING = frozenset({"ct", "cta", "mri", "mra", "cxr", "us", "echo", "tte", "tee", "kub", "xr", "xray", "ekg", "eeg"})
# What follows a ventilator's two pressures: "10/5 .40", "10/5 40%", "10/5 x 500".
_WEANED = frozenset({"to", "weaned", "wean", "ps", "psv", "cpap", "bipap", "on", "trial"})
_VENT_AFTER = re.compile(r",?[ \t]{1,2}(?:\.\d{2}|[2-9]0%|100%|x[ \t]?\d{3})")
_MONTHS = frozenset("jan feb mar apr may jun jul aug sep oct nov dec".split())


def _date_stray_dot(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A month/day/year with a stray full stop before the year ("12/03.94")."""
    month, day, _year = (int(p) for p in re.split(r"[/.]", m.group()))
    return (m.start(), m.end(), PhiType.DATE) if 1 <= month <= 12 and 1 <= day <= 31 else None


def _date_run(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Two month/day dates run together ("XRT 9/14/9/15", "9/14-9/15"): both must be real, and not two scores on
    one scale after a score word ("tof 1/4-2/4", "STRENGTH 4/5-5/5")."""
    parts = [int(p) for p in re.split(r"[/-]", m.group())]
    if not all(1 <= parts[k] <= 12 and 1 <= parts[k + 1] <= 31 for k in (0, 2)):
        return None
    before = words_before(text, m.start(), 3)
    if parts[1] == parts[3] <= 10 and before and (before[0] in rules.words("score_words")
                                                  or any(w in LIMBS for w in before)):
        return None  # "L LEG 3/5-4/5", "rue 4/5-5/5": a strength graded on one scale
    return m.start(), m.end(), PhiType.DATE


def _glued_date(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A month/day run into the study or event before it ("cxr4/12 shows", "last bm2/23"): a real date."""
    month, day = (int(p) for p in m.group("v").split("/"))
    return (m.start("v"), m.end("v"), PhiType.DATE) if 1 <= month <= 12 and 1 <= day <= 31 else None


def _month_year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    month = int(re.split(r"[/.-]", m.group())[0])
    return (m.start(), m.end(), PhiType.DATE) if 1 <= month <= 12 else None


def _month_alone(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    word = m.group()
    if word.islower() and line_cased(text, m.start()):
        return None  # a lower-case month in a line with case is the verb or adjective
    return m.start(), m.end(), PhiType.DATE


# Month abbreviations that are also words ("in dec uop", "may"): a month only where no word follows ("1.0 IN DEC)",
# "SINCE MAY."). "mar" (the medication record: "documented in mar.") and "sep" are never read alone.
_MONTHS_ALSO_WORDS = frozenset({"dec", "may"})


def _month_abbrev(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A month's abbreviation after a time word ("CREAT 1.0 IN JAN", "since oct", "LAST NOV")."""
    if m.group("v").lower() in _MONTHS_ALSO_WORDS and word_after(text, m.end()) \
            and words_before(text, m.start("v"), 1) not in (["last"], ["since"], ["early"], ["late"], ["mid"]):
        return None  # "IN MAY BE", "until dec gtt" (decrease); but "PLACED LAST MAY FOR CBD STONES"
    return m.start("v"), m.end("v"), PhiType.DATE


def _day_month(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """A day and a month ("7 MAY", "3rd of june"), unless "may" is the modal before a verb ("BED ON 7 MAY BE READY")."""
    if m.group().lower().rstrip(". ").endswith("may") and word_after(text, m.end()) in _AFTER_THE_MODAL:
        return None
    return m.start(), m.end(), PhiType.DATE


DATE_CHECKS: dict[str, Validator] = {
    "date_numeric": _date_numeric, "date_partial": _date_partial, "date_dash": _date_dash, "month_year": _month_year,
    "month_alone": _month_alone, "month_abbrev": _month_abbrev, "year": four_digit_year, "month_year2": _month_year2,
    "event_year": _event_year, "ordinal_day": _ordinal_day, "date_run": _date_run, "year_after": _year_after,
    "date_stray_dot": _date_stray_dot, "glued_date": _glued_date, "year2_list": _year2_list,
    "day_month": _day_month,
}
