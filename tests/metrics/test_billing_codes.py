"""ICD-10 codes read from an answer: whole codes, dots ignored (micro-F1), and HELM's pattern (its variant)."""

from __future__ import annotations

import pytest

from medhelm_local.metrics.billing_codes import helm_codes, read_codes


@pytest.mark.parametrize(("text", "codes"), [
    ("I10, E78.5", {"I10", "E785"}),
    ("E785 and I10", {"I10", "E785"}),  # MIMIC writes codes without dots
    ("**J18.9** (pneumonia)", {"J189"}),  # markdown bold removed
    ("S72.001A; W19.XXXA", {"S72001A", "W19XXXA"}),  # a 7th character stays
    ("Procedure 0QS604Z", {"0QS604Z"}),  # ICD-10-PCS
    ("U07.1 COVID-19", {"U071"}),
    ("No codes: the PATIENT went HOME.", set()),  # capitalised words are not codes
    ("I10.", {"I10"}),
    ("codes I10,E78.5,J18.9", {"I10", "E785", "J189"}),
])
def test_codes_are_read_whole(text: str, codes: set[str]) -> None:
    assert read_codes(text) == codes


@pytest.mark.parametrize(("text", "codes"), [
    ("I10, E78.5", {"I10", "E78.5"}),
    ("S72.001A", {"S72"}),  # HELM's pattern stops before the 7th character
    ("0QS604Z", set()),  # and reads no procedure code
    ("**J18.9**.", {"J18.9"}),
])
def test_helm_reads_codes_with_its_pattern(text: str, codes: set[str]) -> None:
    assert helm_codes(text) == codes
