"""MedicationQA: consumers' questions about medications with the MedInfo 2019 gold-standard answers,
read from the workbook with the standard library (Office Open XML parts).

MedHELM keeps a row only if pandas reads an answer in it, and pandas reads a cell holding one of
its missing-value words ("n/a", "NA", "null", ...) as no answer: one published row answers "n/a"
and is left out there, so it is left out here too (689 of 690 rows).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from xml.etree import ElementTree

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.spreadsheet import read_sheet_rows

WORKBOOK = "MedInfo2019-QA-Medications.xlsx"
# pandas' default missing-value words (pandas.read_excel's na_values), which MedHELM's loader reads with.
PANDAS_MISSING = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                            "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


@reader("medication_qa")
def read_medication_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per sheet row with an answer as pandas reads it (MedHELM drops the others), keyed by its row
    number."""
    try:
        rows = list(read_sheet_rows(paths[WORKBOOK]))
    except (zipfile.BadZipFile, ElementTree.ParseError) as exc:
        raise ValueError(f"the workbook cannot be read ({exc})") from None
    if not rows:
        raise ValueError("the first sheet is empty")
    _, header = rows[0]
    by_name = {name: column for column, name in header.items()}
    missing = [name for name in ("Question", "Answer") if name not in by_name]
    if missing:
        raise ValueError(f"the first row lacks the column(s) {', '.join(missing)}")
    question, answer = by_name["Question"], by_name["Answer"]
    for number, cells in rows[1:]:
        if cells.get(answer, "") in PANDAS_MISSING:
            continue
        if not cells.get(question):
            raise ValueError(f"row {number} has an answer but no question")
        extra = MappingProxyType({"focus": cells.get(by_name.get("Focus (Drug)", ""), ""),
                                  "question_type": cells.get(by_name.get("Question Type", ""), "")})
        yield Instance(f"row-{number:04d}", cells[question], (Reference(cells[answer]),), extra=extra)
