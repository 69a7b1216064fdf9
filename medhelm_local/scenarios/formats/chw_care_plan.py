"""NoteExtract (chw_care_plan): restructure a community health worker's care-plan note.

A CSV with the note in the column `MO Note`; as in MedHELM, rows without a note are skipped, and
the note is both the input and the reference (the jury checks the answer against it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.scenarios.formats import row_format
from medhelm_local.scenarios.tabular import delimited_rows, require_columns

COLUMN = "MO Note"


@row_format("chw_care_plan", ("chw_care_plan",))
def chw_care_plan_rows(path: Path, args: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Rows with note (the `MO Note` text) and row (the row number)."""
    for number, row in enumerate(delimited_rows(path), start=1):
        if number == 1:
            require_columns(path.name, row, (COLUMN,))
        note = row.get(COLUMN, "").strip()
        if note:
            yield {"row": str(number), "note": note}
