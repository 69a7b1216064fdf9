"""Initials that stand for a nurse or a doctor (redact/initials.py): after a word that hands something to a
person, on a note's last line, after a dash, in slash blocks; and letters that stay shorthand. Invented examples."""

from __future__ import annotations

import pytest
from support.detected import flagged


@pytest.mark.parametrize(("text", "value"), [
    ("PER JM, OK TO LEAVE A-LINE.", "JM"),
    ("d/w kl (charge rn) re: bed", "kl"),
    ("spoke w/ rk re: heparin level.", "rk"),
    ("per sk rn (bmt), hold lovenox.", "sk"),
    ("ID band checked with JK.", "JK"),
    ("pt slept.\nvs stable.\nCM", "CM"),
    ("INCIDENT REPORT FILED.\n-DS", "DS"),
    ("Safety report filed.\nAB/cd", "AB"),
    ("Safety report filed.\nAB/cd", "cd"),
    ("CATH REPORT: LAD 90%.\nER/RN", "ER"),
])
def test_initials_after_a_cue_and_signing_a_note(text: str, value: str) -> None:
    assert value in flagged(text), flagged(text)


@pytest.mark.parametrize("text", [
    "PER MD, OK TO EXTUBATE. PER GI, NPO. D/W NP RE: LYTES. PER OR, CASE AT 0800.",
    "per protocol. per pt, pain 4/10. spoke w/ sw re: placement. per ct, no bleed.",
    "SEE FLOWSHEET FOR DETAILS.\nCODE STATUS:\nDNR",
    "PT/OT TO SEE IN AM.\nI/O PER FLOWSHEET",
])
def test_teams_roles_and_shorthand_are_not_initials(text: str) -> None:
    assert flagged(text) == []


@pytest.mark.parametrize("text", [
    "GI: NPO FOR PROCEDURE IN AM. NO BLEEDING\nGUMS/HEMATURIA/MELENA.\nGU: FOLEY",
    "hx: esrd on hd via l avf, dialysis at the unit\ntu/th/sa.\nlungs clear",
    "HD SCHEDULE\nMON/WED/FRI\nLUNGS CLEAR",
])
def test_a_slash_list_of_words_or_weekdays_opening_a_line_is_no_signature(text: str) -> None:
    assert flagged(text) == []


def test_a_slash_block_of_initials_and_a_name_still_signs_a_note() -> None:
    assert flagged("Safety report filed.\nKLM/jones") == ["KLM", "jones"]
