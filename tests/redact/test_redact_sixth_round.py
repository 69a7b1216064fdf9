"""Issue 32, sixth round: in ICU notes written all in capitals or all in lower case, what was done before a
credential, scores named after a person with their value, eponymous tests and positions, and the languages a family
speaks stay readable, while the nurses, relatives and doctors written the same way are still masked."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged


@pytest.mark.parametrize("text", [
    "HEPARIN HELD RN AWARE.", "LASIX GIVEN MD AWARE.", "BP LOW MD AWARE, NO NEW ORDERS.",
    "FALL RISK: MORSE 65, BRADEN 11, NORTON 12.", "morse 45, braden 14, waterlow 10",
    "ALLEN TEST + R WRIST PRIOR TO ABG. HOMANS SIGN NEG.", "hob 30, semi-fowler's when eating",
    "PERL 3MM BRISK.", "TF NUTREN PULMONARY AT 40CC/HR.",
    "PT SPEAKS TAGALOG ONLY. FAMILY SPEAKS DARI AND PASHTO, INTERPRETER BOOKED.", "pt speaks tagalog and ilocano",
])
def test_what_was_done_scores_tests_and_languages_are_not_phi(text: str) -> None:
    assert flagged(text) == []
    assert flagged(text.lower()) == []


@pytest.mark.parametrize("text, name", [
    ("ANN WHITE RN AWARE.", "WHITE"), ("SEEN AT 0400. -STONE RN", "STONE"), ("REPORT TO HOPE RN.", "HOPE"),
    ("SUJAI PARISH RN", "PARISH"), ("HEPARIN HELD, KELLY RN AWARE", "KELLY"), ("SON ALLEN CALLED.", "ALLEN"),
    ("DR CULLEN AWARE OF K 3.1", "CULLEN"), ("DR MORSE 6 NOTIFIED", "MORSE"),
    ("TO MORSE 5 WHEN BED AVAILABLE", "MORSE 5"),
])
def test_people_and_wards_written_the_same_way_are_still_masked(text: str, name: str) -> None:
    assert covered(text, name)
