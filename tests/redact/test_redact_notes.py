"""What a compliance officer reads in a redacted note: typed spans in each note style, identifiers in
their rarer written forms, addresses in other countries' shapes, and clinical look-alikes left alone."""

from __future__ import annotations

import pytest
from support.detected import flagged, found


def test_discharge_summary_header_is_typed_field_by_field() -> None:
    note = ("DISCHARGE SUMMARY\nPatient: Tavoreni Okafor    MRN: 00482131    DOB: 03/14/1931\n"
            "Admission Date: 2021-07-22T14:30    Discharge Date: Jul-29-2021\n"
            "Attending: Siobhan Kestrelli, MD    PCP: Dr. Achterberg\n"
            "Address: 42 Elm Street, Apt 3B, Springfield, MA 01103-2201\nPhone: 617/555-1234\n")
    hits = found(note)
    assert hits["NAME"] == ["Tavoreni Okafor", "Siobhan Kestrelli", "Achterberg"]
    assert hits["MRN"] == ["00482131"]
    assert hits["DATE"] == ["03/14/1931", "2021-07-22T14:30", "Jul-29-2021"]
    assert hits["PHONE"] == ["617/555-1234"]
    assert hits["ZIP"] == ["01103-2201"]
    assert "42 Elm Street, Apt 3B" in " ".join(hits["STREET"])
    assert "MA" not in flagged(note)  # a state is not a Safe Harbor identifier


def test_model_output_summary() -> None:
    text = ("Summary: Trainsairzi Hitchcock (MRN X4796490), a 97-year-old man, was admitted on 20190314 with "
            "pneumonia. Her brother Lane is involved in care. Follow up with Dr. Shore at University of "
            "Oakhaven Hospital; call 1-800-555-0199.")
    hits = found(text)
    assert hits["NAME"] == ["Trainsairzi Hitchcock", "Lane", "Shore"]
    assert hits["MRN"] == ["X4796490"]
    assert hits["AGE"] == ["97"]
    assert hits["DATE"] == ["20190314"]
    assert hits["HOSPITAL"] == ["University of Oakhaven Hospital"]
    assert hits["PHONE"] == ["1-800-555-0199"]


def test_nursing_note_names_no_list_holds_after_pt_and_before_rn() -> None:
    text = ("PT KAVERI ACHTERBERG ADMITTED 8/21 FROM MERCY HOSPITAL.\n"
            "0900 SPOKE WITH PARTNER ILKKA BRANDT AT 617 555 0199 RE: D/C PLANNING.\nSUJAI PARISH, RN\n")
    hits = found(text)
    assert hits["NAME"] == ["KAVERI ACHTERBERG", "ILKKA BRANDT", "SUJAI PARISH"]
    assert hits["PHONE"] == ["617 555 0199"]
    assert "RE" not in flagged(text)


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("Billing address: 6750 Koskikatu 25 Apt. 864", "STREET", "6750 Koskikatu 25"),
    ("Domicilio: Calle de la Paz, 23, 5A.", "STREET", "Calle de la Paz, 23, 5A"),
    ("Remitido por: Hospital Universitario de La Princesa, Madrid.", "HOSPITAL",
     "Hospital Universitario de La Princesa"),
    ("Please update my address to PSC 6293, Box 8158", "STREET", "PSC 6293, Box 8158"),
    ("He grew up in Remniku and moved here.", "CITY", "Remniku"),
    ("City: Harlowe Landing", "CITY", "Harlowe Landing"),
    ("NASS: 14 9096265001 02.", "HEALTH_PLAN", "14 9096265001 02"),
    ("NºCol: 46 28 52938.", "LICENSE", "46 28 52938"),
    ("Tel.: 917 277 000 E-mail autor", "PHONE", "917 277 000"),
    ("En julio de 2006 se practicó una biopsia.", "DATE", "julio de 2006"),
    ("She quit smoking in the summer of 2003.", "DATE", "summer of 2003"),
    ("Mary Gavrilova called.", "NAME", "Mary Gavrilova"),
    ("Usamov and Bowers were there.", "NAME", "Usamov"),
])
def test_identifiers_found_by_general_rules(text: str, kind: str, value: str) -> None:
    assert value in found(text).get(kind, []), found(text)


HARD_NEGATIVES = [
    "BP 132/84, HR 88, RR 18, T 98.6 F, SpO2 97% on RA.",
    "Temperature is now 100°F (37.8°C).",
    "Pain 6/10, strength 4/5 RUE and 5/5 LUE, reflexes 2+ and symmetric.",
    "The pain was initially a 4/10 in severity.",
    "Platelet count is 8.8 g/dL and 80,000/mm^3, respectively.",
    "MoCA 24/30, PHQ-9 score 12, Gleason 3+4=7, Tanner stage 4, NYHA class III.",
    "Status post Nissen fundoplication; Swan-Ganz catheter removed; Bell palsy improving.",
    "History of Parkinson disease, Graves disease and Hodgkin lymphoma.",
    "Turned q2h at 0200, 0400 and 0600; I/O 1200/850.",
    "ABG 7.32/48/72/24 on 40% FiO2; HbA1c 7.2%.",
    "Heparin 5000 units SQ q8h; insulin glargine 20 units qHS.",
    "Attending physician: Dr. Thorvaldsen\n\nHospital course: diuresed with Lasix 40 mg IV.",
    "[patient] we moved to 1649 willow dr last month.",
]


@pytest.mark.parametrize("text", HARD_NEGATIVES)
def test_clinical_look_alikes_are_not_phi(text: str) -> None:
    wanted = {"Thorvaldsen", "1649 willow dr"}
    assert [f for f in flagged(text) if f not in wanted] == []
