"""The scorers against answers as real chat models write them (tests/data/answers, hand-written without reading
the scorers): zero misreads, every unreadable answer counted with a reason, HELM's strict rule as HELM scores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
import answers  # noqa: E402  (bench/answers.py: the same evaluation the bench prints)

RECORDS = [json.loads(line) for line in answers.CORPUS.read_text(encoding="utf-8").splitlines()]
RESULT = answers.evaluate([dict(r) for r in RECORDS])


@pytest.mark.parametrize("task", answers.TASKS)
def test_no_answer_is_misread(task: str) -> None:
    prefix = {"multiple_choice": "mc-", "classification": "cls-", "calculation": "calc-", "generation": "gen-"}[task]
    assert [m for m in RESULT["misreads"] if m["id"].startswith(prefix)] == []
    assert RESULT["counts"][task].get("misread", 0) == 0


def test_every_answer_is_read_or_counted_unreadable_with_a_reason() -> None:
    for task in answers.TASKS:
        counts, reasons = RESULT["counts"][task], RESULT["reasons"][task]
        total = sum(1 for r in RECORDS if r["task"] == task)
        assert counts.get("read", 0) + counts.get("unreadable", 0) == total
        assert sum(reasons.values()) == counts.get("unreadable", 0)
        assert "no reading" not in reasons, "an unreadable answer without its reason"


def test_most_readable_answers_are_read() -> None:
    readable = sum(1 for r in RECORDS if r["expected"] is not None)
    read = sum(c.get("read", 0) for c in RESULT["counts"].values())
    assert read / readable >= 0.95


def test_helms_strict_rule_scores_every_answer_as_helm_does() -> None:
    assert RESULT["helm_mismatches"] == []


def test_the_bench_prints_the_table_and_exits_zero() -> None:
    done = subprocess.run([sys.executable, str(REPO / "bench" / "answers.py")], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO)}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "misreads 0" in done.stdout and "helm_strict_mismatches 0" in done.stdout
