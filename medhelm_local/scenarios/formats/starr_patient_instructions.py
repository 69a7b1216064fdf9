"""PatientInstruct (starr_patient_instructions): after-procedure instructions from a surgical case.

A CSV of cases from STARR-OMOP with `Diagnosis`, `ActualProcedure`, `HistoryPhysicalNoteText`,
`OperativeNoteText`, the reference `DischargeInstructionNoteText`, and `QC`. As in MedHELM, only
rows with QC TRUE and every field filled are used.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.scenarios.formats import row_format
from medhelm_local.scenarios.tabular import delimited_rows, require_columns

COLUMNS = {"Diagnosis": "diagnosis", "ActualProcedure": "procedure", "HistoryPhysicalNoteText": "history_physical",
           "OperativeNoteText": "operative_note", "DischargeInstructionNoteText": "instructions"}


@row_format("starr_patient_instructions", ("starr_patient_instructions",))
def starr_rows(path: Path, args: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Rows with diagnosis, procedure, history_physical, operative_note, instructions and row."""
    for number, row in enumerate(delimited_rows(path), start=1):
        if number == 1:
            require_columns(path.name, row, ("QC", *COLUMNS))
        fields = {name: row.get(column, "").strip() for column, name in COLUMNS.items()}
        if row.get("QC", "").strip().upper() == "TRUE" and all(fields.values()):
            yield {**fields, "row": str(number)}
