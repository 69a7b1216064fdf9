"""Issue 32, eighth round: surnames that are also words after "d/w dr", nicknames after a relation, and what the
round's new tuning sets missed are masked in ICU notes written all in capitals or all in lower case, while the jargon
that looks like them ("reg diet", "within norm", "norm saline", "dev delay") stays readable."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged


@pytest.mark.parametrize("text", [
    "GI: REG DIET. BM X1.", "GI: ADVANCED TO REG DIET + CREON.", "labs within norm.", "norm saline flush.",
    "dev delay noted as child.", "c/w drain care.", "STAPH AUREUS IN BCX.", "NAT SAT 94%.",
    "HR ON HIGH ST 110S.", "AT RISK OF FALLS.", "PAIN AT CENTER OF CHEST.",
])
def test_jargon_that_looks_like_a_nickname_is_not_phi(text: str) -> None:
    assert flagged(text) == []
    assert flagged(text.upper()) == []


@pytest.mark.parametrize("text, value", [
    ("d/w dr pike.", "pike"), ("D/W DR STONE, WILL CONT.", "STONE"), ("c/w dr pike re: plan.", "pike"),
    ("husband norm here, pt's neuro status unchanged.", "norm"), ("partner dev at bedside.", "dev"),
    ("brother-in-law norm present.", "norm"), ("roommate (dev) called 911.", "dev"),
    ("SOCIAL: ROOMMATE SKIP AND PT'S FRIEND VISITED.", "SKIP"), ("WIFE WIN HERE ALL DAY.", "WIN"),
    ("her building on cedar st in somerville burned.", "cedar st"), ("STRUCK AT CENTRE ST AND SOUTH ST.", "SOUTH ST"),
    ("HOUSE PARTY ON MISSION HILL AVE, ROXBURY.", "MISSION HILL AVE"),
    ("lives at sunrise of arlington.", "sunrise of arlington"),
    ("ADMITTED FROM SUNRISE OF ARLINGTON W/ HYPOXIA.", "SUNRISE OF ARLINGTON"),
])
def test_the_rounds_identifiers_are_found(text: str, value: str) -> None:
    assert covered(text, value)
    assert covered(text.upper(), value.upper())
    assert covered(text.lower(), value.lower())


@pytest.mark.parametrize("text, value, kept", [
    ("CAME FROM OUTSKIRTS OF LOWELL.", "LOWELL", "OUTSKIRTS"), ("came from north of boston.", "boston", "north"),
])
def test_where_in_a_town_is_not_a_facility(text: str, value: str, kept: str) -> None:
    assert covered(text, value)
    assert not any(kept in found for found in flagged(text))
