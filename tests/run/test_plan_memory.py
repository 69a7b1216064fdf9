"""How much DuckDB memory a run's store is given, from the longest text it will hold (run/plan.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from medhelm_local.run.plan import store_memory_for


def _planned(record: int, answer_tokens: int = 1) -> Any:
    return SimpleNamespace(longest=record, benchmark=SimpleNamespace(answer_tokens=answer_tokens))


@pytest.mark.parametrize(("record", "memory"), [
    (300, "32MB"),  # a multiple-choice question: with its prompt's margin of 8 KB, under 9 KB
    (1 << 10, "32MB"),
    (2 << 10, "40MB"),  # 10 KB with the margin
    (4 << 10, "40MB"),
    (6 << 10, None),  # 14 KB: the run's floor (48 MB)
    (100 << 10, "512MB"),  # a long note: two vectors of 2,048 of 108 KB
])
def test_a_store_gets_the_memory_its_longest_text_needs(record: int, memory: str | None) -> None:
    assert store_memory_for([_planned(record)]) == memory


def test_the_longest_answer_counts_as_much_as_the_longest_record() -> None:
    assert store_memory_for([_planned(300, answer_tokens=4096)]) is None  # 16 KB of answer: the floor
    assert store_memory_for([_planned(300), _planned(2 << 10)]) == "40MB"  # the longest run decides
