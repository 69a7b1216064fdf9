"""Issue 32, ninth round: in ICU notes written all in capitals or all in lower case, facilities no list held and
facility words, months and towns typed with a slip of the keyboard, staff named by an initial in brackets, short
surnames after "dr", wards with their floor in words, relatives named before a verb, and two-digit years listed
after an event are masked; clock times after what was done, ventilator and nutrition fractions, makers named after
places, and slips of function words ("TA DAVITA", "WLL SEND") stay readable."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged, found


@pytest.mark.parametrize("text", [
    "HEPARIN GTT STARTED 2000 @ 800U/HR.", "TR BAND OFF 1930, +RADIAL PULSE.", "aline placed 2000 by fellow.",
    "NA 132 (2000) -> 135 (0400).", "sons visited 2000, upset at plan.",
])
def test_a_clock_time_after_what_was_done_is_no_year(text: str) -> None:
    assert "DATE" not in found(text)
    assert "DATE" not in found(text.lower())


@pytest.mark.parametrize("text, year", [
    ("MARRIED 1950, 3 KIDS.", "1950"), ("PACER PLACED 2004.", "2004"), ("Pacer placed 2000 by Dr. Lee.", "2000"),
])
def test_a_year_after_a_lifes_event_or_with_case_stays_a_date(text: str, year: str) -> None:
    assert year in found(text).get("DATE", [])


@pytest.mark.parametrize("text", [
    "BIPAP AT NIGHT 12/5 FOR OSA.", "TPN: CLINIMIX E 5/15 W/ LIPIDS AT 80.", "HA IMPROVED TO 3/10 AFTER TYLENOL.",
    "HR 88, 95 AND 103 OVERNIGHT.", "SATS 95, 97 ON 4L.",
])
def test_settings_strengths_scores_and_values_are_no_dates(text: str) -> None:
    assert "DATE" not in found(text)
    assert "DATE" not in found(text.lower())


@pytest.mark.parametrize("text, values", [
    ("PRIOR INTUBATIONS (88, 95, 03).", ["88", "95", "03"]), ("etoh pancreatitis 05 and 06, now pod 3.", ["05", "06"]),
    ("COPD, MI X2 (94, 02), CKD.", ["94", "02"]),
])
def test_two_digit_years_listed_after_an_event_are_each_a_date(text: str, values: list[str]) -> None:
    assert found(text).get("DATE", []) == values
    assert found(text.swapcase()).get("DATE", []) == values


@pytest.mark.parametrize("text, value", [
    ("TRANSFER TO SPAULDING CARDIAC REHAB TOMORROW.", "SPAULDING CARDIAC REHAB"),
    ("seen at the lahey last fall.", "lahey"),
    ("pt was at boston medical last yr.", "boston medical"), ("referrals to radius sent today.", "radius"),
    ("seen at brigham + womens in may.", "brigham + womens"),
    ("FOLLOWED AT MATTAPAN COMM HEALTH.", "MATTAPAN COMM HEALTH"),
    ("CARE AT CODMAN SQ HEALTH CTR.", "CODMAN SQ HEALTH CTR"), ("ONC AT SEACOAST CANCER CTR.", "SEACOAST CANCER CTR"),
    ("then back to the manor when stable.", "manor"), ("PSYCHIATRIST AT MASS MENTAL.", "MASS MENTAL"),
    ("FROM CHESTNUT HILL REHAB & NURSING W/ UGIB.", "CHESTNUT HILL REHAB & NURSING"),
    ("visiting from new bedfrod, upset.", "new bedfrod"), ("lives in jamaca plain w/ wife.", "jamaca plain"),
    ("SURGERY AT MASS GENRAL IN MAY.", "MASS GENRAL"), ("FROM SOUTH SHORE HOSPTIAL TODAY.", "SOUTH SHORE HOSPTIAL"),
    ("TREATED AT LAHEY CLNIC.", "LAHEY CLNIC"),
])
def test_facilities_and_towns_no_list_holds_or_typed_with_a_slip_are_found(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.swapcase(), value.swapcase())


@pytest.mark.parametrize("text, value, kept", [
    ("PT GETS HD TA DAVITA EVERETT.", "DAVITA EVERETT", "TA"), ("dialysis ta fresenius quincy.", "fresenius", "ta"),
    ("transfered form feldberg 7 tonight.", "feldberg 7", "form"),
])
def test_a_function_word_typed_with_a_slip_starts_no_facility(text: str, value: str, kept: str) -> None:
    assert covered(text, value)
    assert not any(kept in f.split() for f in flagged(text))


@pytest.mark.parametrize("text", [
    "WIFE WAS A PROFESSOR TA TUFTS.", "NH CALLED, WLL SEND RECORDS.", "TRANSFERED FROM ONC FLOOR TO MICU.",
    "37 YO M. DAY 2 IN UNIT.", "33 y/o f. brain death exam #1 done.", "LUDWIG'S ANGINA FROM DENTAL ABSCESS.",
    "PPM (BOSTON SCI) INTERROGATED.", "FLOWN IN BY BOSTON MEDFLIGHT.", "KINGS COLLEGE CRITERIA DISCUSSED.",
    "32% TBSA (LUND-BROWDER).", "AUTH PENDING WITH HARVARD PILGRIM.", "OFFLOADING SHOE (DARCO) ON L FOOT.",
    "S/P CABG X2 (LIMA-LAD, RIMA-OM).", "URINE CX: E COLI, ENTEROCOCCUS, CANDIDA.", "PT REDIRECTABLE, DESATTED TO 85%.",
    "HOME O2 VIA APRIA.", "R FOREARM 20G. ALINE DECLINED BY PT.", "SWAN (R. IJ) IN PLACE.",
    "WEAKNESS (L. ARM) UNCHANGED.", "DR ON CALL AWARE.",
])
def test_what_looks_like_the_rounds_identifiers_is_not_phi(text: str) -> None:
    assert [f for f in flagged(text) if not f[:1].isdigit()] == []
    assert [f for f in flagged(text.lower()) if not f[:1].isdigit()] == []


@pytest.mark.parametrize("text, value", [
    ("APS (T. NORTH) AWARE OF PAIN.", "T. NORTH"), ("sw (p. ames) paged.", "p. ames"),
    ("EP (J. FRIES, DEVICE RN) CHECKED PPM.", "J. FRIES"), ("per dr mas.", "mas"),
    ("RENAL (DR. OH) PLACED R IJ.", "OH"),
    ("f/u w/ dr. lo in 4 wks.", "lo"), ("DR SZCZEPANSKI-BROWN AWARE.", "SZCZEPANSKI-BROWN"),
    ("pt's father (art) and stepmom drove down.", "art"), ("WIDOWER. NICK SAYS PT WALKS DAILY.", "NICK"),
    ("updated. hank lives near pt.", "hank"),
])
def test_staff_and_relatives_named_the_rounds_ways_are_found(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.swapcase(), value.swapcase())


@pytest.mark.parametrize("text, value", [
    ("back to farr eleven when off pressors.", "farr eleven"), ("NOT READY FOR LUNDER 7.", "LUNDER 7"),
    ("ADMIT TO CC 7 THEN BUMPED TO MICU.", "CC 7"),
])
def test_wards_with_their_floor_in_words_or_closing_a_sentence_are_found(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.swapcase(), value.swapcase())


@pytest.mark.parametrize("text, value", [
    ("SMOKER, QUIT NOVMBER WHEN DX.", "NOVMBER"), ("confused, thinks its janaury.", "janaury"),
    ("LISTED SINCE AUGUT 2005.", "AUGUT"),
])
def test_a_month_typed_with_a_slip_is_a_date(text: str, value: str) -> None:
    assert value in found(text).get("DATE", [])
    assert value.swapcase() in found(text.swapcase()).get("DATE", [])


@pytest.mark.parametrize("text", ["WILL CALL IF WORSE.", "MOM SAYS PT SLEPT.", "marches in place w/ pt."])
def test_a_word_that_opens_a_sentence_is_no_name_unless_it_is_one(text: str) -> None:
    assert flagged(text) == []


@pytest.mark.parametrize("text", [
    "GI: 1800 KCAL ADA DIET, ATE WELL.", "GI: REG DIET, BM X1.", "HCT ROSE APPROPRIATELY W/ 2U.",
    "pat dry technique taught.", "radial pulse 2+, allen's ok.",
])
def test_nursing_phrases_that_hold_a_name_are_not_phi(text: str) -> None:
    assert flagged(text) == []
    assert flagged(text.swapcase()) == []


@pytest.mark.parametrize("text, value", [("WIFE ADA CALLED.", "ADA"), ("DAUGHTER ROSE AT BEDSIDE.", "ROSE"),
                                         ("SON PAT CALLED.", "PAT"), ("MRS BARRETT CALLED.", "BARRETT")])
def test_the_same_words_after_a_relation_or_a_title_are_names(text: str, value: str) -> None:
    assert covered(text, value)


@pytest.mark.parametrize("text, value", [("plan: cont abx.\n- kasia rn\naddendum: bs 140.", "kasia"),
                                         ("plan: same.\njj rn / charge peg", "jj"), ("plan: same.\ntess, rn", "tess")])
def test_a_sign_off_line_of_one_word_and_a_credential_names_the_nurse(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.upper(), value.upper())


@pytest.mark.parametrize("text", ["plan: same.\ncharge rn", "PLAN: SAME.\nICU RN", "plan: same.\nfloat rn aware"])
def test_a_sign_off_line_that_says_which_nurse_names_no_one(text: str) -> None:
    assert flagged(text) == []


@pytest.mark.parametrize("text", ["IS Q1H WHILE AWAKE, 750-1000.", "VANCO DAY 6/42, LEVEL PENDING."])
def test_a_range_of_round_volumes_and_a_counted_day_are_no_identifiers(text: str) -> None:
    assert flagged(text) == []
    assert flagged(text.lower()) == []


@pytest.mark.parametrize("text, value", [("back to farr-7 step down tonight.", "farr-7"),
                                         ("transferred from 10 blake at 2100.", "10 blake"),
                                         ("?TX BLAKE 11 IN AM.", "BLAKE 11")])
def test_a_listed_ward_with_its_floor_after_a_hyphen_or_the_blake_building_is_found(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.swapcase(), value.swapcase())


@pytest.mark.parametrize("text", ["ON CELECOXIB (COX-2 INHIBITOR).", "ON COX-2 INHIBITOR.",
                                  "SWITCHED TO COX-2 INHIBITOR."])
def test_an_enzyme_named_like_a_ward_is_not_one(text: str) -> None:
    assert flagged(text) == []
    assert flagged(text.lower()) == []
