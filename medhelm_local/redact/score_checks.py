"""Fractions that are scores, grades and laboratory pairs, not dates: a coma or memory score out of its scale's maximum
("GCS 11/15", "MMSE 24/30"), a strength grade ("4/5 RUE"), a murmur's ("3/6 SEM"), a pain score ("5/10"), lymph nodes
counted ("NODES 1/21"), haemoglobin over haematocrit ("H&H 10/32") and a titre ("ANA 1/80"). date_checks.py asks
these before it reads a month/day or a month/two-digit year as a date."""

from __future__ import annotations

import re

from medhelm_local.redact.context import word_after, words_before

FRACTION = re.compile(r"\d{1,2}/\d{1,2}")
# Another fraction on the same scale within two words after: "4/5 vs 5/5", "2/5 AND 1/5".
_SAME_SCALE_AFTER = re.compile(r"[ \t,;]{1,3}(?:[A-Za-z]{1,4}[ \t,;]{1,3}){0,2}\d{1,2}/(\d{1,2})(?![\w/])")
# Words before an N/10 that make it a pain score even after a cue word ("relief to 3/10").
PAIN = frozenset({"pain", "relief", "discomfort", "painful", "ache", "aching", "ha", "headache", "cp", "incisional",
                  "relieved", "decreased", "improved", "reduced"})
# Words around an air leak graded on a chest drain's seven columns: "AIR LEAK 2/7", "(1/7 on pleurevac)".
AIR_LEAK = frozenset({"leak", "airleak", "cough", "coughing", "pleurevac", "atrium", "bubbling", "ct", "cts"})
# Scales a score is written out of, by their maximum, and the words between the scale's name and the score:
# "GCS OF 11/15", "GLASGOW COMA SCALE WAS 9/15", "MMSE 24/30", "moca: 26/30".
_SCALE_MAXIMA = {15: frozenset({"gcs", "glasgow", "coma", "scale"}),
                 30: frozenset({"mmse", "moca", "slums", "folstein", "mini-mental", "cognitive", "mental"})}
_SCALE_LINKS = frozenset({"of", "was", "is", "were", "now", "score", "scale", "scored", "at"})
# Words before a count of lymph nodes: "NODES 1/21 POSITIVE".
_NODES = frozenset({"node", "nodes", "ln", "lns", "lymph"})
# Words that make the fraction after them a score: "SCORED 10/11", "GAIT SCORE OF 11/12".
_SCORED = frozenset({"scored", "scoring", "score"})
# Words before a strength grade in a list of them: "5/5 IN THE RIGHT ARM AND 4/5 IN THE LEFT".
_LIST_LINKS = frozenset({"and", "with", "was", "is", "are", "were", "of", "to", "but", "vs", "versus", "only",
                         "about", "approximately"})
# Words after a murmur's grade out of six: "A 3/6 PANSYSTOLIC MURMUR", "2/6 CONTINUOUS SHUNT TYPE OF MURMUR".
_MURMURS = frozenset({"murmur", "murmurs", "sem", "hsm", "pansystolic", "holosystolic", "systolic", "diastolic"})
# The words after a strength grade, where the limb it was read on is named (LIMBS, below).
_GRADED_AFTER = re.compile(r"(?<![a-z])[a-z]+(?![a-z])", re.IGNORECASE)
# Endings of the words for a weakness of limbs, before a strength grade: "PARAPARESIS PROGRESSED (3/5)".
_PALSIES = ("paresis", "paretic", "plegia", "plegic")
# Haemoglobin over haematocrit, written just before the pair: "H&H 10/32", "HGB/HCT 9.8/29".
_BLOOD_COUNT_BEFORE = re.compile(r"(?:\bh[ \t]?[&/][ \t]?h|\bhct|\bhgb/hct|\bhb/hct)[ \t:=]{0,3}$", re.IGNORECASE)
# Dilutions written as one over a number, and the words around a titre: "ANA 1/80 POSITIVE", "titer 1/40".
_DILUTIONS = frozenset({32, 40, 64, 80})
_TITRE_WORDS = frozenset({"ana", "titer", "titre", "titers", "titres", "dilution", "antibodies", "antibody", "positive",
                          "pos", "negative", "neg", "speckled", "homogeneous", "homogenous", "nucleolar", "rf", "anca",
                          "dsdna", "ds-dna"})
# A score on the same scale just before, with its sign: "4+/5 THIS AM VS 5/5", "3-/5 prox, 4/5".
_SIGNED_SCORE_BEFORE = re.compile(r"\d[+-]/(\d{1,2})(?!\d)[^\n]{0,30}$")
# The words of a strength grade a hurried hand mistypes before it: "R SIDED WEAKNES 4/5", "BLE STRENGHT 5/5".
_STRENGTH_WORDS = frozenset({"weakness", "strength", "weaker", "motor", "power"})
# Words before an N/5 that make it a strength grade when no date cue is there: "SLIGHTLY WEAKER 4/5", "L SIDE 5/5",
# "ue 3/5 prox" (only /5: "R HIP FX 3/4" is a date).
_STRENGTH = frozenset({"weak", "weaker", "grips", "side", "sides", "prox", "proximal", "dist", "distal", "ue", "le",
                       "rue", "lue", "rle", "lle", "ues", "les", "upper", "lower", "extremity", "extremities",
                       "otherwise", "equal", "drift", "grasp", "grasps", "hand", "hands", "arm", "leg", "hip", "knee",
                       "ankle", "foot", "shoulder", "wrist", "ext", "exts", "extrems", "handgrip", "grip"})
SCORE_LINKS = frozenset({"of", "out", "x"})  # score words only right after the number ("5/5 x 4 limbs")
# Limbs and what a strength grade is read on: "L LEG 3/5-4/5", "RUE 4/5-5/5", "grips 4/5-5/5", "3/5 IN THE LEFT UPPER
# AND LOWER EXTREMITIES".
LIMBS = frozenset({"arm", "arms", "leg", "legs", "rue", "lue", "rle", "lle", "ue", "le", "ues", "les", "bue", "ble",
                   "ext", "extremities", "extremity", "grip", "grips", "hand", "hands", "foot", "feet", "strength",
                   "motor", "deltoid", "deltoids", "biceps", "triceps", "quads", "hip", "hips", "df", "pf", "upper",
                   "lower", "bilaterally", "ankle", "ankles", "knee", "knees", "shoulder", "shoulders", "wrist",
                   "wrists", "elbow", "elbows", "handgrip", "plantar", "dorsiflexion", "flexion", "extension",
                   "abduction", "adduction", "shrug"})


def graded(text: str, start: int, end: int, month: int, day: int, before: list[str]) -> bool:
    """Whether the month/day-shaped fraction text[start:end] is a score or a grade whatever word says when before it:
    `before` holds the lower-case words before it, nearest first."""
    scale = _SCALE_MAXIMA.get(day, frozenset())
    if before and (before[0] in scale or (before[0] in _SCALE_LINKS and any(w in scale for w in before[1:]))):
        return True  # "GCS OF 11/15", "coma scale was 9/15", "MMSE 24/30": a score out of its scale's maximum
    if before and before[0] in _NODES and month <= day:
        return True  # "NODES 1/21 POSITIVE": how many lymph nodes of those taken
    if text[start - 1:start] == "+" and day <= 5:
        return True  # "+3/5 ON THE RIGHT VERSUS +4/5": a strength grade with its sign before it
    if day == 6 and any(w.lower() in _MURMURS for w in _GRADED_AFTER.findall(text, end, end + 40)):
        return True  # "A 3/6 PANSYSTOLIC MURMUR": a murmur graded out of six
    if before and (before[0] in _SCORED or (before[0] in _SCALE_LINKS and before[1:2] and before[1] in _SCORED)):
        return True  # "GAIT SCORE OF 11/12", "SCORED 10/11 IN PHYSICAL DOMAIN": a score, whatever its scale
    if day == 5 and month <= 5 and (not before or before[0] in _LIST_LINKS) \
            and any(w.lower() in LIMBS for w in _GRADED_AFTER.findall(text, end, end + 40)):
        return True  # "AND 3/5 IN THE LEFT UPPER AND LOWER EXTREMITIES": a strength grade, the limb after it
    signed = _SIGNED_SCORE_BEFORE.search(text, max(0, start - 40), start)
    # "4+/5 THIS AM VS 5/5": a strength grade after a signed one
    return day <= 10 and signed is not None and signed.group(1) == str(day)


def scored_twice(text: str, start: int, end: int, day: int, before: list[str]) -> bool:
    """Whether the fraction text[start:end] shares its scale with another one near it, as scores do and a list of
    dates does not: "4/5 RUE and 5/5 LUE", "(4/5 vs 5/5)"."""
    if day in (5, 10) and before[:1] != ["on"] and any(FRACTION.fullmatch(w) and w.endswith(f"/{day}")
                                                       for w in words_before(text, start, 6)[3:]):
        return True  # "NRS SCORES WERE 5/10 WHEN COUGHING AND 4/10 AT REST", "4/5 ON THE LEFT AND 5/5 ON THE
        # RIGHT": pain or strength scored twice in a sentence
    same_scale = _SAME_SCALE_AFTER.match(text, end)
    return day <= 10 and (any(FRACTION.fullmatch(w) and w.split("/")[1] == str(day) for w in before)
                          or (same_scale is not None and same_scale.group(1) == str(day)))


def strength_before(day: int, before: list[str]) -> bool:
    """Whether a word before an N/5 makes it a strength grade, its word typed right or not: "L SIDE 5/5",
    "R SIDED WEAKNES 4/5", "PARAPARESIS PROGRESSED (3/5)"."""
    return day == 5 and any(w in _STRENGTH or _slip_of(w, _STRENGTH_WORDS) or w.endswith(_PALSIES) for w in before)


def laboratory_pair(text: str, start: int, end: int, month: int, year: int) -> bool:
    """Whether a month/two-digit-year shape is haemoglobin over haematocrit ("H&H 10/32", "HGB/HCT 9.8/29") or a
    dilution ("ANA 1/80 POSITIVE", "titer 1/40"), not October 1932 or January 1980."""
    if _BLOOD_COUNT_BEFORE.search(text, max(0, start - 12), start):
        return True
    return month == 1 and year in _DILUTIONS and (word_after(text, end) in _TITRE_WORDS
                                                  or any(w in _TITRE_WORDS for w in words_before(text, start, 3)))


def _slip_of(word: str, targets: frozenset[str]) -> bool:
    """Whether a word of five letters or more is one slip of the keyboard (a letter dropped, added, struck for
    another, or two swapped) from a word of `targets`: "weaknes", "strenght"."""
    if len(word) < 5 or word in targets:
        return False
    for target in targets:
        if abs(len(target) - len(word)) > 1:
            continue
        if len(target) == len(word):
            diff = [k for k in range(len(word)) if word[k] != target[k]]
            if len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == target[diff[1]] and word[diff[1]] == target[diff[0]]):
                return True
        else:
            short, long_ = (word, target) if len(word) < len(target) else (target, word)
            if any(long_[:k] + long_[k + 1:] == short for k in range(len(long_))):
                return True
    return False
