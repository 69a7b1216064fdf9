"""Issue 32, tenth round: in ICU notes written all in capitals or all in lower case, wards named after a person or a
place with their number before what the ward is, clinics, centres, buildings and houses named after a person, a
facility's short name in brackets after it, "university of" a state, a date right after a place, a state that is a
first name after a relation, and two-digit years after bleeds and attempts are masked; doses, fractions, generic
clinics and units, and states where a relative lives stay readable."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged, found

BOTH = pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])


@BOTH
@pytest.mark.parametrize("text, ward", [
    ("then lowell 9 neuro step down tomorrow.", "lowell 9"),
    ("likely sheehan 3 medical floor then a rehab.", "sheehan 3"),
    ("to the shattuck 4 pulm step-down, bed pending.", "shattuck 4"),
    ("4h --> farragut 11 (gi/liver floor) when stable.", "farragut 11"),
    ("transitioned bowditch 2 (inpt psych) her choice.", "bowditch 2"),
    ("bed hold on the harborview 2 dementia unit.", "harborview 2"),
    ("on the fenwick 10 step-down here first.", "fenwick 10"),
])
def test_a_ward_named_after_a_person_or_place_with_its_number_is_found(case, text: str, ward: str) -> None:
    text, ward = case(text), case(ward)
    assert covered(text, ward)
    assert "medical" not in " ".join(flagged(text)).lower()  # the ward's service is no part of its name


@BOTH
@pytest.mark.parametrize("text", [
    "novolog 4 unit ss given.", "humalog 4 unit before meals.", "morphine 2 unit dose.", "pt to 7 west tomorrow.",
    "walked 2 floors with pt.", "level 3 floor.",
])
def test_a_dose_or_a_generic_unit_is_no_ward(case, text: str) -> None:
    assert flagged(case(text)) == []


@BOTH
@pytest.mark.parametrize("text, name", [
    ("seen in the saltonstall liver clinic last year.", "saltonstall liver clinic"),
    ("in the comerford epilepsy center.", "comerford epilepsy center"),
    ("followed in the rosenthal thoracic oncology clinic.", "rosenthal thoracic oncology clinic"),
    ("to the harwood building vascular floor.", "harwood building"), ("to barbara mcinnis house when ready.",
                                                                     "mcinnis house"),
    ("from group home (vinfen residence) after a fall.", "vinfen residence"),
    ("admitted to somerville hospital (cha) then here.", "cha"),
    ("admission to university of miami in december.", "university of miami"),
    ("per team she is at univ of michigan?", "univ of michigan"),
])
def test_clinics_buildings_and_short_names_of_a_facility_are_found(case, text: str, name: str) -> None:
    text, name = case(text), case(name)
    assert covered(text, name)
    assert any(name.split()[0] in value for value in found(text).get("HOSPITAL", []))


@BOTH
@pytest.mark.parametrize("text", [
    "seen in the diabetes center.", "in the new liver clinic.", "to the cancer center.", "in the main building.",
    "at the senior center today.", "at the day center.", "to mgh (icu) then floor.",
    "from mercy hospital (ed) via ems.",
])
def test_generic_clinics_buildings_and_units_in_brackets_are_no_names(case, text: str) -> None:
    words = " ".join(flagged(case(text))).lower()
    for generic in ("diabetes", "liver", "cancer", "main", "senior", "day", "icu", "ed"):
        assert generic not in words.split()


@BOTH
@pytest.mark.parametrize("text, date", [
    ("tube fed at kindred 3/2, readmitted w/ pna.", "3/2"), ("found down in charlestown 3/4. carried out.", "3/4"),
    ("via beverly hosp 3/3 w/ apap level.", "3/3"),
])
def test_a_month_and_day_after_a_place_is_a_date(case, text: str, date: str) -> None:
    assert date in found(case(text)).get("DATE", [])


@BOTH
@pytest.mark.parametrize("text", ["came from lowell 1/2 tab short.", "from boston 3/4 of the way.",
                                  "in quincy 2/3 strength ensure."])
def test_a_fraction_after_a_place_is_no_date(case, text: str) -> None:
    assert "DATE" not in found(case(text))


@BOTH
@pytest.mark.parametrize("text, name", [
    ("wife virginia at bedside all day.", "virginia"), ("social: wife georgia, speaks greek.", "georgia"),
    ("niece may checks on her daily.", "may"), ("spoke w/ charge hector re: staffing.", "hector"),
])
def test_relatives_and_staff_named_by_words_that_are_also_states_or_verbs_are_found(case, text: str,
                                                                                  name: str) -> None:
    assert case(name) in found(case(text)).get("NAME", [])


@BOTH
@pytest.mark.parametrize("text", ["sister in georgia, will call.", "son may visit tomorrow.", "charge 200j given."])
def test_states_modals_and_charges_are_no_names(case, text: str) -> None:
    assert "NAME" not in found(case(text))


@BOTH
@pytest.mark.parametrize("text, years", [
    ("variceal bleed 06, tips considered.", ["06"]), ("prior attempt 02 (cutting).", ["02"]),
    ("gi bleed 06 and 07.", ["06", "07"]),
])
def test_two_digit_years_after_bleeds_and_attempts_are_dates(case, text: str, years: list[str]) -> None:
    assert found(case(text)).get("DATE", []) == years


@BOTH
@pytest.mark.parametrize("text", ["bleed 40 cc from site.", "no bleed 10 min after.", "attempt 2 of 3."])
def test_volumes_and_counts_after_bleeds_and_attempts_are_no_years(case, text: str) -> None:
    assert "DATE" not in found(case(text))


@BOTH
@pytest.mark.parametrize("text, year", [
    ("transplant at tufts in 94. wean iabp.", "94"), ("dx at mass general in 92. referred by dr.", "92"),
    ("hx: cabg at lowell general 99.", "99"), ("detox at kindred in 02, sober since.", "02"),
])
def test_a_two_digit_year_after_a_place_is_a_date(case, text: str, year: str) -> None:
    assert year in found(case(text)).get("DATE", [])


@BOTH
@pytest.mark.parametrize("text", ["at mgh 85 bpm.", "sats at mgh in 90s on ra.", "hr at lahey 88 on arrival."])
def test_a_rate_after_a_place_is_no_year(case, text: str) -> None:
    assert "DATE" not in found(case(text))


@BOTH
@pytest.mark.parametrize("text, parts", [
    ("dad's cell 614 (ohio) 555-0124.", ["614", "555-0124"]),
    ("phone: area code 339 then 555-0194.", ["339", "555-0194"]),
    ("wife's cell 617, 555-0100 after 5.", ["617", "555-0100"]),
    ("pgr for liver coordinator 32980.", ["32980"]),
])
def test_an_area_code_or_a_pager_written_apart_from_its_number_is_found(case, text: str, parts: list[str]) -> None:
    assert found(case(text)).get("PHONE", []) == parts


@BOTH
@pytest.mark.parametrize("text", ["bp 120 phone 555-0100.", "home 120 then 555-0124.", "pgr not working, call 55555."])
def test_a_value_before_a_phone_is_no_area_code(case, text: str) -> None:
    assert all(len(p) > 3 for p in found(case(text)).get("PHONE", []))


@BOTH
@pytest.mark.parametrize("text, town", [
    ("lives in lynn ma with wife.", "lynn"), ("son in quincy ma, independent.", "quincy"),
    ("dtr from milton ma today.", "milton"), ("lives in florence ma.", "florence"),
])
def test_a_town_named_like_a_person_before_its_state_is_the_town_alone(case, text: str, town: str) -> None:
    assert found(case(text)) == {"CITY": [case(town)]}


@BOTH
@pytest.mark.parametrize("text", [
    "swan in r pa, no ptx.", "incision (mercedes) with staples, dsg dry.", "pericardial drain (blake) to sx.",
    "flushed w/ 60cc toomey syringe.", "hemoptysis ~150cc at hom.", "transfer closer to hom once stable.",
    "undermining at 12 oclock, vac on.", "keep on 3 aeds, sw for ride.", "to cath lab from helipad.",
    "bleed from gda pseudoaneurysm?", "ffp via plex, out 2.2l.", "moved all 4 but became tachy.",
    "voiding via bedpan, 900cc for shift.", "in cath lab via r fem, 1:1, augmented.", "free h2o via d5w started.",
    "hr 124, 12 lead st only, ho aware.", "pill bottles at 1800 med pass. group home.",
])
def test_devices_slips_counts_and_routes_are_no_identifiers(case, text: str) -> None:
    assert flagged(case(text)) == []


@pytest.mark.parametrize("text, value", [
    ("FOUND AT 77 MASS AVE.", "77 MASS AVE"), ("LIVES AT 12 ELM ST, QUINCY.", "12 ELM ST"),
    ("Vive en Via Roma, 12, Milano.", "Via Roma, 12"), ("AND SON-IN-LAW (HAROLD) VISITED.", "HAROLD"),
    ("TRANSFERRED TO WHITE 9 TODAY.", "WHITE 9"), ("TRANSFERRED FROM KMC FOR CATH.", "KMC"),
    ("dtr lynn ma called.", "lynn ma"),
])
def test_streets_wards_and_people_beside_those_readings_are_still_found(text: str, value: str) -> None:
    assert covered(text, value)


@BOTH
@pytest.mark.parametrize("text", [
    "pulm toilet, call md if fio2 rises.", "on-call rn paged back at 0200.", "interpreter svcs x6 if son calls.",
    "interpreter services called, phone interp used.",
])
def test_calls_and_services_are_no_people(case, text: str) -> None:
    assert "NAME" not in found(case(text))
