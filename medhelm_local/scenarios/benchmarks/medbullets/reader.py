"""MedBullets: five-option USMLE Step 2/3 style scenarios (medbullets_op5.csv)."""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import require_columns

FILE = "medbullets_op5.csv"
OPTION_COLUMNS = {"A": "opa", "B": "opb", "C": "opc", "D": "opd", "E": "ope"}
REQUIRED = ("question", *OPTION_COLUMNS.values(), "answer_idx")


@reader("medbullets")
def read_medbullets(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per row; options opa..ope as A..E, the correct one from answer_idx."""
    with paths[FILE].open(newline="", encoding="utf-8") as fh:
        rows = csv.DictReader(fh)
        require_columns(FILE, rows.fieldnames, REQUIRED)
        for number, row in enumerate(rows, start=1):
            answer = (row["answer_idx"] or "").strip()
            if answer not in OPTION_COLUMNS:
                raise ValueError(f"row {number}: answer_idx is not one of A-E")
            refs = tuple(Reference(row[column], letter == answer) for letter, column in OPTION_COLUMNS.items())
            yield Instance(f"test-{number:03d}", row["question"], refs)
