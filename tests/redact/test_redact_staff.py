"""Staff named by an initial and a surname without a stop, in notes without case (issue 32): "E NORTH AWARE",
"j lund notified", "k rider np paged". With no cue word before it, a lone letter is an initial only when a known
surname follows and a report word or a credential follows that; the letters of clinical shorthand stay words.
Every example is invented; each runs as written, in capitals and in lower case."""

from __future__ import annotations

import pytest
from support.detected import Case, covered, flagged, in_every_case


@in_every_case
@pytest.mark.parametrize(("text", "value"), [
    ("E NORTH AWARE OF K 3.2", "E NORTH"),
    ("pt seen at 0200. j lund notified of uo", "j lund"),
    ("covering: k rider np paged re bp", "k rider"),
    ("bath given, s brown rn at bedside", "s brown"),
])
def test_an_initial_and_surname_before_a_report_word_or_credential(case: Case, text: str, value: str) -> None:
    assert covered(case(text), case(value)), flagged(case(text))


@in_every_case
@pytest.mark.parametrize("text", [
    "STOOL C DIFF NEG, NP AWARE",
    "A FIB, MD AWARE",
    "V FIB RN AWARE",
    "G TUBE RN AWARE",
    "E COLI IN URINE, MD AWARE",
    "H PYLORI RN AWARE",
    "HR 110 S TACH MD AWARE",
    "PT ON 2 L NC, MD AWARE",
    "K 3.1 MD AWARE",
    "RN AWARE, CHARGE RN NOTIFIED, NP PAGED",
])
def test_clinical_letters_before_a_report_word_stay_words(case: Case, text: str) -> None:
    assert flagged(case(text)) == [], flagged(case(text))


@in_every_case
@pytest.mark.parametrize(("text", "value"), [
    ("pt turned q2h. sue rn notified of temp", "sue"),
    ("bp 84/50, jo np aware", "jo"),
])
def test_a_first_name_before_a_credential_and_a_report_word(case: Case, text: str, value: str) -> None:
    assert covered(case(text), case(value)), flagged(case(text))


@in_every_case
@pytest.mark.parametrize("text", [
    "labs sent, rn aware",
    "charge rn aware, night rn notified",
    "dressing changed rn notified",
    "oncoming rn updated at 1900",
])
def test_a_role_before_a_credential_and_a_report_word_stays_a_word(case: Case, text: str) -> None:
    assert flagged(case(text)) == [], flagged(case(text))


def test_in_lower_case_only_a_first_name_before_the_credential_is_named() -> None:
    """Lower-case "rn" mid-line vouches for a first name only: "heparin held rn aware" stays words."""
    assert flagged("heparin held rn aware") == []
    assert flagged("pain med given, rn aware") == []


@in_every_case
@pytest.mark.parametrize(("text", "value"), [
    ("RN Hope at bedside for turn", "Hope"),
    ("rn faith, rn joy at bedside", "joy"),
])
def test_a_first_name_that_is_a_word_after_a_credential(case: Case, text: str, value: str) -> None:
    assert covered(case(text), case(value)), flagged(case(text))


@in_every_case
@pytest.mark.parametrize("text", [
    "MD hope is to extubate in am",
    "RN and MD at bedside",
])
def test_a_word_after_a_credential_stays_a_word(case: Case, text: str) -> None:
    assert flagged(case(text)) == [], flagged(case(text))


@in_every_case
@pytest.mark.parametrize("text", [
    "ACTIVITY: INDEPENDENT W/ WALKER, RN SUPERVISING.",
    "PT SCARED, PARTNER HOLDING HAND, RN STAYED IN ROOM.",
    "STERNUM MARKED W/ PEN, NP AWARE.",
    "CIWA SCORING DONE W/ SECOND RN AT 0000 TO CONFIRM.",
    "PER TEAM (MEDICINE NP), PT AND OT TO EVAL BEFORE D/C.",
])
def test_a_thing_or_a_role_before_a_credential_names_no_one(case: Case, text: str) -> None:
    assert flagged(case(text)) == [], flagged(case(text))


@in_every_case
@pytest.mark.parametrize(("text", "value"), [
    ("REPORT GIVEN TO BAKER, RN.", "BAKER"),
    ("J. STONE, RN SEES PT IN AM.", "J. STONE"),
    ("JEN, RN AWARE OF K 3.2.", "JEN"),
    ("PLAN: CONT ABX.\nS. HAND, RN", "S. HAND"),
])
def test_a_nurse_before_a_credential_is_still_found(case: Case, text: str, value: str) -> None:
    assert covered(case(text), case(value)), flagged(case(text))
