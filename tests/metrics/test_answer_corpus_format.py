"""The answer corpus (tests/data/answers) is well formed: what it says of itself holds.

These tests check the corpus only (fields, types, that every reading names an option, a label or a value of
the right form, the counts it promises); whether the scorers read it as expected is tested elsewhere.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

ANSWERS = Path(__file__).resolve().parents[1] / "data" / "answers"
CORPUS = ANSWERS / "corpus.jsonl"
README = ANSWERS / "README.md"
MINIMUMS = {"multiple_choice": 150, "classification": 90, "calculation": 70, "generation": 30}
REASONS = {"empty", "refusal", "two_options", "two_labels", "two_values", "no_answer", "hedge", "truncated",
           "truncated_in_reasoning", "reasoning_only", "other_language", "not_an_option", "not_a_label",
           "letter_text_mismatch", "negation_only", "range"}
COMMON = {"id": str, "task": str, "benchmark": str, "class": str, "question": str, "answer": str,
          "finish_reason": str}
OPTIONAL = {"reasoning_content": str, "note": str}


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


RECORDS = _records()


def _of(task: str) -> list[dict[str, Any]]:
    return [r for r in RECORDS if r["task"] == task]


def test_the_committed_corpus_is_what_its_builder_writes(tmp_path: Path) -> None:
    out = tmp_path / "corpus.jsonl"
    subprocess.run([sys.executable, str(ANSWERS / "build_corpus.py"), str(out)], check=True)
    assert out.read_bytes() == CORPUS.read_bytes(), "corpus.jsonl is stale: run tests/data/answers/build_corpus.py"


def test_each_task_type_has_at_least_its_stated_number_of_answers() -> None:
    counts = Counter(r["task"] for r in RECORDS)
    assert set(counts) == set(MINIMUMS)
    for task, minimum in MINIMUMS.items():
        assert counts[task] >= minimum, f"{task}: {counts[task]} answers, fewer than {minimum}"
    assert len(RECORDS) >= 300


def test_ids_are_unique_and_no_answer_is_repeated_for_the_same_question() -> None:
    assert len({r["id"] for r in RECORDS}) == len(RECORDS)
    seen = Counter((r["task"], r["question"], r["answer"], r.get("reasoning_content")) for r in RECORDS)
    assert [key for key, n in seen.items() if n > 1] == []


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_every_record_has_the_documented_fields(record: dict[str, Any]) -> None:
    for field, kind in COMMON.items():
        assert isinstance(record.get(field), kind), f"{field} missing or not {kind.__name__}"
    for field, kind in OPTIONAL.items():
        assert field not in record or isinstance(record[field], kind)
    assert record["finish_reason"] in ("stop", "length")
    assert record["class"] and record["class"] == record["class"].strip()
    reason = record["expected_reason"]
    if record["expected"] is None:
        assert reason in REASONS, f"unreadable without a known reason: {reason!r}"
        assert record["expected_correct"] is None
    else:
        assert reason is None, "a readable answer carries no reason"
    if record["task"] == "generation":
        assert record["helm_rule"] is None and record["expected_helm"] is None and record["expected_correct"] is None
    else:
        assert record["helm_rule"] in ("exact_match", "medcalc_bench")
        assert record["expected_helm"] in (0, 1)
        assert record["expected"] is None or isinstance(record["expected_correct"], bool)
        assert isinstance(record["reference"], str) and record["reference"]


@pytest.mark.parametrize("record", _of("multiple_choice"), ids=[r["id"] for r in _of("multiple_choice")])
def test_multiple_choice_readings_are_letters_among_the_options(record: dict[str, Any]) -> None:
    letters = list(record["options"])
    assert letters == [chr(ord("A") + i) for i in range(len(letters))] and len(letters) >= 2
    assert all(isinstance(text, str) and text for text in record["options"].values())
    assert record["reference"] in letters
    assert record["expected"] is None or record["expected"] in letters
    assert record["helm_rule"] == "exact_match"
    assert record["expected_correct"] in (None, record["expected"] == record["reference"])


@pytest.mark.parametrize("record", _of("classification"), ids=[r["id"] for r in _of("classification")])
def test_classification_readings_are_labels(record: dict[str, Any]) -> None:
    labels, synonyms = record["labels"], record["synonyms"]
    assert len(labels) >= 2 and len(set(labels)) == len(labels)
    assert set(synonyms.values()) <= set(labels)
    assert isinstance(record["lettered"], bool)
    assert record["reference"] in labels
    assert record["expected"] is None or record["expected"] in labels
    assert record["expected_correct"] in (None, record["expected"] == record["reference"])


def _value_of_kind(kind: str, value: Any) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "date":
        return isinstance(value, str) and date.fromisoformat(value).isoformat() == value
    return (isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value)
            and 0 <= value[1] < 7)


@pytest.mark.parametrize("record", _of("calculation"), ids=[r["id"] for r in _of("calculation")])
def test_calculation_values_have_their_kinds_form(record: dict[str, Any]) -> None:
    calc = record["calc"]
    assert calc["kind"] in ("number", "date", "gestational_age")
    assert _value_of_kind(calc["kind"], record["reference_value"])
    assert record["expected"] is None or _value_of_kind(calc["kind"], record["expected"])
    medcalc, tolerance = calc["medcalc"], calc["tolerance"]
    assert (medcalc is None) != (tolerance is None), "a calculation has MedCalc limits or a tolerance, not both"
    if medcalc:
        assert medcalc["category"] in ("lab", "physical", "risk", "severity", "diagnosis", "date",
                                       "dosage conversion")
        assert record["helm_rule"] == "medcalc_bench" and record["benchmark"] == "medcalc_bench"
    else:
        assert any(isinstance(tolerance.get(k), float) for k in ("absolute", "relative"))
        assert record["helm_rule"] == "exact_match"


def test_the_readme_documents_every_reason_and_states_the_counts() -> None:
    readme = README.read_text(encoding="utf-8")
    for reason in REASONS:
        assert f"`{reason}`" in readme, f"reason {reason} is not documented in README.md"
    for task, n in Counter(r["task"] for r in RECORDS).items():
        unreadable = sum(1 for r in _of(task) if r["expected"] is None)
        assert re.search(rf"\| {task} \| {n} \| {unreadable} \|", readme), f"README count row of {task} is stale"
