"""Issue 32, fourteenth round: in ICU notes written all in capitals or all in lower case, wards are masked by their
code spaced from a floor, by their staff or after a move; hospitals and nursing homes cut short, far places, years
cited "per" someone, years hyphened to their event and surnames with particles are masked; words run together,
mistyped strength grades, culture bottle counts, beepers and countries after a town are not."""

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


@BOTH
@pytest.mark.parametrize("text, date", [
    ("last scope was in 2001 per daughter, normal.", "2001"),
    ("cabg in 1998 per pt.", "1998"),
    ("symptoms started on the 9th w/ fever and ha.", "9th"),
])
def test_a_year_before_who_said_so_and_an_ordinal_before_with_are_dates(case, text: str, date: str) -> None:
    text = case(text)
    assert covered(text, case(date))
    assert "DATE" in found(text)


@BOTH
@pytest.mark.parametrize("text, name", [
    ('pt calls herself "bunny" and asks staff to as well.', "bunny"),
    ("(calls himself skip) still works as a plumber.", "skip"),
    ("met w/ dr. achebe (micu attending) and family.", "achebe"),
    ("one daughter, tamsin, works nights.", "tamsin"),
])
def test_a_name_after_a_naming_verb_or_beside_a_relation_is_kept(case, text: str, name: str) -> None:
    text = case(text)
    assert covered(text, case(name))


@BOTH
@pytest.mark.parametrize("text", [
    "pain 8/10 at startof shift, dilaudid given.", "family updated bythis rn. she will call.",
    "bcx 2/2 gnr per micro call.", "thyroid storm (burch-wartofsky 60), on ptu.",
    "ugib from dieulafoy lesion (fundus).",
    "s/p acute ami, cath yesterday.", "bilat dp/pt dop, femorals palp.", "2000 per day.",
])
def test_words_run_together_and_micro_shorthand_are_not_identifiers(case, text: str) -> None:
    text = case(text)
    assert not {"NAME", "CITY", "HOSPITAL", "DATE"} & set(found(text)), flagged(text)


@BOTH
def test_a_phones_label_run_into_it_stays_outside_the_number(case) -> None:
    text = case("worse overnight, cell-6175550188. she will call.")
    assert covered(text, "6175550188")
    assert all(not f.lower().startswith("cell") for f in flagged(text))


@BOTH
@pytest.mark.parametrize("text", ["r sided weaknes 4/5 ue and le, unchanged.", "ble strenght 5/5, sensation intact.",
                                  "scar r knee from tkr.", "info from icu nursing note.", "hx from hospice nursing."])
def test_a_mistyped_strength_grade_and_a_kind_of_nursing_are_no_identifiers(case, text: str) -> None:
    text = case(text)
    assert not {"DATE", "HOSPITAL"} & set(found(text)), flagged(text)


@BOTH
@pytest.mark.parametrize("text, phi", [
    ("97 yo f from rosewood nursing w/ urosepsis.", "rosewood nursing"),
    ("report given by phone to jm, rn, at 1630.", "jm"),
])
def test_a_nursing_home_cut_short_and_initials_after_a_phone_report_are_found(case, text: str, phi: str) -> None:
    text = case(text)
    assert covered(text, case(phi))


@BOTH
@pytest.mark.parametrize("text, place", [
    ("lives in presque isle, me, was down for the winter.", "presque isle"),
    ("moved to lisbon, portugal 3 yrs ago, back for visit.", "lisbon"),
    ("had a room at the seaport hotel. works as a pharmacist.", "seaport hotel"),
    ("ambulance from st. agnes medical center, no records.", "st. agnes medical center"),
])
def test_far_places_are_found_whole_and_the_country_after_a_town_is_left(case, text: str, place: str) -> None:
    text = case(text)
    assert covered(text, case(place))
    assert "NAME" not in found(text), flagged(text)


@BOTH
@pytest.mark.parametrize("text, kept", [
    ("from ponce, puerto rico on saturday's flight.", "rico"), ("at the airport hotel overnight.", "airport"),
    ("found in a hotel room by staff.", "hotel"), ("dr lindqvist paged via beeper 31474, agreed.", "beeper"),
    ("bcx from osh 4/4 mssa, repeat here pending.", "4/4"), ("pa 84/40 at rhc today.", "rhc"),
    ("delirium starting ~2000, trying to climb.", "2000"),
])
def test_countries_kinds_of_place_beepers_and_bottles_are_not_what_they_look_like(case, text: str,
                                                                                  kept: str) -> None:
    text = case(text)
    assert all(case(kept) not in f for f in flagged(text)), flagged(text)


@BOTH
@pytest.mark.parametrize("text, phi", [
    ("saw a doctor in 98 per wife), tobacco hx.", "98"), ("prior intubation 2003 per pt's mom.", "2003"),
    ("a 93 yo f (born 1914 per face sheet).", "1914"), ("admitted to carney 3-2, tx'd here after.", "3-2"),
    ("transferred from 7 feldberg 8-2 for declining uop.", "8-2"), ("sens per dr van der berg.", "van der berg"),
    ("per dr de la cruz, ok to extubate.", "de la cruz"),
])
def test_years_cited_dates_after_a_place_and_surnames_with_particles_are_found(case, text: str, phi: str) -> None:
    text = case(text)
    assert covered(text, case(phi))


@BOTH
@pytest.mark.parametrize("text", ["hr in 90 per rn.", "was at mgh 2-3 times.", "from lowell 1-2 wks ago.",
                                  "l forearm 2cm - steristrips and kerlix.", "drain 2 cm above site."])
def test_counts_ranges_and_centimetres_are_not_dates_or_names(case, text: str) -> None:
    text = case(text)
    assert not {"DATE", "NAME"} & set(found(text)), flagged(text)


@BOTH
@pytest.mark.parametrize("text, year", [("pmh: cva-99 w/ residual l sided weakness.", "99"),
                                        ("pmh: cabg-93, avr (tissue).", "93"), ("hx mi-98 and cabg-00.", "00")])
def test_a_two_digit_year_joined_to_its_event_by_a_hyphen_is_a_date(case, text: str, year: str) -> None:
    text = case(text)
    assert covered(text, year)


@BOTH
@pytest.mark.parametrize("text", ["avr-21 mm, no leak.", "cox-2 inhibitor held.", "basal d/c'd per apn.",
                                  "pt's pcp office called by team."])
def test_a_valve_size_a_drug_class_and_who_gave_an_order_are_not_identifiers(case, text: str) -> None:
    text = case(text)
    assert not {"DATE", "NAME"} & set(found(text)), flagged(text)
