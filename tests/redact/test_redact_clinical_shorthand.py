"""PHI as clinicians write it in ICU, ED and letter notes (issue 12's miss classes), and the shorthand that
looks like PHI but is not (its false-alarm classes). Every example is invented."""

from __future__ import annotations

import pytest
from support.detected import flagged, found


def _hits(text: str, kind: str) -> list[str]:
    return found(text).get(kind, [])


@pytest.mark.parametrize(("text", "value"), [
    ("HX CABG '89, AICD '03, CHF.", "89"),
    ("HX CABG '89, AICD '03, CHF.", "03"),
    ("pmh: mi 97, cva 2006", "97"),
    ("S/P FEM-POP '97 AT OSH", "97"),
    ("retired '86 after 30 yrs", "86"),
    ("ADMITTED 6/85 AND AGAIN 4/79 FOR THE SAME", "6/85"),
    ("ADMITTED 6/85 AND AGAIN 4/79 FOR THE SAME", "4/79"),
    ("TROP PEAK 4.2 ON 11/2.", "11/2"),
    ("ex lap x2 (5/2, 5/4), abd open", "5/4"),
    ("varices banded 10/07, tips later", "10/07"),
    ("ERCP 3/3 WITH STONE EXTRACTION", "3/3"),
    ("MISSING HIS DAUGHTER'S WEDDING ON THE 23RD.", "23RD"),
    ("appt w/ ortho on the 14th at 9", "14th"),
    ("S/P XRT 9/14/9/15 TO THE CHEST", "9/14/9/15"),
    ("last seen in clinic 12/03.94? records unclear", "12/03.94"),
])
def test_partial_and_compact_dates_are_found(text: str, value: str) -> None:
    assert value in _hits(text, "DATE")


@pytest.mark.parametrize("text", [
    "CPAP 5/5 FIO2 40%, PS 12/8, BIPAP 12/5 AT NIGHT",
    "IVF D5 1/4NS @ 75, then 1/2 NS, may need 1/2 liter bolus",
    "strength 4/5 RUE and 5/5 LUE, grade 3/6 murmur, pain 4/10",
    "CCU NPN 1900-0700\nSLEPT 0000-0500, SVR 1100-1400, VT 450-500, HR 90-110",
    "FAMILY MTG SET FOR WEDNESDAY 1400. WILL COME IN THURSDAY. sat night",
    "R FEM SHEATH PULLED 2030, HEMOSTASIS W/ PRESSURE. HA since 1900.",
    "the 2nd dose was given; head circumference in the 15th and 3rd percentile",
    "5'10\" and 180 lb",
])
def test_settings_ranges_fractions_times_and_weekdays_are_not_dates(text: str) -> None:
    assert _hits(text, "DATE") == [] and _hits(text, "ID") == [] and _hits(text, "PHONE") == []


@pytest.mark.parametrize(("text", "value"), [
    ("CATH FELLOW DR NGUYEN AWARE, PAGER 41872.", "41872"),
    ("resident dr joshi, pgr 5-5521", "5-5521"),
    ("CASE MGMT (ROBIN TATE, X4471) FOLLOWING", "4471"),
    ("interpreter X6-2290", "6-2290"),
    ("pa-c   ext 44312", "44312"),
    ("HER # 508 555-0173.", "508 555-0173"),
])
def test_pagers_extensions_and_area_codes_are_phones(text: str, value: str) -> None:
    assert value in _hits(text, "PHONE")


@pytest.mark.parametrize("text", ["AMBULATED X2 IN HALL, SX Q2-3H", "IS x1000 while awake", "PAGED X2 RE: UO"])
def test_counts_after_x_are_not_extensions(text: str) -> None:
    assert _hits(text, "PHONE") == []


@pytest.mark.parametrize(("text", "value"), [
    ("MRN 431-22-90-7.", "431-22-90-7"),
    ("Job #: QR415/22817", "QR415/22817"),
    ("JOB#: 71193   CC: HARRIS", "71193"),
    ("Pathology (S20-41177) shows melanoma in situ", "S20-41177"),
    ("Scribe: Ashley Nunes (uid anunes2)", "anunes2"),
    ("report # AC-22-0419", "AC-22-0419"),
    ("Scribe: Ashley Nunes (anunes2)", "anunes2"),
    ("signed JSMITH12 at 0400", "JSMITH12"),
])
def test_identifiers_in_unusual_groupings_are_found(text: str, value: str) -> None:
    assert any(value in v for kind in ("ID", "MRN") for v in _hits(text, kind))


@pytest.mark.parametrize("text", ["CA-125 of 842, IL-6 high", "COVID-19 negative, L4-5 disc", "ICD-10 code",
                                  "SpO2 94%, FiO2 40, HbA1c 7.2, vitamin B12 low, PaCO2 48"])
def test_lab_and_code_names_are_not_identifiers(text: str) -> None:
    assert _hits(text, "ID") == []


@pytest.mark.parametrize(("text", "value"), [
    ("78 YO F TRANSFERRED FROM KMC FOR CATH.", "KMC"),
    ("came into BVH ER on 4/2 with a stroke", "BVH"),
    ("pt's cardiologist is at bmc but wants care here", "bmc"),
    ("? TRANSFER TO FARR 6 IN AM IF BED AVAIL.", "FARR 6"),
    ("PT ON WANG 3 TELEMETRY, CALLED TO MICU", "WANG 3"),
    ("From: Phillips 5 (Cardiac Surgery)", "Phillips 5"),
    ("PT WAS LAST HOSPITALIZED AT ST AGNES LAST YEAR.", "ST AGNES"),
    ("pt thinks he is at st. joe's", "st. joe's"),
    ("Prior fem-pop at St. Elizabeth's.", "St. Elizabeth's"),
    ("PER OLD RECORDS FROM MERCY HOSP, SIMILAR ADMIT", "MERCY HOSP"),
    ("she was a nurse at carney hospital for 30 yrs", "carney hospital"),
    ("Seacoast Rheumatology\n18 Market Square", "Seacoast Rheumatology"),
])
def test_in_house_places_are_hospitals(text: str, value: str) -> None:
    assert value in _hits(text, "HOSPITAL")


@pytest.mark.parametrize("text", [
    "TRANSFERRED TO MICU FROM THE ED, THEN TO CT. OGT TO LIS, NGT TO LCWS.",
    "ON LEVO 0.15 AND NEO 1.2, VT 450-500, CPAP 5/5, ON DILT 30 QID",
    "BEGIN CARDIAC REHAB. referred to pulm rehab. BEGIN REHAB W/ PT IN AM.",
    "S/P MVR (27MM ST JUDE MECH). St. John's wort at home.",
    "ADMITTED W/ COPD EXACERBATION VIA ED.",
    "returned from Vietnam 6 months ago",
])
def test_units_drips_and_devices_are_not_places(text: str) -> None:
    assert _hits(text, "HOSPITAL") == [] and _hits(text, "NAME") == []


@pytest.mark.parametrize(("text", "value"), [
    ("J. MILLER RN", "J. MILLER"),
    ("{} lee rn".format("k"), "k lee"),
    ("t.o'neil, rn", "o'neil"),
    ("BILL NADEAU, RRT", "BILL NADEAU"),
    ("NSURG NP HEATHER DOYLE AT BEDSIDE", "HEATHER DOYLE"),
    ("plan: egd in am per dr okafor.", "okafor"),
    ("FOLLOW UP W/ PCP DR BARRETT 6/12", "BARRETT"),
    ("IV NURSE ANNA KOWALSKI PLACED 2ND PIV", "ANNA KOWALSKI"),
    ("Pt: lacey morgan, 26F", "lacey morgan"),
    ("per owner (mr. pike)", "pike"),
])
def test_names_in_signatures_hand_offs_and_lower_case(text: str, value: str) -> None:
    assert any(value in hit for hit in _hits(text, "NAME"))


@pytest.mark.parametrize(("text", "values"), [
    ("ABT:PELLETIER", ["ABT", "PELLETIER"]),
    ("Transcribed by KLM/jones/ortiz", ["KLM", "jones", "ortiz"]),
    ("KLM/jones/ortiz", ["KLM", "jones", "ortiz"]),
    ("D: 6/24  T: 6/25  SC/mjt  JOB 88412", ["SC", "mjt"]),
    ("Dictated by A. Nguyen, MD  [ANP:dk]", ["ANP", "dk"]),
])
def test_initials_blocks_that_sign_a_note_are_names(text: str, values: list[str]) -> None:
    assert all(v in _hits(text, "NAME") for v in values)


@pytest.mark.parametrize("text", [
    "NEURO: A+OX3, MAE X4, PERRLA. NPO EXCEPT MEDS. BIPAP ON AT 0100, bipap off 0800.",
    "ON PROP @ 40, FENT 75, DOBUT 5, RENAL DOPA 3, NITRO GTT, SSI, heme neg, swan in place, aline r radial",
    "PT/OT TO SEE. N/V RESOLVED. S/P CABG. A/P: see above.",
    "pt's wife yvonne gave list of home meds.",
    "MICU B NPN\nPT WAS TRANSFERRED",
    "ED RN NOTE\n1730 Pt arrived",
    "SECURED W/ HOLLISTER. OGT TO LIS.",
])
def test_shorthand_drugs_and_devices_are_not_names(text: str) -> None:
    hits = _hits(text, "NAME")
    assert not any(w in " ".join(hits).upper() for w in ("MAE", "PERRLA", "NPO", "BIPAP", "PROP", "FENT",
                                                          "DOBUT", "DOPA", "NITRO", "SSI", "HEME", "SWAN",
                                                          "ALINE", "PT", "OT", "GAVE", "MICU", "NPN", "ED",
                                                          "HOLLISTER", "LIS"))


def test_relatives_named_after_a_relation_in_capitals() -> None:
    text = "SOCIAL: WIFE DOROTHY CALLED AT 2200. SON KEVIN TO VISIT SUNDAY. BROTHER FRANK NOT TO BE TOLD."
    names = _hits(text, "NAME")
    assert "DOROTHY" in names and "KEVIN" in names
    assert "SUNDAY" not in flagged(text)


def test_an_age_written_with_the_sex_but_not_a_temperature() -> None:
    assert _hits("Edna K., 90F, admitted from rehab", "AGE") == ["90"]
    assert _hits("T 99F, HR 100", "AGE") == [] and _hits("fever of 101F overnight", "AGE") == []
