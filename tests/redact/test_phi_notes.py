"""The hand-annotated note sets: offsets that slice to their values, JSONL built from the markup, sizes, the
held-out set's new identifiers, and the recall `policy check` states is the one the independent set measures."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from support.phi_notes import FOLDER, NEUTRAL, SETS, PhiNote, load, parse_markup, to_jsonl
from support.phi_scoring import Tally

from medhelm_local.redact import detect
from medhelm_local.redact.quality import (
    HELDOUT,
    INDEPENDENT_NOTES,
    INDEPENDENT_PRECISION,
    INDEPENDENT_RECALL,
    SAME_HAND,
    residual_risk,
)
from medhelm_local.redact.types import PhiType

# The eighth round's held-out sets run to this one (heldout22 holds short event notes too; the rest are full shifts).
EIGHTH_ROUND_LAST = 35
EIGHTH_ROUND_SPARSE = [f"heldout{k}" for k in range(23, EIGHTH_ROUND_LAST + 1)]
EIGHTH_ROUND_TUNING = ["dev24", "dev25", "dev26", "dev27", "dev28", "dev29"]
# The ninth round's held-out sets, in set-number order; the sparse ones of 45 notes in capitals and 35 in lower case,
# 18,000+ words, share the sparse-set test (the others are checked against their own splits below).
NINTH_ROUND_HELDOUT = [f"heldout{k}" for k in range(36, 53)]
# The held-out sets written after the round's last rule, measured only: heldout53, 54 and 57 are sparse 45/35 sets,
# heldout55 and 56 have their own splits.
NINTH_ROUND_AFTER_FREEZE = [f"heldout{k}" for k in range(53, 58)]
NINTH_ROUND_SPARSE = ["heldout38", "heldout39", "heldout40", "heldout42", "heldout43", "heldout46", "heldout47",
                      "heldout48", "heldout49", "heldout50", "heldout51", "heldout53", "heldout54", "heldout57"]
NINTH_ROUND_TUNING = ["dev30", "dev31", "dev32", "dev33", "dev34", "dev35", "dev36", "dev37", "dev38", "dev39"]
NINTH_ROUND_DENSE = ["dev30", "dev31", "dev32", "dev34", "dev35", "dev36"]  # dev33 is the false-alarm stress set
NINTH_ROUND_LAST_DENSE = ["dev37", "dev38", "dev39"]  # the densest, 25 to 28 marked spans per 1,000 words
# The tenth round's: four tuning sets dense with the real notes' miss classes, and four held-out sets written beside
# them, before the round's first rule, measured only, after each of its two parts.
TENTH_ROUND_TUNING = ["dev40", "dev41", "dev42", "dev43"]
TENTH_ROUND_HELDOUT = ["heldout58", "heldout59", "heldout60", "heldout61"]
# The eleventh round's: two tuning sets and two held-out sets, all sparse among the hard negatives real notes hold
# (devices, eponyms, drugs, shorthand, numbers), written before the round's first rule, for false alarms.
ELEVENTH_ROUND_TUNING = ["dev44", "dev45"]
ELEVENTH_ROUND_HELDOUT = ["heldout62", "heldout63"]
# Written after the round's last rule and measured once: hard negatives again, and a typical month of one unit.
ELEVENTH_ROUND_AFTER_FREEZE = ["heldout64", "heldout65"]
# The twelfth round's: five tuning sets, each with its emphasis (places, lists, slips, names from everywhere, notes
# pasted from the chart), and held-out sets written as it began, during it and after its last rule.
TWELFTH_ROUND_TUNING = ["dev46", "dev47", "dev48", "dev49", "dev50"]
TWELFTH_ROUND_HELDOUT = ["heldout66", "heldout67", "heldout68", "heldout69", "heldout70"]
TWELFTH_ROUND_AFTER_FREEZE = ["heldout71", "heldout72"]
# The thirteenth round's: eight tuning sets (people named with everyday words, places outside hospitals, dates among
# look-alike numbers, a long stay's paperwork, wards written every way, loose numbers and relatives, the issue's
# classes of misses, devices and eponyms in a cardiac ICU) and held-out
# sets written as it began and during it, a unit each.
THIRTEENTH_ROUND_TUNING = ["dev51", "dev52", "dev53", "dev54", "dev55", "dev56", "dev57", "dev58"]
THIRTEENTH_ROUND_HELDOUT = ["heldout73", "heldout74", "heldout75", "heldout76", "heldout77", "heldout78"]
THIRTEENTH_ROUND_AFTER_FREEZE = ["heldout79", "heldout80", "heldout81", "heldout82"]
# The fourteenth round's: ten tuning sets (places a Boston ICU names, places typed carelessly, people among words that
# are names too, shorthand false alarms, the issue's loose numbers and dates, slips, places far from Boston, the
# family lines, histories and relatives, moves within a hospital) and held-out sets written as it began, during it and
# after its last rule, a unit each.
FOURTEENTH_ROUND_TUNING = ["dev59", "dev60", "dev61", "dev62", "dev63", "dev64", "dev65", "dev66", "dev67", "dev68"]
FOURTEENTH_ROUND_HELDOUT = ["heldout83", "heldout84", "heldout85", "heldout86", "heldout87", "heldout88"]
FOURTEENTH_ROUND_AFTER_FREEZE = ["heldout89", "heldout90"]
FIRST_STYLES = {"nursing_caps", "nursing_lower", "letter", "ed", "discharge"}
STYLES = FIRST_STYLES | {"hand_b", "nursing_mixed"}  # hand_b: heldout2's mixed case; nursing_mixed: heldout3's
NUMBERED = {"PHONE", "FAX", "MRN", "ID", "DEVICE", "ACCOUNT", "HEALTH_PLAN", "LICENSE"}


@pytest.mark.parametrize("name", SETS)
def test_jsonl_is_what_the_markup_builds(name: str) -> None:
    markup = (FOLDER / f"{name}.txt").read_text(encoding="utf-8")
    assert (FOLDER / f"{name}.jsonl").read_text(encoding="utf-8") == to_jsonl(parse_markup(markup))


@pytest.mark.parametrize("name", SETS)
def test_every_span_slices_to_its_value_with_a_known_type(name: str) -> None:
    notes = load(name)  # raises when an offset does not hold its value
    assert len({n.id for n in notes}) == len(notes)
    for note in notes:
        assert note.style in STYLES, note.id
        for span in note.spans:
            assert span.type == NEUTRAL or span.type in PhiType.__members__, (note.id, span)
            assert span.value == span.value.strip() and span.value, (note.id, span)


def test_independent_set_has_forty_notes_in_every_style() -> None:
    styles = Counter(n.style for n in load("independent"))
    assert sum(styles.values()) >= 40
    assert set(styles) == FIRST_STYLES and min(styles.values()) >= 8


def _dense_half_in_each_case(name: str) -> tuple[list[PhiNote], float, Counter[str]]:
    """A dense tuning set's notes, checked to be 80 notes, 40 in capitals and 40 in lower case, each in its case,
    18,000 words or more; with its marked spans per 1,000 words and its spans' type/class counts."""
    notes = load(name)
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": 40, "nursing_lower": 40}
    for note in notes:
        _assert_in_its_case(note)
    words = sum(len(re.findall(r"[^\W_]+", n.text)) for n in notes)
    assert words >= 18000
    return notes, 1000 * sum(len(n.spans) for n in notes) / words, Counter(f"{s.type}/{s.cls}" for n in notes
                                                                            for s in n.spans)


def _assert_in_its_case(note: PhiNote) -> None:
    """A note of the capital or lower-case style is written wholly in that case."""
    if note.style == "nursing_caps":
        assert note.text == note.text.upper(), note.id
    if note.style == "nursing_lower":
        assert note.text == note.text.lower(), note.id


def test_heldout2_is_weighted_to_icu_nursing_in_capitals_and_lower_case() -> None:
    notes = load("heldout2")
    styles = Counter(n.style for n in notes)
    assert len(notes) >= 120
    assert styles["nursing_caps"] >= 50 and styles["nursing_lower"] >= 50 and styles["hand_b"] >= 20
    assert set(styles) == {"nursing_caps", "nursing_lower", "hand_b"}
    for note in notes:
        _assert_in_its_case(note)


def test_heldout3_is_icu_nursing_half_in_capitals_with_few_lines_carrying_phi() -> None:
    """A third hand's ICU nursing notes: half all capitals, most of the rest lower case, 3 to 40 lines a note,
    and most lines without an identifier, as real notes are."""
    notes = load("heldout3")
    styles = Counter(n.style for n in notes)
    assert len(notes) >= 120
    assert set(styles) == {"nursing_caps", "nursing_lower", "nursing_mixed"}
    assert styles["nursing_caps"] * 2 >= len(notes) and styles["nursing_lower"] > styles["nursing_mixed"]
    lines = marked = 0
    for note in notes:
        _assert_in_its_case(note)
        assert 3 <= note.text.count("\n") + 1 <= 40, note.id
        starts = [0] + [m.end() for m in re.finditer("\n", note.text)]
        lines += len(starts)
        marked += len({max(i for i, at in enumerate(starts) if at <= s.start) for s in note.spans})
    assert marked * 2 < lines


def _identifiers(name: str) -> set[str]:
    """A set's numbers (digits only) and full names (lower case): what a copy between sets would show."""
    out = set()
    for note in load(name):
        for s in note.spans:
            if s.type in NUMBERED:
                out.add(re.sub(r"\D", "", s.value))
            elif s.type == "NAME" and " " in s.value:
                out.add(s.value.lower())
    return out


@pytest.mark.parametrize("name, others", [("heldout2", ("independent", "dev", "dev2", "dev3")),
                                          ("heldout3", ("independent", "dev", "dev2", "dev3", "heldout2")),
                                          ("heldout4", ("independent", "dev", "dev2", "dev3", "heldout2", "heldout3")),
                                          ("heldout5", ("independent", "dev", "dev2", "dev3", "dev4", "heldout2",
                                                        "heldout3", "heldout4")),
                                          ("heldout6", ("independent", "dev", "dev2", "dev3", "dev4", "heldout2",
                                                        "heldout3", "heldout4", "heldout5")),
                                          ("heldout7", ("independent", "dev", "dev2", "dev3", "dev4", "dev5",
                                                        "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")),
                                          ("heldout8", ("independent", "dev", "dev2", "dev3", "dev4", "dev5", "dev6",
                                                        "dev7", "heldout2", "heldout3", "heldout4", "heldout5",
                                                        "heldout6", "heldout7")),
                                          *[(name, tuple(s for s in SETS if s != name))
                                            for name in (*(f"heldout{k}" for k in range(9, EIGHTH_ROUND_LAST + 1)),
                                                         *NINTH_ROUND_HELDOUT, *NINTH_ROUND_AFTER_FREEZE,
                                                         *TENTH_ROUND_HELDOUT, *ELEVENTH_ROUND_HELDOUT,
                                                         *ELEVENTH_ROUND_AFTER_FREEZE, *TWELFTH_ROUND_HELDOUT,
                                                         *TWELFTH_ROUND_AFTER_FREEZE, *THIRTEENTH_ROUND_HELDOUT,
                                                         *THIRTEENTH_ROUND_AFTER_FREEZE, *FOURTEENTH_ROUND_HELDOUT,
                                                         *FOURTEENTH_ROUND_AFTER_FREEZE)]])
def test_a_heldout_set_reuses_no_number_and_no_full_name_of_the_other_sets(name: str, others: tuple[str, ...]) -> None:
    """Written with new people and numbers: a phone, record number or full name copied from the sets the rules
    were written beside would make its figure less independent."""
    assert not _identifiers(name) & set().union(*(_identifiers(o) for o in others))
    assert not {n.id for n in load(name)} & {n.id for o in others for n in load(o)}


def test_heldout4_is_short_icu_nursing_notes_in_the_issues_miss_classes() -> None:
    """issue 32's third round: 40+ short notes, most in capitals or lower case, holding wards with a number,
    facility names of several words and two-digit years, as the unseen corpus's misses were."""
    notes = load("heldout4")
    styles = Counter(n.style for n in notes)
    assert len(notes) >= 40 and styles["nursing_caps"] >= 15 and styles["nursing_lower"] >= 15
    for note in notes:
        _assert_in_its_case(note)
    classes = Counter(f"{s.type}/{s.cls}" for n in notes for s in n.spans)
    assert classes["HOSPITAL/ward"] >= 5 and classes["HOSPITAL/facility"] >= 15 and classes["DATE/year2"] >= 10


def test_heldout5_is_a_fourth_hands_icu_nursing_notes_in_three_cases() -> None:
    """issue 32's independent evidence: 120 short ICU nursing notes (4 to 12 lines) by a hand that read neither
    the rules nor the other sets' notes, each style in its own case, holding the miss classes the rounds tuned for
    (wards and facilities, two-digit and short dates, pagers and extensions, ages over 89)."""
    notes = load("heldout5")
    styles = Counter(n.style for n in notes)
    assert len(notes) >= 120 and set(styles) == {"nursing_caps", "nursing_lower", "nursing_mixed"}
    assert styles["nursing_caps"] >= 45 and styles["nursing_lower"] >= 45 and styles["nursing_mixed"] >= 15
    for note in notes:
        _assert_in_its_case(note)
        assert 4 <= note.text.count("\n") + 1 <= 12, note.id
    classes = Counter(f"{s.type}/{s.cls}" for n in notes for s in n.spans)
    assert classes["HOSPITAL/ward"] >= 8 and classes["HOSPITAL/facility"] >= 30 and classes["DATE/year2"] >= 15
    assert classes["DATE/partial"] >= 15 and classes["PHONE/pager"] + classes["PHONE/ext"] >= 8
    assert classes["AGE/"] >= 10


@pytest.mark.parametrize("name", ["heldout6", "heldout7", "heldout8", "heldout9", "heldout12", "heldout13", "heldout14",
                                  "heldout15", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20",
                                  "heldout21", "dev5", "dev6", "dev7", "dev8", "dev9", *EIGHTH_ROUND_SPARSE,
                                  *NINTH_ROUND_SPARSE, "heldout58"])
def test_sparse_sets_are_full_shift_icu_notes_with_identifiers_as_sparse_as_real_notes(name: str) -> None:
    """Precision depends on how dense the PHI is: 80 long notes in capitals or lower case, about one marked span
    per 100 words and some notes with none, so their precision is the one a real nursing corpus would show."""
    notes = load(name)
    styles = Counter(n.style for n in notes)
    assert len(notes) == 80 and styles == {"nursing_caps": 45, "nursing_lower": 35}, name
    words = 0
    for note in notes:
        _assert_in_its_case(note)
        assert len(re.findall(r"[^\W_]+", note.text)) >= 150, note.id
        words += len(re.findall(r"[^\W_]+", note.text))
    spans = sum(len(n.spans) for n in notes)
    assert words >= 18000 and 1000 * spans / words < 15
    assert sum(1 for n in notes if not n.spans) >= 10


@pytest.mark.parametrize("name, notes, caps, lower, min_words", [("heldout10", 72, 39, 33, 12000),
                                                                    ("heldout11", 80, 45, 35, 11000)])
def test_the_last_sparse_sets_are_shorter_whole_notes_in_their_case(name: str, notes: int, caps: int, lower: int,
                                                                     min_words: int) -> None:
    """heldout10's author stopped at 72 notes when its time ran out; heldout11's, writing outside the repository
    after every rule of the round, wrote 80 shorter ones. Whole notes only, each in its case, identifiers sparse."""
    loaded = load(name)
    assert len(loaded) == notes and Counter(n.style for n in loaded) == {"nursing_caps": caps, "nursing_lower": lower}
    for note in loaded:
        _assert_in_its_case(note)
    words = sum(len(re.findall(r"[^\W_]+", n.text)) for n in loaded)
    assert words >= min_words and 1000 * sum(len(n.spans) for n in loaded) / words < 15


@pytest.mark.parametrize("name", ["dev5", "dev6", "dev7", "dev8", "dev9", "dev14", "dev15", "dev16", "dev17", "dev18",
                                  "dev19", "dev20", "dev21", "dev22", "dev23", *EIGHTH_ROUND_TUNING,
                                  *NINTH_ROUND_TUNING, *TENTH_ROUND_TUNING, *ELEVENTH_ROUND_TUNING,
                                  *TWELFTH_ROUND_TUNING, *THIRTEENTH_ROUND_TUNING, *FOURTEENTH_ROUND_TUNING])
def test_the_later_rounds_tuning_sets_reuse_no_number_or_full_name_of_the_other_sets(name: str) -> None:
    """Written beside the held-out sets by other hands, for tuning: none shares a person, number or note id with any
    other set."""
    others = [o for o in SETS if o != name]
    assert not _identifiers(name) & set().union(*(_identifiers(o) for o in others))
    assert not {n.id for n in load(name)} & {n.id for o in others for n in load(o)}


@pytest.mark.parametrize("name", ["dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22",
                                  "dev23"])
def test_the_seventh_rounds_tuning_sets_are_full_shift_notes_dense_with_identifiers(name: str) -> None:
    """Written to find misses: 80 full-shift notes in their case, about 25 marked spans per 1,000 words (places in
    dev14; numbers, dates and people in loose shapes in dev15; people in dev16; wards, transfers and dates in
    dev17; the loosest shapes, 50 notes in lower case, in dev18; social and dispo lines in dev19; units and moves in
    dev20; false friends of identifiers beside real ones in dev21; cardiac surgery recovery in dev22; neuro and
    trauma, where the accident happened and who found the patient, in dev23), few notes without one."""
    notes = load(name)
    caps, lower = (30, 50) if name == "dev18" else (45, 35)
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": caps, "nursing_lower": lower}
    for note in notes:
        _assert_in_its_case(note)
    words = sum(len(re.findall(r"[^\W_]+", n.text)) for n in notes)
    assert words >= 18000 and 20 <= 1000 * sum(len(n.spans) for n in notes) / words <= 30
    classes = Counter(f"{s.type}/{s.cls}" for n in notes for s in n.spans)
    if name == "dev14":
        assert classes["HOSPITAL/facility"] + classes["HOSPITAL/ward"] >= 80 and classes["CITY/"] >= 80
    elif name == "dev23":
        assert classes["CITY/"] + classes["CITY/landmark"] + classes["STREET/"] >= 100
    elif name == "dev16":
        assert sum(v for k, v in classes.items() if k.startswith("NAME/")) >= 250
    elif name == "dev17":
        assert classes["HOSPITAL/ward"] >= 15 and classes["HOSPITAL/facility"] + classes["HOSPITAL/abbrev"] >= 60
    elif name in ("dev18", "dev19", "dev20", "dev22"):
        assert sum(v for k, v in classes.items() if k.startswith("NAME/")) >= 190 and classes["PHONE/"] >= 20
    elif name == "dev21":  # false friends beside real identifiers: every note holds one
        assert sum(v for k, v in classes.items() if k.startswith("NAME/")) >= 200 and all(n.spans for n in notes)
    else:
        assert classes["PHONE/"] + classes["PHONE/pager"] + classes["PHONE/ext"] >= 30 and classes["DATE/year2"] >= 20


def test_dev4_reuses_no_number_or_full_name_of_the_heldout_sets() -> None:
    """The third round's tuning notes were written after heldout4 in its classes: with other people and numbers."""
    assert not _identifiers("dev4") & set().union(*(_identifiers(o) for o in ("heldout2", "heldout3", "heldout4")))
    notes = load("dev4")
    assert len(notes) >= 30
    for note in notes:
        _assert_in_its_case(note)


def test_dev3_is_nursing_notes_in_their_case() -> None:
    """dev3 (issue 32's second round of tuning notes): mostly ICU nursing notes in capitals and lower case."""
    notes = load("dev3")
    styles = Counter(n.style for n in notes)
    assert len(notes) >= 60 and styles["nursing_caps"] >= 25 and styles["nursing_lower"] >= 25
    for note in notes:
        _assert_in_its_case(note)


def test_a_mark_left_open_is_refused() -> None:
    with pytest.raises(ValueError, match="not closed"):
        parse_markup("### x-1 ed\nSeen by {{NAME|Lee today.\n")


def test_the_recall_policy_check_states_is_what_the_independent_set_measures() -> None:
    tally = Tally()
    for note in load("independent"):
        gold = [(s.start, s.end, "" if s.type == NEUTRAL else s.type, s.cls) for s in note.spans]
        tally.add((note.text, gold), [(s.start, s.end, s.type.value) for s in detect(note.text)])
    assert round(tally.recall(), 3) == INDEPENDENT_RECALL, "restate redact/quality.py, the README and the report"
    assert round(tally.precision(), 3) == INDEPENDENT_PRECISION
    assert len(load("independent")) == INDEPENDENT_NOTES
    assert f"measured recall {INDEPENDENT_RECALL:.3f}" in residual_risk()


@pytest.mark.parametrize("name", sorted(HELDOUT) + sorted(SAME_HAND))
def test_the_heldout_figures_policy_check_states_are_what_those_sets_measure(name: str) -> None:
    """Aggregates only: the held-out sets are measured, never read for their misses."""
    notes, recall, precision = {**HELDOUT, **SAME_HAND}[name]
    tally = Tally()
    for note in load(name):
        gold = [(s.start, s.end, "" if s.type == NEUTRAL else s.type, s.cls) for s in note.spans]
        tally.add((note.text, gold), [(s.start, s.end, s.type.value) for s in detect(note.text)])
    assert (len(load(name)), round(tally.recall(), 3), round(tally.precision(), 3)) == (notes, recall, precision), \
        "restate redact/quality.py, the README and docs/performance.md"
    assert f"{min(r for _, r, _ in HELDOUT.values()):.3f} at worst" in residual_risk()


def test_heldout22_is_full_shift_notes_with_a_quarter_short_event_notes() -> None:
    """The eighth round's first held-out hand wrote 80 notes in their case, about 20 of them short event notes,
    addenda and transfer notes (60 to 150 words), identifiers as sparse as in real notes."""
    notes = load("heldout22")
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": 45, "nursing_lower": 35}
    lengths = [len(re.findall(r"[^\W_]+", n.text)) for n in notes]
    for note in notes:
        _assert_in_its_case(note)
    assert sum(1 for w in lengths if w < 150) >= 15 and min(lengths) >= 50 and sum(lengths) >= 18000
    assert 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < 15 and sum(1 for n in notes if not n.spans) >= 10


@pytest.mark.parametrize("name", EIGHTH_ROUND_TUNING)
def test_the_eighth_rounds_tuning_sets_are_dense_half_in_each_case(name: str) -> None:
    """Written to find misses: 80 full-shift notes, 40 in capitals and 40 in lower case, about 25 marked spans per
    1,000 words (people around the patient in dev24; places in dev25; numbers and dates in dev26; slips of the
    keyboard in dev27; hospitals, wards and services in dev28; sign-offs and staff in dev29)."""
    _, density, classes = _dense_half_in_each_case(name)
    assert 20 <= density <= 30
    names = sum(v for k, v in classes.items() if k.startswith("NAME/"))
    if name == "dev24":
        assert classes["NAME/relative"] >= 150
    elif name == "dev25":
        assert classes["CITY/"] + classes["CITY/landmark"] + classes["STREET/"] >= 100
    elif name == "dev26":
        assert classes["PHONE/"] + classes["PHONE/pager"] >= 60 and classes["DATE/partial"] >= 60
    elif name == "dev28":
        assert classes["HOSPITAL/facility"] + classes["HOSPITAL/ward"] + classes["HOSPITAL/abbrev"] >= 150
    else:
        assert names >= 200


@pytest.mark.parametrize("name, caps, lower, min_words, short, density, empty", [
    ("heldout36", 45, 35, 15000, 26, (6, 8), 20),
    ("heldout37", 30, 50, 18000, 0, (7, 10), 20),
    ("heldout41", 35, 45, 18000, 0, (7, 10), 20),
    ("heldout43", 45, 35, 18000, 0, (4, 5), 40),
    ("heldout44", 60, 20, 18000, 0, (6, 8), 20),
    ("heldout45", 20, 60, 15000, 26, (7, 10), 25),
    ("heldout52", 25, 55, 18000, 0, (7, 10), 20),
    ("heldout55", 25, 55, 18000, 0, (8, 9), 25),
    ("heldout56", 45, 35, 15000, 24, (9, 10), 25),
])
def test_the_ninth_rounds_other_heldout_sets_have_their_own_splits(name: str, caps: int, lower: int, min_words: int,
                                                                   short: int, density: tuple[int, int],
                                                                   empty: int) -> None:
    """80 notes each in its case, in the split its hand was asked for; a third of heldout36's and heldout45's and 24 of
    heldout56's are short (40 to 150 words), the rest full shifts of 150+; identifiers sparse (heldout43 the
    sparsest, half its notes without one). heldout55 and heldout56 were written after the round's last rule."""
    notes = load(name)
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": caps, "nursing_lower": lower}
    for note in notes:
        _assert_in_its_case(note)
    lengths = [len(re.findall(r"[^\W_]+", n.text)) for n in notes]
    assert sum(lengths) >= min_words and sum(1 for w in lengths if w < 150) >= short and min(lengths) >= 40
    assert short or min(lengths) >= 150
    assert density[0] <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < density[1]
    assert sum(1 for n in notes if not n.spans) >= empty


@pytest.mark.parametrize("name", NINTH_ROUND_DENSE)
def test_the_ninth_rounds_tuning_sets_are_dense_half_in_each_case(name: str) -> None:
    """Written to find misses: 80 full-shift notes, 40 in capitals and 40 in lower case, 21 to 27 marked spans per
    1,000 words, at most 3 notes without one (facilities no list holds and places typed with slips in dev30;
    initials and short names in dev31; wards and units in dev32; identifiers typed with slips in dev34; families,
    friends and short names in dev35; numbers and dates in dev36)."""
    notes, density, classes = _dense_half_in_each_case(name)
    assert 21 <= density <= 27
    assert sum(1 for n in notes if not n.spans) <= 3
    names = sum(v for k, v in classes.items() if k.startswith("NAME/"))
    if name == "dev30":
        assert classes["HOSPITAL/facility"] + classes["HOSPITAL/abbrev"] >= 100 and classes["CITY/"] >= 80
    elif name == "dev31":
        assert classes["NAME/initials"] >= 50 and names >= 300
    elif name == "dev32":
        assert classes["HOSPITAL/ward"] >= 60
    elif name == "dev34":
        assert names >= 200 and classes["CITY/"] + classes["HOSPITAL/facility"] >= 80
    elif name == "dev35":
        assert classes["NAME/relative"] >= 200
    else:
        assert classes["DATE/partial"] >= 100 and classes["DATE/year2"] + classes["DATE/year"] >= 35


@pytest.mark.parametrize("name", NINTH_ROUND_LAST_DENSE)
def test_the_ninth_rounds_last_tuning_sets_are_the_densest_half_in_each_case(name: str) -> None:
    """80 full-shift notes, 40 in capitals and 40 in lower case, 25 to 28 marked spans per 1,000 words, at most 2
    notes without one: places far away, other states and countries, in dev37; terse hands in dev38; run-on
    paragraphs in dev39, every note one paragraph of 150+ words."""
    notes, density, classes = _dense_half_in_each_case(name)
    assert 25 <= density < 28
    assert sum(1 for n in notes if not n.spans) <= 2
    names = sum(v for k, v in classes.items() if k.startswith("NAME/"))
    if name == "dev37":
        assert classes["CITY/"] + classes["CITY/landmark"] >= 150
    elif name == "dev38":
        assert names >= 200 and classes["DATE/partial"] >= 60
    else:
        assert names >= 200
        for note in notes:
            assert max(len(re.findall(r"[^\W_]+", line)) for line in note.text.split("\n")) >= 150, note.id


def test_dev33_is_sparse_full_shift_notes_for_false_alarms() -> None:
    """The ninth round's false-alarm stress set: 80 full-shift notes of 200+ words, 45 in capitals and 35 in lower
    case, about 5 marked spans per 1,000 words, about half the notes without one."""
    notes = load("dev33")
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": 45, "nursing_lower": 35}
    lengths = [len(re.findall(r"[^\W_]+", n.text)) for n in notes]
    for note in notes:
        _assert_in_its_case(note)
    assert min(lengths) >= 200 and sum(lengths) >= 18000
    assert 4 <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < 6
    assert 35 <= sum(1 for n in notes if not n.spans) <= 45


def _full_shifts_in_split(name: str, caps: int, lower: int) -> tuple[list[PhiNote], list[int]]:
    """A tenth-round set's notes, checked to be 80 notes of 150+ words each in its case, in its split, 18,000 words or
    more; with each note's word count."""
    notes = load(name)
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": caps, "nursing_lower": lower}
    for note in notes:
        _assert_in_its_case(note)
    lengths = [len(re.findall(r"[^\W_]+", n.text)) for n in notes]
    assert sum(lengths) >= 18000 and min(lengths) >= 150
    return notes, lengths


@pytest.mark.parametrize("name, caps, lower, density, empty", [
    ("heldout59", 20, 60, (8, 10), 25), ("heldout60", 60, 20, (10, 11), 18), ("heldout61", 40, 40, (7, 8), 18),
])
def test_the_tenth_rounds_other_heldout_sets_have_their_own_splits(name: str, caps: int, lower: int,
                                                                   density: tuple[int, int], empty: int) -> None:
    """80 full-shift notes of 150+ words each in its case, in the split its hand was asked for (hurried lower case in
    heldout59, long histories in capitals in heldout60, a typical month in heldout61), identifiers sparse."""
    notes, lengths = _full_shifts_in_split(name, caps, lower)
    assert density[0] <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < density[1]
    assert sum(1 for n in notes if not n.spans) >= empty


@pytest.mark.parametrize("name, caps, lower", [("dev40", 40, 40), ("dev41", 45, 35), ("dev42", 40, 40),
                                                ("dev43", 35, 45)])
def test_the_tenth_rounds_tuning_sets_are_dense_in_the_real_notes_miss_classes(name: str, caps: int,
                                                                               lower: int) -> None:
    """80 full-shift notes each in its case, 23 to 28 marked spans per 1,000 words, at most 5 notes without one,
    each heavy in one of the classes real notes were missed in: outside facilities in dev40, numbers that identify in
    loose formats in dev41, wards and buildings named after people and places in dev42, people after every kind of
    cue in dev43."""
    notes, lengths = _full_shifts_in_split(name, caps, lower)
    assert 23 <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < 28
    assert sum(1 for n in notes if not n.spans) <= 5
    classes = Counter(f"{s.type}/{s.cls}" for n in notes for s in n.spans)
    if name == "dev40":
        assert classes["HOSPITAL/facility"] >= 120
    elif name == "dev41":
        assert sum(classes[k] for k in ("PHONE/", "PHONE/pager", "PHONE/ext", "FAX/")) >= 70
        assert classes["DATE/year2"] + classes["DATE/year"] >= 50
    elif name == "dev42":
        assert classes["HOSPITAL/ward"] >= 50
    else:
        assert sum(v for k, v in classes.items() if k.startswith("NAME/")) >= 300


@pytest.mark.parametrize("name, caps, lower", [("dev44", 60, 20), ("dev45", 25, 55), ("heldout62", 50, 30),
                                                ("heldout63", 35, 45)])
def test_the_eleventh_rounds_sets_are_sparse_full_shifts(name: str, caps: int, lower: int) -> None:
    """80 full-shift notes each in its case and split, identifiers as sparse as in real notes (6 to 10 marked spans
    per 1,000 words, at least a quarter of the notes without one), so that what the detector flags among their
    devices, eponyms, drugs and shorthand weighs as it would in a hospital's notes."""
    notes, lengths = _full_shifts_in_split(name, caps, lower)
    assert 6 <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < 10
    assert sum(1 for n in notes if not n.spans) >= 20


@pytest.mark.parametrize("name, caps, lower", [("heldout64", 45, 35), ("heldout65", 40, 40)])
def test_the_eleventh_rounds_sets_written_after_its_last_rule_are_sparse_full_shifts(name: str, caps: int,
                                                                                      lower: int) -> None:
    """80 full-shift notes each in its case and split, written after the round's last rule by two more hands and
    measured once: identifiers sparse (5 to 13 marked spans per 1,000 words, at least 15 notes without one)."""
    notes, lengths = _full_shifts_in_split(name, caps, lower)
    assert 5 <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < 13
    assert sum(1 for n in notes if not n.spans) >= 15


def _assert_sparse_shifts(name: str, caps: int, lower: int, density: tuple[int, int], shortest: int) -> None:
    """A twelfth- or later-round set: 80 notes in its case and split, 13,000 words or more, at least 60 of 150 words or
    more and none under `shortest`, marked spans per 1,000 words within `density`, at least 15 notes without one."""
    notes = load(name)
    assert len(notes) == 80 and Counter(n.style for n in notes) == {"nursing_caps": caps, "nursing_lower": lower}
    lengths = [len(re.findall(r"[^\W_]+", n.text)) for n in notes]
    for note in notes:
        _assert_in_its_case(note)
    assert sum(lengths) >= 13000 and min(lengths) >= shortest and sum(1 for w in lengths if w >= 150) >= 60
    low, high = density
    assert low <= 1000 * sum(len(n.spans) for n in notes) / sum(lengths) < high
    assert sum(1 for n in notes if not n.spans) >= 15


@pytest.mark.parametrize("name, caps, lower, density", [
    ("dev46", 40, 40, (6, 10)), ("dev47", 50, 30, (6, 10)), ("dev48", 30, 50, (6, 10)), ("dev49", 40, 40, (10, 15)),
    ("dev50", 50, 30, (6, 10)), ("heldout66", 45, 35, (6, 10)), ("heldout67", 30, 50, (6, 10)),
    ("heldout68", 40, 40, (6, 10)), ("heldout69", 45, 35, (6, 10)), ("heldout70", 40, 40, (6, 10)),
    *[(name, caps, lower, (5, 13)) for name, caps, lower in (("heldout71", 45, 35), ("heldout72", 40, 40))],
])
def test_the_twelfth_rounds_sets_are_whole_shifts_in_their_case_and_split(name: str, caps: int, lower: int,
                                                                          density: tuple[int, int]) -> None:
    """80 notes each in its case and split, most of them full shifts (a few short event notes and addenda, none under
    50 words), identifiers as sparse as in real notes (dev49, for names, a little denser) and at least 15 notes
    without one."""
    _assert_sparse_shifts(name, caps, lower, density, shortest=50)


@pytest.mark.parametrize("name, caps, lower, density", [
    ("dev51", 40, 40, (8, 14)), ("dev52", 45, 35, (6, 10)), ("dev53", 40, 40, (6, 10)), ("dev54", 40, 40, (7, 12)),
    ("dev55", 45, 35, (6, 10)), ("dev56", 35, 45, (6, 10)), ("dev57", 35, 45, (6, 10)), ("dev58", 60, 20, (5, 10)),
    ("heldout73", 45, 35, (5, 10)), ("heldout74", 35, 45, (5, 10)), ("heldout75", 40, 40, (5, 10)),
    ("heldout76", 45, 35, (5, 10)), ("heldout77", 40, 40, (5, 10)), ("heldout78", 45, 35, (5, 10)),
    ("heldout79", 40, 40, (5, 10)), ("heldout80", 45, 35, (5, 10)), ("heldout81", 40, 40, (5, 10)),
    ("heldout82", 35, 45, (5, 10)),
])
def test_the_thirteenth_rounds_sets_are_whole_shifts_in_their_case_and_split(name: str, caps: int, lower: int,
                                                                             density: tuple[int, int]) -> None:
    """80 notes each in its case and split, most of them full shifts (a few short addenda, none under 30 words),
    identifiers as sparse as in real notes (dev51, for people, and dev54, for a long stay's paperwork, a little
    denser) and at least 15 notes without one."""
    _assert_sparse_shifts(name, caps, lower, density, shortest=30)


@pytest.mark.parametrize("name, caps, lower, density", [
    ("dev59", 45, 35, (6, 10)), ("dev60", 20, 60, (6, 10)), ("dev61", 40, 40, (6, 10)), ("dev62", 60, 20, (4, 8)),
    ("dev63", 40, 40, (6, 10)), ("dev64", 40, 40, (6, 10)), ("dev65", 45, 35, (6, 10)), ("dev66", 35, 45, (6, 10)),
    ("dev67", 50, 30, (6, 10)), ("dev68", 45, 35, (6, 10)), ("heldout83", 45, 35, (5, 10)),
    ("heldout84", 35, 45, (5, 10)), ("heldout85", 40, 40, (5, 10)), ("heldout86", 45, 35, (5, 10)),
    ("heldout87", 40, 40, (5, 10)), ("heldout88", 45, 35, (5, 10)), ("heldout89", 40, 40, (5, 10)),
    ("heldout90", 35, 45, (5, 10)),
])
def test_the_fourteenth_rounds_sets_are_whole_shifts_in_their_case_and_split(name: str, caps: int, lower: int,
                                                                             density: tuple[int, int]) -> None:
    """80 notes each in its case and split, most of them full shifts (a few short addenda, none under 30 words),
    identifiers as sparse as in real notes (dev62, for false alarms, sparser still) and at least 15 notes without
    one."""
    _assert_sparse_shifts(name, caps, lower, density, shortest=30)
