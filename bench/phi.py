"""PHI detection quality and speed: token-level recall and precision per identifier type, per set.

Sets (bench/phi_sets.py): (a) the HAND-ANNOTATED INDEPENDENT set, 44 clinical notes written by hand in
the styles real notes are written in (tests/data/phi_notes/README.md), measured only: no rule was
chosen by reading its errors; (b) the hand-annotated DEVELOPMENT set, same styles, different notes,
used for tuning (`--show-errors dev` lists its misses and false alarms), DEV2, 44 ICU nursing notes written
for issue 32's miss and false-alarm classes, and DEV3, 68 more written for its second round, tuned on too
(`--show-errors dev2`, `--show-errors dev3`), and DEV4, 32 short ICU nursing notes for its third round
(`--show-errors dev4`), and DEV5, 80 full-shift ICU nursing notes with identifiers as sparse as real notes hold them,
by a hand that had not seen the rules, for the sixth round (`--show-errors dev5`); (b2) HELDOUT2, 130 ICU notes (all
capitals, lower case, and mixed case in a second hand) written by someone who never read the rules, measured
only, with figures per style and never a list of misses; (b3) HELDOUT3, 160 ICU nursing notes (half all capitals,
most of the rest lower case) written by a third hand that read neither the rules nor the other held-out sets, measured
the same way (aggregate and per-style figures, never a miss); (b4) HELDOUT4, 45 short ICU nursing notes in
issue 32's miss and false-alarm classes, written and measured before the third round's rules changed, measured
only the same way; (b5) HELDOUT5, 120 ICU nursing notes (50 all capitals, 50 lower case, 20 mixed case) by a
fourth hand that read neither the rules nor the other sets' notes, measured the same way; (b6) HELDOUT6, 80 full-shift
ICU nursing notes (45 all capitals, 35 lower case, ~225 words each) with identifiers as sparse as real notes hold them
(10 marked spans per 1,000 words, a quarter of the notes none), by a fifth hand, measured the same way: the set whose
precision speaks for real notes, since the same false alarms cost more precision where there is less PHI, and
(b7) HELDOUT7 to (b21) HELDOUT21, more such notes by a sixth to a twentieth hand (72 notes in HELDOUT10), measured
the same way; DEV6 to DEV13, more such notes for tuning, and DEV14 to DEV23, 80 full-shift notes each holding
identifiers densely (about 25 per 1,000 words: places; numbers, dates and people in loose shapes; people; wards,
transfers and dates; the loosest shapes, mostly in lower case; social and dispo lines; units and moves; false friends
of identifiers beside real ones; cardiac surgery recovery; neuro and trauma) for the seventh round;
(c) presidio_synth_pii (general PII, MIT) and (d) meddocan_es (Spanish clinical, CC BY 4.0), each split into a
development half (even presidio items, first MEDDOCAN files by name) and a HELD-OUT half that is only measured;
(e) ACI-Bench dialogue transcripts (CC BY 4.0, names only); (f) MedBullets vignettes (no PHI: every
flag is a false alarm unless an age over 89); (f2) CAPS_NEGATIVES (bench/phi_negatives.py): public clinical text
with no real PHI (MedBullets, MedXpertQA, SCT-Bench, MEDEC, MTSamples, MedCalc-Bench) in its own case, in capitals and
in lower case, split by SHA-256 into a tuning half (`--show-negatives` lists its flagged strings) and a measuring half
(figures only): name-like flags (NAME, HOSPITAL, CITY, STREET) per 1,000 tokens; (g) the synthetic notes of
tests/support/synthetic_notes.py, written alongside the detector, so an upper bound. Public sets are read
from ../shared/datasets.

Tokens are runs of letters and digits. A gold token is recalled when any predicted span covers it,
whatever type the detector gave it (redaction hides it either way); precision is the share of
predicted tokens inside gold PHI (per detector type too). Gold types that Safe Harbor does not
require removing (countries, organisations, ages under 90, sex) and neutral marks are scored neither
way. Speed is notes per CPU-second of detection, rules loaded beforehand, repeated to >= 1 CPU-second.
Targets on independent clinical text: recall >= 0.95 overall, >= 0.98 for dates, phones and ids;
precision >= 0.80; >= 200 notes per CPU-second; a pathological 1 KB note in milliseconds.
Prints, last:  independent_recall R independent_precision P notes_per_cpu_second N   (set (a) only).
Run: .venv/bin/python bench/phi.py
       [--sets independent,dev,dev2,dev3,dev4,dev5,dev6,dev7,dev8,dev9,dev10,dev11,dev12,dev13,dev14,dev15,dev16,
               dev17,dev18,dev19,dev20,dev21,dev22,dev23,heldout2,heldout3,heldout4,heldout5,heldout6,heldout7,heldout8,heldout9,heldout10,heldout11,
               heldout12,heldout13,heldout14,heldout15,heldout16,heldout17,heldout18,heldout19,heldout20,heldout21,
               dev24,...,dev29,heldout22,...,heldout35,dev30,...,dev39,heldout36,...,heldout57,
               dev40,...,dev43,heldout58,...,heldout61,dev44,dev45,heldout62,...,heldout65,dev46,...,dev50,
               heldout66,...,heldout72,dev51,...,dev58,heldout73,...,heldout82,
               dev59,...,dev68,heldout83,...,heldout90,
               presidio,meddocan,aci,vignettes,caps_negatives,synthetic]
       [--show-negatives]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

import phi_negatives
import phi_sets
from phi_sets import SHARED, Doc
from support.phi_scoring import GROUPS, TOKEN, Tally

from medhelm_local.redact.detector import Detector, detector_for
from medhelm_local.settings import default_redaction_dir

ALL_SETS = ("independent,dev,dev2,dev3,dev4,dev5,dev6,dev7,dev8,dev9,dev10,dev11,dev12,dev13,dev14,dev15,dev16,"
            "dev17,dev18,dev19,dev20,dev21,dev22,dev23,heldout2,heldout3,heldout4,heldout5,heldout6,heldout7,heldout8,heldout9,heldout10,heldout11,"
            "heldout12,heldout13,heldout14,heldout15,heldout16,heldout17,heldout18,heldout19,heldout20,heldout21,"
            "dev24,dev25,dev26,dev27,dev28,dev29,heldout22,heldout23,heldout24,heldout25,heldout26,heldout27,heldout28,"
            "heldout29,heldout30,heldout31,heldout32,heldout33,heldout34,heldout35,"
            "dev30,dev31,dev32,dev33,dev34,dev35,dev36,dev37,dev38,dev39,heldout36,heldout37,heldout38,heldout39,"
            "heldout40,heldout41,heldout42,heldout43,heldout44,heldout45,heldout46,heldout47,heldout48,heldout49,"
            "heldout50,heldout51,heldout52,heldout53,heldout54,heldout55,heldout56,heldout57,"
            "dev40,dev41,dev42,dev43,heldout58,heldout59,heldout60,heldout61,dev44,dev45,heldout62,heldout63,"
            "heldout64,heldout65,dev46,dev47,dev48,dev49,dev50,heldout66,heldout67,heldout68,heldout69,heldout70,"
            "heldout71,heldout72,dev51,dev52,dev53,dev54,heldout73,heldout74,heldout75,heldout76,"
            "heldout77,heldout78,dev55,dev56,dev57,dev58,heldout79,heldout80,"
            "heldout81,heldout82,dev59,dev60,dev61,dev62,heldout83,heldout84,heldout85,heldout86,dev63,dev64,"
            "dev65,dev66,heldout87,heldout88,dev67,dev68,heldout89,heldout90,"
            "presidio,meddocan,aci,vignettes,caps_negatives,synthetic")
# The eighth round's development sets: 40 notes in capitals and 40 in lower case, identifiers dense, each its emphasis.
EIGHTH_ROUND_DEV = {"dev24": "people around the patient", "dev25": "places", "dev26": "numbers and dates",
                    "dev27": "slips of the keyboard", "dev28": "hospitals, wards and services",
                    "dev29": "sign-offs and staff"}
# The ninth round's: 40 notes in capitals and 40 in lower case, identifiers dense, each its emphasis; dev33 (45 in
# capitals, 35 in lower case) holds few identifiers among jargon and slips, to find false alarms.
NINTH_ROUND_DEV = {"dev30": "facilities no list holds, places typed with slips", "dev31": "initials and short names",
                   "dev32": "wards and units", "dev33": "false alarms: sparse identifiers among jargon and slips",
                   "dev34": "identifiers typed with slips", "dev35": "families, friends and short names",
                   "dev36": "numbers and dates", "dev37": "places far away, other states and countries",
                   "dev38": "terse hands", "dev39": "run-on paragraphs"}
# The tenth round's: 80 notes each, identifiers dense, for issue 32's miss classes on real notes.
TENTH_ROUND_DEV = {"dev40": "outside facilities, cut short, abbreviated and far away",
                   "dev41": "numbers that identify, in loose formats, among numbers that do not",
                   "dev42": "wards, floors and buildings named after people and places",
                   "dev43": "people in lower case and capitals after every kind of cue"}
# The eleventh round's: 80 notes each, identifiers sparse among the hard negatives real notes are dense in, for issue
# 32's false alarms.
ELEVENTH_ROUND_DEV = {"dev44": "false alarms: devices, eponyms, staff roles and services, 60 in capitals",
                      "dev45": "false alarms: drugs, numbers in every shape, words that are also names, 55 in lower "
                               "case"}
# The twelfth round's: 80 notes each, identifiers sparse but in dev49, each with its emphasis.
TWELFTH_ROUND_DEV = {"dev46": "the places real notes name, among words that only look like places",
                     "dev47": "false alarms in the lists and shorthand real notes are made of, 50 in capitals",
                     "dev48": "slips of the keyboard in identifiers and words alike, 50 in lower case",
                     "dev49": "names from everywhere Boston's patients come from, a little denser",
                     "dev50": "notes pasted from the chart: flowsheets, tables, lists and scores, 50 in capitals"}
# The thirteenth round's: 80 notes each, identifiers sparse but in dev51 and dev54, each with its emphasis.
THIRTEENTH_ROUND_DEV = {"dev51": "the people around a patient, many named with everyday words, a little denser",
                        "dev52": "the places of a patient's life outside hospitals: towns, shelters, landmarks, "
                                 "streets, 45 in capitals",
                        "dev53": "dates in every shape a hurried hand types, among numbers that only look like dates",
                        "dev54": "a long stay's paperwork: proxies, courts, insurers, record numbers, serials, "
                                 "a little denser",
                        "dev55": "wards, units and outside hospitals written every way, 45 in capitals",
                        "dev56": "loose phone and pager numbers, two-digit years in histories, relatives by first name "
                                 "or family name, 45 in lower case",
                        "dev57": "short dates after events, names after cue words, long facility names, 45 in lower "
                                 "case",
                        "dev58": "false alarms: devices, brands, eponyms and words that are surnames in a cardiac ICU, "
                                 "60 in capitals"}

# The fourteenth round's: 80 notes each, identifiers sparse (dev62 sparser still), each with its emphasis.
FOURTEENTH_ROUND_DEV = {"dev59": "the places a Boston-area ICU names: outside hospitals, rehabs, towns and wards, 45 "
                                 "in capitals",
                        "dev60": "places typed carelessly: facilities cut short, towns with or without a cue, wards, "
                                 "60 in lower case",
                        "dev61": "the people around a patient as nurses write them, among words that are names too",
                        "dev62": "false alarms in everyday shorthand, brands, eponyms and words that could be names, "
                                 "sparser, 60 in capitals",
                        "dev63": "loose phones and pagers, two-digit years, short dates after events, initials, "
                                 "facility names cut short",
                        "dev64": "slips of the keyboard every few lines, in identifiers and words alike",
                        "dev65": "places far from Boston: hospitals, towns, hotels and airports across the country and "
                                 "abroad, 45 in capitals",
                        "dev66": "the family and social lines in their densest shorthand, with phones beside them, 45 "
                                 "in lower case",
                        "dev67": "past histories with two-digit years in every shape and relatives in the social line, "
                                 "50 in capitals",
                        "dev68": "moves within a teaching hospital and between its campuses: wards, buildings, bed "
                                 "board talk, 45 in capitals"}


# The held-out sets: measured only, figures overall and per style, never a list of misses (no --show-errors choice).
HELDOUT_TITLES = {
    "heldout2": "written without reading the rules",
    "heldout3": "a third hand, without reading the rules or the other held-out sets",
    "heldout4": "ICU nursing, issue 32's third round; written before that round's rules changed",
    "heldout5": "ICU nursing, a fourth hand that read neither the rules nor the other sets' notes",
    "heldout6": "full-shift ICU nursing notes with identifiers as sparse as in real notes, a fifth hand",
    "heldout7": "the same kind of notes by a sixth hand, written after the sixth round's first rules",
    "heldout8": "the same kind of notes by a seventh hand, written after the round's second rules",
    "heldout9": "the same kind of notes by an eighth hand, written after the round's third rules",
    "heldout10": "72 such notes by a ninth hand, written after the round's last rules but one",
    "heldout11": "the same kind of notes by a tenth hand, written after the round's last rules, outside the repository",
    "heldout12": "the same kind of notes by an eleventh hand, written before the seventh round's rules",
    "heldout13": "the same kind of notes by a twelfth hand, written before the seventh round's rules",
    "heldout14": "the same kind of notes by a thirteenth hand, written during the seventh round",
    "heldout15": "the same kind of notes by a fourteenth hand, written during the seventh round",
    "heldout16": "the same kind of notes by a fifteenth hand, written during the seventh round",
    "heldout17": "the same kind of notes by a sixteenth hand, written during the seventh round",
    "heldout18": "the same kind of notes by a seventeenth hand, written during the seventh round",
    "heldout19": "the same kind of notes by an eighteenth hand, written during the seventh round",
    "heldout20": "the same kind of notes by a nineteenth hand, written during the seventh round",
    "heldout21": "the same kind of notes by a twentieth hand, written during the seventh round",
    "heldout22": "the eighth round, a 21st hand, a quarter of them short event notes and addenda",
    "heldout23": "the eighth round, a 22nd hand typing fast, with slips of the keyboard",
    "heldout24": "the eighth round, a 23rd hand: cardiac patients, families from far away",
    "heldout25": "the eighth round, a 24th hand: neuro and trauma patients on long stays",
    "heldout26": "the eighth round, a 25th hand: medical ICU patients",
    "heldout27": "the eighth round, a 26th hand that abbreviates everything",
    "heldout28": "the eighth round, a 27th hand: cardiac patients and patients' last days",
    "heldout29": "the eighth round, a 28th hand: several typists, a slip in about one word in 23",
    "heldout30": "the eighth round, a 29th hand: transfers in from all over New England",
    "heldout31": "the eighth round, a 30th hand: trauma, burns, neuro, social work and police",
    "heldout32": "the eighth round, a 31st hand misspelling by hand about one word in 30",
    "heldout33": "the eighth round, a 32nd hand: oncology, marrow and organ transplant",
    "heldout34": "the eighth round, a 33rd hand: the elderly from nursing homes and rehabs",
    "heldout35": "the eighth round, a 34th hand: young patients, friends, schools and police",
    "heldout36": "the ninth round, a 35th hand, a third of them short event notes and addenda",
    "heldout37": "the ninth round, a 36th hand typing in a hurry, 30 in capitals and 50 in lower case",
    "heldout38": "the ninth round, a 37th hand writing run-on paragraphs: cardiac surgery and coronary care",
    "heldout39": "the ninth round, a 38th hand: families",
    "heldout40": "the ninth round, a 39th hand: outside places, transfers in and out",
    "heldout41": "the ninth round, a 40th hand typing fast, 35 in capitals and 45 in lower case",
    "heldout42": "the ninth round, a 41st hand: staff",
    "heldout43": "the ninth round, a 42nd hand: the sparsest identifiers, half the notes without one",
    "heldout44": "the ninth round, a 43rd hand typing in capitals with slips, 60 in capitals and 20 in lower case",
    "heldout45": "the ninth round, a 44th hand, careless lower case (60 notes; 20 in capitals), a third of them short",
    "heldout46": "the ninth round, a 45th hand with no emphasis",
    "heldout47": "the ninth round, a 46th hand: surgical and trauma patients",
    "heldout48": "the ninth round, a 47th hand typing in capitals, with slips",
    "heldout49": "the ninth round, a 48th hand: medical ICU patients and their social lives",
    "heldout50": "the ninth round, a 49th hand: coronary care",
    "heldout51": "the ninth round, a 50th hand: neuro ICU",
    "heldout52": "the ninth round, a 51st hand writing tersely, 25 in capitals and 55 in lower case",
    "heldout53": "the ninth round, a 52nd hand, written after the round's last rule: no emphasis",
    "heldout54": "the ninth round, a 53rd hand, written after the round's last rule: a tired typist, with slips",
    "heldout55": "the ninth round, a 54th hand, written after the round's last rule: mostly lower case, typed fast "
                 "with slips, 25 in capitals and 55 in lower case",
    "heldout56": "the ninth round, a 55th hand, written after the round's last rule, a quarter of them short event "
                 "notes and addenda",
    "heldout57": "the ninth round, a 56th hand, written after the round's last rule: many people around the patient",
    "heldout58": "the tenth round, a 57th hand, written before the round's first rule: transfers and outside places",
    "heldout59": "the tenth round, a 58th hand, written before the round's first rule: hurried lower case, 20 in "
                 "capitals and 60 in lower case",
    "heldout60": "the tenth round, a 59th hand, written before the round's first rule: long histories, 60 in capitals "
                 "and 20 in lower case",
    "heldout61": "the tenth round, a 60th hand, written before the round's first rule: a typical month of one unit",
    "heldout62": "the eleventh round, a 61st hand, written before the round's first rule: dense in hard negatives, 50 "
                 "in capitals and 30 in lower case",
    "heldout63": "the eleventh round, a 62nd hand, written before the round's first rule: dense in hard negatives, 35 "
                 "in capitals and 45 in lower case",
    "heldout64": "the eleventh round, a 63rd hand, written after the round's last rule: dense in hard negatives, 45 "
                 "in capitals and 35 in lower case",
    "heldout65": "the eleventh round, a 64th hand, written after the round's last rule: a typical month of one unit",
    "heldout66": "the twelfth round, a 65th hand, written as the round began: a fortnight of a medical-surgical "
                 "ICU",
    "heldout67": "the twelfth round, a 66th hand, written as the round began: a hurried night shift typing with "
                 "slips, 30 in capitals and 50 in lower case",
    "heldout68": "the twelfth round, a 67th hand, written as the round began: a month of cardiac surgery and "
                 "coronary care",
    "heldout69": "the twelfth round, a 68th hand, written during the round: a fortnight of a surgical and trauma ICU",
    "heldout70": "the twelfth round, a 69th hand, written during the round: a month of a medical ICU whose patients "
                 "come from everywhere",
    "heldout71": "the twelfth round, a 70th hand, written after the round's last rule: a month of a neuro ICU",
    "heldout72": "the twelfth round, a 71st hand, written after the round's last rule: a mixed ICU, several nurses, "
                 "the odd slip",
    "heldout73": "the thirteenth round, a 72nd hand, written as the round began: a month of a medical ICU",
    "heldout74": "the thirteenth round, a 73rd hand, written as the round began: night shifts in a trauma and "
                 "surgical ICU, 35 in capitals and 45 in lower case",
    "heldout75": "the thirteenth round, a 74th hand, written as the round began: a month of a transplant and "
                 "cancer ICU",
    "heldout76": "the thirteenth round, a 75th hand, written as the round began: a month of a community hospital's "
                 "ICU, transfers in and out",
    "heldout77": "the thirteenth round, a 76th hand, written during the round: a month of cardiac surgery recovery",
    "heldout78": "the thirteenth round, a 77th hand, written during the round: a busy mixed ICU, many nurses, patients "
                 "from everywhere, the odd slip",
    "heldout79": "the thirteenth round, a 78th hand, written after the round's last rule: a month of a medical ICU",
    "heldout80": "the thirteenth round, a 79th hand, written after the round's last rule: a mixed ICU whose patients "
                 "come from the towns around Boston",
    "heldout81": "the thirteenth round, an 80th hand, written after the round's last rule: a month of a surgical ICU",
    "heldout82": "the thirteenth round, an 81st hand, written after the round's last rule: a medical ICU of long "
                 "stays, 35 in capitals and 45 in lower case",
    "heldout83": "the fourteenth round, an 82nd hand, written as the round began: a month of a neurosurgical and "
                 "neurology ICU",
    "heldout84": "the fourteenth round, an 83rd hand, written as the round began: a month of a coronary care unit, "
                 "35 in capitals and 45 in lower case",
    "heldout85": "the fourteenth round, an 84th hand, written as the round began: a medical ICU whose patients come "
                 "from shelters, jails and the street",
    "heldout86": "the fourteenth round, an 85th hand, written as the round began: an ICU for the old and frail from "
                 "nursing homes and rehabs",
    "heldout87": "the fourteenth round, an 86th hand, written during the round: a month of a medical and surgical ICU",
    "heldout88": "the fourteenth round, an 87th hand, written during the round: a cardiac and coronary ICU whose "
                 "patients come from all over New England",
    "heldout89": "the fourteenth round, an 88th hand, written after the round's last rule: a month of a surgical "
                 "and trauma ICU",
    "heldout90": "the fourteenth round, an 89th hand, written after the round's last rule: a medical ICU of long "
                 "stays and many moves, 35 in capitals and 45 in lower case",
}


SPEED_FLOOR = 200  # notes per second, single process (issue 32)


def detect_all(detector: Detector, texts: list[str]) -> tuple[list[list[tuple[int, int, str]]], float]:
    """Spans for every text, and notes per CPU-second (the set repeated until it took >= 1 CPU-second)."""
    spans, rounds, start = [], 0, time.process_time()
    while True:
        found = [[(s.start, s.end, s.type.value) for s in detector.detect(t)] for t in texts]
        spans = spans or found
        rounds += 1
        cpu = time.process_time() - start
        if cpu >= 1.0 or not texts:
            return spans, rounds * len(texts) / max(cpu, 1e-9)


def report(name: str, docs: list[Doc], detector: Detector, show_errors: bool = False) -> tuple[float, float, float]:
    """Print per-type and per-class recall, per-type precision and speed for one set; return R, P, notes/CPU-s."""
    predictions, speed = detect_all(detector, [t for t, _ in docs])
    tally = Tally()
    for doc, spans in zip(docs, predictions, strict=True):
        tally.add(doc, spans)
    print(f"\n== {name}: {len(docs)} notes, {sum(len(t) for t, _ in docs) / max(1, len(docs)):.0f} chars on average")
    print(f"{'gold type':<20} {'tokens':>7} {'recall':>7}")
    for kind in sorted(tally.gold):
        print(f"{kind:<20} {tally.gold[kind]:>7} {tally.hit[kind] / tally.gold[kind]:>7.3f}")
    for group, kinds in GROUPS.items():
        n = sum(tally.gold[k] for k in kinds)
        if n:
            print(f"{'[' + group + ']':<20} {n:>7} {tally.recall(kinds):>7.3f}")
    print("precision by detector type: " + ", ".join(
        f"{k} {tally.pred_ok[k] / tally.pred[k]:.2f} ({tally.pred[k]})" for k in sorted(tally.pred)))
    recall, precision = tally.recall(), tally.precision()
    gold_density, false_density = tally.per_thousand()
    print(f"per 1,000 tokens: {gold_density:.1f} PHI, {false_density:.2f} false alarms")
    print(f"overall recall {recall:.3f} precision {precision:.3f} ({sum(tally.pred.values())} predicted tokens), "
          f"{speed:.0f} notes per CPU-second ({speed / SPEED_FLOOR:.2f}x the floor of {SPEED_FLOOR})")
    if show_errors:
        print(f"misses: {dict(tally.misses.most_common(200))}")
        print(f"false alarms: {dict(tally.false_alarms.most_common(200))}")
    return recall, precision, speed


def per_style(name: str, detector: Detector) -> None:
    """One line per style of a hand-annotated set: notes, recall and precision (no list of misses)."""
    for style in phi_sets.styles(name):
        docs = phi_sets.hand_annotated(name, style)
        tally = Tally()
        for doc in docs:
            tally.add(doc, [(s.start, s.end, s.type.value) for s in detector.detect(doc[0])])
        print(f"  style {style:<14} {len(docs):>4} notes  recall {tally.recall():.3f}  "
              f"precision {tally.precision():.3f}")


def aci_name_recall(folder: Path, detector: Detector) -> None:
    """ACI-Bench dialogues: recall of the patient's and doctor's names (only names are annotated, so
    the share of all tokens flagged is printed as an upper bound on false positives)."""
    gold_n = hit = flagged = tokens = 0
    dialogues = phi_sets.aci_dialogues(folder)
    for text, names in dialogues:
        spans = detector.detect(text)
        for m in TOKEN.finditer(text):
            covered = any(s.start < m.end() and m.start() < s.end for s in spans)
            tokens += 1
            flagged += covered
            if m.group().lower() in names:
                gold_n += 1
                hit += covered
    print(f"\n== aci_bench dialogues (CC BY 4.0): {len(dialogues)} transcripts, names from the metadata only")
    print(f"NAME recall {hit / max(1, gold_n):.3f} ({gold_n} name tokens); "
          f"{1000 * flagged / max(1, tokens):.1f} of every 1,000 tokens flagged (any type)")


def vignette_false_alarms(path: Path, detector: Detector) -> None:
    """MedBullets vignettes hold vitals, labs, doses and eponyms but no PHI: count what is flagged."""
    tokens = flagged = 0
    seen: Counter[str] = Counter()
    texts = phi_sets.vignettes(path)
    for text in texts:
        spans = detector.detect(text)
        tokens += sum(1 for _ in TOKEN.finditer(text))
        for s in spans:
            flagged += len(TOKEN.findall(text[s.start:s.end]))
            seen[f"{text[s.start:s.end]}/{s.type.value}"] += 1
    print(f"\n== MedBullets vignettes (no PHI; independent hard negatives): {len(texts)} questions, {tokens} tokens")
    print(f"{1000 * flagged / max(1, tokens):.2f} of every 1,000 tokens flagged; most often "
          f"{dict(seen.most_common(8))}")


def caps_negatives(detector: Detector, show: bool) -> None:
    """Name-like false alarms per 1,000 tokens on public text without real PHI, per corpus, half and copy; the
    tuning half's most frequent flagged strings with `show` (the measuring half's are never printed)."""
    def detect(text: str) -> list[tuple[int, int, str]]:
        return [(s.start, s.end, s.type.value) for s in detector.detect(text)]

    print("\n== caps_negatives: public clinical text without real PHI; name-like flags (NAME, HOSPITAL, CITY, "
          "STREET) per 1,000 tokens, original / UPPER / lower (other flags per 1,000 in brackets)")
    totals: dict[str, Counter[str]] = {}
    for corpus, parts in phi_negatives.corpora(SHARED).items():
        for half, texts in parts.items():
            row, flagged = [], Counter[str]()
            for copy, change in phi_negatives.COPIES.items():
                t = phi_negatives.tally([change(x) for x in texts], detect)
                per = 1000 / max(1, t.tokens)
                row.append(f"{t.false_alarms * per:5.2f} ({t.other_flags * per:.2f})")
                total = totals.setdefault(f"{half}/{copy}", Counter())
                total.update(tokens=t.tokens, false_alarms=t.false_alarms)
                flagged.update({f"{copy}: {k}": v for k, v in t.flagged.items()})
            print(f"{corpus:<11} {half:<9} {len(texts):>4} docs  " + "  ".join(row))
            if show and half == "tuning":
                print(f"  flagged: {dict(flagged.most_common(60))}")
    for key, total in totals.items():
        half, copy = key.split("/")
        print(f"caps_negatives_{half}_{copy} {1000 * total['false_alarms'] / max(1, total['tokens']):.2f} "
              f"per 1,000 tokens ({total['false_alarms']} of {total['tokens']})")


def pathological_ms(detector: Detector) -> None:
    """The slowest of the 1 KB inputs built to make rules backtrack (best of five runs each)."""
    from support.pathological import PATHOLOGICAL

    worst = 0.0
    for text in PATHOLOGICAL.values():
        note = (text * 20)[:1024]
        best = min(_timed(detector, note) for _ in range(5))
        worst = max(worst, best)
    print(f"\n== pathological 1 KB notes: slowest {worst * 1000:.1f} ms (wall, best of 5)")


def _timed(detector: Detector, text: str) -> float:
    start = time.perf_counter()
    detector.detect(text)
    return time.perf_counter() - start


def main() -> None:
    """Run the chosen sets and print the independent set's summary line last."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--notes", type=int, default=400, help="synthetic notes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sets", default=ALL_SETS, help="comma-separated subset to run")
    parser.add_argument("--show-errors", choices=["dev", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7", "dev8",
                                                  "dev9", "dev10", "dev11", "dev12", "dev13", "dev14", "dev15", "dev16",
                                                  "dev17", "dev18", "dev19", "dev20", "dev21", "dev22",
                                                  "dev23", *EIGHTH_ROUND_DEV, *NINTH_ROUND_DEV, *TENTH_ROUND_DEV,
                                                  *ELEVENTH_ROUND_DEV, *TWELFTH_ROUND_DEV,
                                                  *THIRTEENTH_ROUND_DEV, *FOURTEENTH_ROUND_DEV],
                        help="list misses and false alarms of a development set")
    parser.add_argument("--show-negatives", action="store_true",
                        help="list the flagged strings of caps_negatives' tuning half (never the measuring half's)")
    args = parser.parse_args()
    sets = set(args.sets.split(","))
    detector = detector_for(default_redaction_dir().resolve())
    if "dev" in sets and (phi_sets.phi_notes.FOLDER / "dev.jsonl").exists():
        report("hand-annotated DEVELOPMENT set (tuned on)", phi_sets.hand_annotated("dev"), detector,
               args.show_errors == "dev")
    if "dev2" in sets and (phi_sets.phi_notes.FOLDER / "dev2.jsonl").exists():
        report("hand-annotated DEVELOPMENT set 2, ICU nursing (tuned on)", phi_sets.hand_annotated("dev2"), detector,
               args.show_errors == "dev2")
    if "dev3" in sets and (phi_sets.phi_notes.FOLDER / "dev3.jsonl").exists():
        report("hand-annotated DEVELOPMENT set 3, ICU nursing, second round (tuned on)",
               phi_sets.hand_annotated("dev3"), detector, args.show_errors == "dev3")
    if "dev4" in sets and (phi_sets.phi_notes.FOLDER / "dev4.jsonl").exists():
        report("hand-annotated DEVELOPMENT set 4, ICU nursing, third round (tuned on)",
               phi_sets.hand_annotated("dev4"), detector, args.show_errors == "dev4")
    for name in ("dev5", "dev6", "dev7", "dev8", "dev9", "dev10", "dev11", "dev12", "dev13", "dev14", "dev15", "dev16",
                 "dev17", "dev18", "dev19", "dev20", "dev21", "dev22", "dev23"):
        if name in sets and (phi_sets.phi_notes.FOLDER / f"{name}.jsonl").exists():
            dense = int(name[3:]) >= 14
            kind = "dense identifiers, seventh" if dense else "sparse identifiers, sixth"
            report(f"hand-annotated DEVELOPMENT set {name[3:]}, full-shift ICU nursing with {kind} round (tuned on)",
                   phi_sets.hand_annotated(name), detector, args.show_errors == name)
    for name, emphasis in EIGHTH_ROUND_DEV.items():
        if name in sets and (phi_sets.phi_notes.FOLDER / f"{name}.jsonl").exists():
            report(f"hand-annotated DEVELOPMENT set {name[3:]}, full-shift ICU nursing with dense identifiers, eighth "
                   f"round: {emphasis} (tuned on)", phi_sets.hand_annotated(name), detector, args.show_errors == name)
    for round_name, emphases in (("ninth", NINTH_ROUND_DEV), ("tenth", TENTH_ROUND_DEV),
                                 ("eleventh", ELEVENTH_ROUND_DEV), ("twelfth", TWELFTH_ROUND_DEV),
                                 ("thirteenth", THIRTEENTH_ROUND_DEV), ("fourteenth", FOURTEENTH_ROUND_DEV)):
        for name, emphasis in emphases.items():
            if name in sets and (phi_sets.phi_notes.FOLDER / f"{name}.jsonl").exists():
                report(f"hand-annotated DEVELOPMENT set {name[3:]}, full-shift ICU nursing, {round_name} round: "
                       f"{emphasis} (tuned on)", phi_sets.hand_annotated(name), detector, args.show_errors == name)
    for name, title in HELDOUT_TITLES.items():
        if name in sets and (phi_sets.phi_notes.FOLDER / f"{name}.jsonl").exists():
            recall, precision, _ = report(f"hand-annotated {name.upper()} set ({title}; measured only, never tuned on)",
                                          phi_sets.hand_annotated(name), detector)
            per_style(name, detector)
            print(f"{name}_recall {recall:.3f} {name}_precision {precision:.3f}")
    presidio = SHARED / "presidio_synth_pii" / "synth_dataset_v2.json"
    if presidio.exists() and "presidio" in sets:
        for half, docs in phi_sets.halves(phi_sets.presidio(presidio), by_parity=True).items():
            report(f"presidio_synth_pii (general PII, MIT), {half}", docs, detector)
    meddocan = SHARED / "meddocan_es" / "corpus" / "test" / "brat"
    if meddocan.exists() and "meddocan" in sets:
        for half, docs in phi_sets.halves(phi_sets.meddocan(meddocan), by_parity=False).items():
            report(f"meddocan_es test (Spanish clinical, CC BY 4.0), {half}", docs, detector)
    if (SHARED / "aci_bench" / "challenge_data").exists() and "aci" in sets:
        aci_name_recall(SHARED / "aci_bench" / "challenge_data", detector)
    if (SHARED / "medbullets" / "medbullets_op4.csv").exists() and "vignettes" in sets:
        vignette_false_alarms(SHARED / "medbullets" / "medbullets_op4.csv", detector)
    if "caps_negatives" in sets:
        caps_negatives(detector, args.show_negatives)
    if "synthetic" in sets:
        report("synthetic notes (generator written with the detector: an upper bound)",
               phi_sets.synthetic(args.notes, args.seed), detector)
    if "independent" in sets:
        pathological_ms(detector)
        recall, precision, speed = report("hand-annotated INDEPENDENT set (measured only, never tuned on)",
                                          phi_sets.hand_annotated("independent"), detector)
        print(f"independent_recall {recall:.3f} independent_precision {precision:.3f} notes_per_cpu_second {speed:.0f}")


if __name__ == "__main__":
    main()
