"""MentalHealth: the counsellor's next turn in a counselling conversation.

A CSV with `topic`, `dialogue_type`, `context` (the conversation so far, speaker-labelled) and
`gold_counselor_response`, as MedHELM's processed dialogues; every row is an instance.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.scenarios.formats import row_format
from medhelm_local.scenarios.tabular import delimited_rows, require_columns

COLUMNS = ("topic", "dialogue_type", "context", "gold_counselor_response")


@row_format("mental_health", ("mental_health",))
def mental_health_rows(path: Path, args: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """The rows as they are, after checking the four columns; a row without a response is refused."""
    for number, row in enumerate(delimited_rows(path), start=1):
        if number == 1:
            require_columns(path.name, row, COLUMNS)
        if not row.get("gold_counselor_response", "").strip():
            raise ValueError(f"row {number} has no gold_counselor_response")
        yield {**row, "row": str(number)}
