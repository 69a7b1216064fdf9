"""What a drug or a setting was changed from, and what it was changed to after that, is no place: ICU notes write
"SWITCHED FROM PACERONE TO ZOCOR" and "weaned from levophed" with brands no vocabulary holds, which a place cue
("from", "to") would otherwise read as an outside hospital. A patient moved from a place still names it. A brand
awaited from pharmacy is no person from a service; a first name there still is."""

from __future__ import annotations

import pytest
from support.detected import covered, found

# Brands that MedicationQA's questions name and no list of the rule pack holds.
BRANDS = ("JANTOVEN", "PACERONE", "SANDIMMUNE", "GLUCOPHAGE", "ZOCOR", "ANDRX")


def _nothing_found_in_either_case(text: str) -> None:
    for written in (text, text.lower()):
        assert not found(written), written


@pytest.mark.parametrize("brand", BRANDS)
@pytest.mark.parametrize("template", [
    "SWITCHED FROM {} TO HEPARIN.", "CHANGED FROM {} LAST PM.", "WEANED FROM {} OVERNIGHT.",
    "CONVERTED FROM {} TO PO.", "SWITCHED FROM HEPARIN TO {}.", "DECREASED FROM {} 10 TO 5.",
])
def test_a_brand_a_drug_was_changed_from_or_to_is_no_place(brand: str, template: str) -> None:
    _nothing_found_in_either_case(template.format(brand))


@pytest.mark.parametrize("text, place", [
    ("TRANSFERRED FROM KMC FOR CATH.", "KMC"), ("admitted from gosnold for detox.", "gosnold"),
    ("PT CAME FROM NASHOBA TODAY.", "NASHOBA"), ("SWITCHED HOSPITALS.\nFROM KMC TO HERE.", "KMC"),
    ("TRANSFERRED FROM FELDBERG 7 TODAY.", "FELDBERG 7"), ("pt changed.\nfrom eastwing 4 to micu.", "eastwing 4"),
])
def test_a_patient_moved_from_a_place_still_names_it(text: str, place: str) -> None:
    assert covered(text, place)


@pytest.mark.parametrize("brand", BRANDS)
@pytest.mark.parametrize("template", ["AWAITING {} FROM PHARMACY.", "waiting for {} from pharmacy",
                                      "NEEDS MORE {} FROM PHARM"])
def test_a_brand_awaited_from_pharmacy_is_no_person(brand: str, template: str) -> None:
    _nothing_found_in_either_case(template.format(brand))


@pytest.mark.parametrize("text, person", [
    ("KATHY FROM PHARMACY CALLED.", "KATHY"), ("waiting for deb from sw to call back", "deb"),
    ("seen by raj from vascular", "raj"), ("AWAITING ROSA FROM PHARMACY TO CALL BACK", "ROSA"),
])
def test_a_first_name_from_a_service_is_still_a_person(text: str, person: str) -> None:
    assert person in found(text).get("NAME", [])
