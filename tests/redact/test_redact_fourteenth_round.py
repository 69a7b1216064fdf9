"""Issue 32, fourteenth round: in ICU notes written all in capitals or all in lower case, ward codes spaced from
their floor's number are masked after any word, not only after a move."""

from __future__ import annotations

import pytest
from support.detected import covered, flagged, found

BOTH = pytest.mark.parametrize("case", [str.upper, str.lower], ids=["upper", "lower"])


@BOTH
@pytest.mark.parametrize("text, ward", [
    ("bed delayed, plan was cc 11 overnight.", "cc 11"),
    ("orders written for cc 7 and bed assigned.", "cc 7"),
    ("was in cc 7 briefly then back to micu.", "cc 7"),
    ("call out to cc 7, bed assigned @ 1400.", "cc 7"),
    ("transferred from ccu to cc 7 step down tomorrow.", "cc 7"),
    ("plan transferback to cc 7 after.", "cc 7"),
])
def test_a_clinical_center_ward_spaced_from_its_number_is_a_ward(case, text: str, ward: str) -> None:
    text = case(text)
    assert covered(text, case(ward))
    assert "HOSPITAL" in found(text)


@BOTH
@pytest.mark.parametrize("text", [
    "received 500 cc 5% albumin x1.", "flushed w/ 10 cc ns.", "uop 30 cc 2 hrs ago.", "given 250 cc 20% lipids.",
    "cc 7 days of cough.", "residual 40cc 4 hrs after feed.",
])
def test_a_volume_in_cc_before_a_number_is_no_ward(case, text: str) -> None:
    text = case(text)
    assert "HOSPITAL" not in found(text), flagged(text)
