"""Issue 32, fourteenth round: in ICU notes written all in capitals or all in lower case, ward codes spaced from
their floor's number are masked after any word, not only after a move."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged, found

BOTH = pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])


@BOTH
@pytest.mark.parametrize("text, ward", [
    ("bed delayed, plan was cc 11 overnight.", "cc 11"),
    ("orders written for cc 7 and bed assigned.", "cc 7"),
    ("was in cc 7 briefly then back to micu.", "cc 7"),
    ("call out to cc 7, bed assigned @ 1400.", "cc 7"),
    ("transferred from ccu to cc 7 step down tomorrow.", "cc 7"),
    ("plan transferback to cc 7 after.", "cc 7"),
])
def test_a_clinical_center_ward_spaced_from_its_number_is_a_ward(case, text: str, ward: str) -> None:
    text = case(text)
    assert covered(text, case(ward))
    assert "HOSPITAL" in found(text)


@BOTH
@pytest.mark.parametrize("text", [
    "received 500 cc 5% albumin x1.", "flushed w/ 10 cc ns.", "uop 30 cc 2 hrs ago.", "given 250 cc 20% lipids.",
    "cc 7 days of cough.", "residual 40cc 4 hrs after feed.",
])
def test_a_volume_in_cc_before_a_number_is_no_ward(case, text: str) -> None:
    text = case(text)
    assert "HOSPITAL" not in found(text), flagged(text)


@BOTH
@pytest.mark.parametrize("text, ward", [
    ("last evening per f6 rn, appropriate", "f6"),
    ("report given to cc7 charge nurse", "cc7"),
    ("pt called out to feldberg, report given", "feldberg"),
    ("pt taken to feldberg for ct chest at 1400", "feldberg"),
])
def test_a_ward_is_found_by_its_staff_or_a_move(case, text: str, ward: str) -> None:
    text = case(text)
    assert covered(text, case(ward))


@BOTH
@pytest.mark.parametrize("text, place, kept", [
    ("admitted 3/30 from quincy med w/ tumor lysis", "quincy med", None),
    ("admitted at lahey north shore, ct neg for bleed", "lahey north shore", None),
    ("pt initially at osh good sam, here since", "good sam", "osh"),
    ("adm from osh holy family w/ sepsis", "holy family", "osh"),
])
def test_a_hospital_is_masked_whole_without_the_word_for_an_outside_one(case, text: str, place: str,
                                                                        kept: str | None) -> None:
    text = case(text)
    assert covered(text, case(place))
    if kept is not None:
        assert all(case(kept) not in f.split() for f in flagged(text))


@BOTH
@pytest.mark.parametrize("text", [
    "via boston med flight to the ed.", "knee tapped at osh (purulent). knee immobilizer on.",
    "meds at 1800 not yet given, rn aware.", "q4h, fluids per na, abx as ordered.", "next ptt due 2000.",
    "vent settings unchanged, pt desats to 85% with turns.", "plan per case mgmt, np aware.",
    "transferred to white when bed ready.",
])
def test_shorthand_and_times_around_cues_are_not_identifiers(case, text: str) -> None:
    text = case(text)
    assert not found(text), flagged(text)
