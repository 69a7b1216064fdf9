"""Masks, per-document consistent surrogates, and date shifting that keeps each date's written form."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from medhelm_local.redact import DocumentSurrogates, RedactionRuleError, detect, load_policy, mask, shift_date
from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir

PACK = default_redaction_dir()
NOTE = ("Patient: Robert Whitfield  MRN: 0048213  DOB: 03/14/1931\nWhitfield was seen 3/14/2021 and again on "
        "March 15, 2021. WIFE MARY WHITFIELD AT BEDSIDE, PHONE 617-555-1234. 92 yo. Call 617-555-1234.")


def surrogates(doc_id: str = "doc-1", key: bytes = b"k" * 32) -> DocumentSurrogates:
    return DocumentSurrogates(key, doc_id, load_policy(PACK / "surrogates.yaml"), detector_for(PACK.resolve()).words)


def test_mask_replaces_each_span_with_its_type() -> None:
    assert mask(NOTE, detect(NOTE)).startswith("Patient: [NAME]  MRN: [MRN]  DOB: [DATE]\n[NAME] was seen [DATE]")
    assert mask("Dr. Lee on 7/22", detect("Dr. Lee on 7/22"), "<{type}>") == "Dr. <NAME> on <DATE>"


def test_surrogates_are_consistent_within_a_document_and_keep_case() -> None:
    out = surrogates().apply(NOTE, detect(NOTE))
    first, last = re.match(r"Patient: (\w+) (\w+)", out).groups()  # type: ignore[union-attr]
    assert (first, last) != ("Robert", "Whitfield")
    assert f"\n{last} was seen" in out
    assert f"{last.upper()} AT BEDSIDE" in out
    phones = re.findall(r"\d{3}-\d{3}-\d{4}", out)
    assert len(phones) == 2 and phones[0] == phones[1] and "617-555-1234" not in out
    assert "90 yo" in out
    assert "Whitfield" not in out and "WHITFIELD" not in out


def test_same_key_and_document_give_the_same_surrogates_and_other_documents_differ() -> None:
    spans = detect(NOTE)
    assert surrogates().apply(NOTE, spans) == surrogates().apply(NOTE, spans)
    others = {surrogates(f"doc-{n}").apply(NOTE, spans) for n in range(5)}
    assert len(others) == 5


def test_dates_shift_together_and_keep_intervals() -> None:
    doc = surrogates()
    policy = load_policy(PACK / "surrogates.yaml")
    assert policy.date_shift_days[0] <= doc.shift_days <= policy.date_shift_days[1] and doc.shift_days != 0
    out = doc.apply(NOTE, detect(NOTE))
    numeric = re.search(r"seen (\d+)/(\d+)/(\d{4})", out).groups()  # type: ignore[union-attr]
    first = dt.date(int(numeric[2]), int(numeric[0]), int(numeric[1]))
    assert first == dt.date(2021, 3, 14) + dt.timedelta(days=doc.shift_days)
    written = re.search(r"on (\w+) (\d+), (\d{4})", out).groups()  # type: ignore[union-attr]
    second = dt.datetime.strptime(" ".join(written), "%B %d %Y").date()
    assert second - first == dt.timedelta(days=1)


@pytest.mark.parametrize(("before", "after"), [
    ("7/22", "6/12"), ("07/22/2021", "06/12/2021"), ("7/22/21", "6/12/21"), ("2021-07-22", "2021-06-12"),
    ("March 3rd", "January 22nd"), ("MARCH 3RD", "JANUARY 22ND"), ("March 3, 2021", "January 22, 2021"),
    ("03-Mar-2021", "22-Jan-2021"), ("3 March 2021", "22 January 2021"), ("22/07/2021", "12/06/2021"),
    ("07/2019", "06/2019"), ("March", "February"), ("2021", "2021"), ("3rd of March", "22nd of January"),
])
def test_shift_date_keeps_the_written_form(before: str, after: str) -> None:
    assert shift_date(before, -40) == after


def test_unreadable_dates_are_masked() -> None:
    assert shift_date("Christmas", -40) is None
    assert surrogates().surrogate("Christmas", detect("on Christmas")[0].type) == "[DATE]"


def test_a_bad_policy_is_refused(tmp_path: Path) -> None:
    (tmp_path / "surrogates.yaml").write_text("version: 1\nstyle: blur\n")
    with pytest.raises(RedactionRuleError, match="the redaction policy does not validate"):
        load_policy(tmp_path / "surrogates.yaml")
