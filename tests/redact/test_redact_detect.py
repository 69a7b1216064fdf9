"""Detection on realistic snippets: each identifier type, clinical look-alikes that must stay."""

from __future__ import annotations

import itertools

import pytest
from support.detected import flagged, found

from medhelm_local.redact import PhiType, detect

NURSING = """0700 PT A&O X3, O2 SAT 96% ON 2L NC. ABG 7.35/45/88. AMBULATED X2 WITH PT. TOLERATING PO DIET.
SPOKE WITH DAUGHTER JANE KOWALSKI AT 617-555-1234 RE: D/C PLANNING. DR NGUYEN AWARE. MRN 12345678.
2000 PT RESTING. LASIX 40 MG IV GIVEN. FOLEY DRAINING CLEAR YELLOW URINE. WIFE AT BEDSIDE.
ADMITTED 7/22 FROM MERCY HOSPITAL. PAIN 7/10. STRENGTH 5/5 BUE. WHITE COUNT 12.3. BLACK STOOLS X2."""


def test_all_caps_nursing_note_finds_phi_and_leaves_shorthand() -> None:
    hits = found(NURSING)
    assert hits["NAME"] == ["JANE KOWALSKI", "NGUYEN"]
    assert hits["PHONE"] == ["617-555-1234"]
    assert hits["MRN"] == ["12345678"]
    assert hits["DATE"] == ["7/22"]
    assert hits["HOSPITAL"] == ["MERCY HOSPITAL"]
    text = " ".join(flagged(NURSING))
    for shorthand in ("O2", "SAT", "7.35", "45/88", "X2", "X3", "PO", "2000", "7/10", "5/5", "LASIX", "FOLEY",
                      "WHITE", "BLACK", "BUE"):
        assert shorthand not in text.split(), shorthand


@pytest.mark.parametrize("date", ["7/22", "March 3rd", "03-Mar-2021", "07/22/2021", "7/22/21", "2021-07-22",
                                  "3 March 2021", "Mar. 3, 2021", "MARCH 3RD", "22.07.2021", "July 2019",
                                  "3rd of March", "03MAR2021"])
def test_dates_in_every_common_form(date: str) -> None:
    assert found(f"Seen in clinic on {date} for follow-up.").get("DATE") == [date]


def test_year_next_to_a_date_and_alone() -> None:
    assert found("Diagnosed in 2021, CABG (2015).")["DATE"] == ["2021", "2015"]
    assert found("Admitted March 3, 2021.")["DATE"] == ["March 3, 2021"]


@pytest.mark.parametrize("text", ["Pain 7/10 at rest.", "Strength 5/5 in all extremities.", "BP 120/80, HR 72.",
                                  "Take 1/2 tab PO daily.", "A 2/6 systolic murmur.", "AT 2000 PT RESTING.",
                                  "2000 mL fluid restriction.", "ABG 7.35/45/88 on 40% FiO2.",
                                  "Platelets 250, INR 1.1.",
                                  "May resume aspirin.", "Ambulated x2 with PT, tolerating PO."])
def test_clinical_numbers_are_not_phi(text: str) -> None:
    assert flagged(text) == []


def test_ages_over_89_only() -> None:
    assert found("A 92-year-old man and his 67-year-old wife.")["AGE"] == ["92"]
    assert found("Pt is 94 yo, aged 101 per chart.")["AGE"] == ["94", "101"]
    assert "AGE" not in found("A 67 yo woman, 88 years old.")


def test_phone_and_fax() -> None:
    hits = found("Call (617) 555-1234 or +1 508 555 0199 ext. 22. Fax: 617-555-9876.")
    assert hits["PHONE"] == ["(617) 555-1234", "+1 508 555 0199 ext. 22"]
    assert hits["FAX"] == ["617-555-9876"]


def test_record_and_other_numbers() -> None:
    hits = found("MRN: 12345678. MR# 00482131. Medical record number 4829103. SSN 123-45-6789. "
                 "Member ID: XJH448190203. Acct #: 0049281733. DEA: AB1234563. VIN 1HGCM82633A004352. "
                 "Pacemaker serial number PJN123456.")
    assert hits["MRN"] == ["12345678", "00482131", "4829103"]
    assert hits["SSN"] == ["123-45-6789"]
    assert hits["HEALTH_PLAN"] == ["XJH448190203"]
    assert hits["ACCOUNT"] == ["0049281733"]
    assert hits["LICENSE"] == ["AB1234563"]
    assert hits["VEHICLE"] == ["1HGCM82633A004352"]
    assert hits["DEVICE"] == ["PJN123456"]


def test_email_url_ip() -> None:
    hits = found("Mail rwhit@example.com, portal https://mychart.bmc.org/visit?id=7 (or www.bmc.org). "
                 "Host 10.1.2.33 and fe80::1ff:fe23:4567:890a.")
    assert hits["EMAIL"] == ["rwhit@example.com"]
    assert hits["URL"] == ["https://mychart.bmc.org/visit?id=7", "www.bmc.org"]
    assert hits["IP"] == ["10.1.2.33", "fe80::1ff:fe23:4567:890a"]


def test_names_in_dialogue_lower_and_mixed_case() -> None:
    lower = "[doctor] hi , martha . how are you ?\n[patient] my son david drove me . dr. lee said hi .\n"
    assert found(lower)["NAME"] == ["martha", "david", "lee"]
    mixed = "Doctor: Good morning, Mrs. Okonkwo. Is your daughter Priyanka here?\nPatient: Yes, she is.\n"
    assert found(mixed)["NAME"] == ["Okonkwo", "Priyanka"]


def test_a_name_found_once_is_found_everywhere() -> None:
    text = "Attending: Dr. Sarah Whitfield. Whitfield reviewed the films. WHITFIELD AWARE."
    assert found(text)["NAME"] == ["Sarah Whitfield", "Whitfield", "WHITFIELD"]


def test_capitalised_clinical_words_are_not_names() -> None:
    text = ("Seen in the Emergency Department by Cardiology and Physical Therapy. Foley catheter placed. "
            "History of Parkinson's disease and Crohn's disease. Glasgow Coma Scale 15. White count 12.3. "
            "Black stools resolved. Lasix and Coumadin held. Bell's palsy on the right. Denies chest pain.")
    assert flagged(text) == []


def test_addresses_and_facilities() -> None:
    hits = found("Lives at 42 Elm Street, Apt 3B, Springfield, MA 01103. Transferred from St. Mary's Hospital "
                 "to Boston Medical Center.")
    assert hits["STREET"] == ["42 Elm Street, Apt 3B"]
    assert hits["ZIP"] == ["01103"]
    assert hits["HOSPITAL"] == ["St. Mary's Hospital", "Boston Medical Center"]
    assert "Springfield" in hits.get("CITY", []) + hits.get("NAME", [])


def test_spans_are_sorted_merged_and_typed() -> None:
    spans = detect("Dr. John Smith (john.smith@example.com) saw him 7/22.")
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
    assert all(isinstance(s.type, PhiType) for s in spans)
    assert [s.type for s in spans] == [PhiType.NAME, PhiType.EMAIL, PhiType.DATE]
