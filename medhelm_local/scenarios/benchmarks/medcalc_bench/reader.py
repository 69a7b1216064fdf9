"""MedCalc-Bench: one instance per test row, with the row's output type and answer limits."""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import require_columns

REQUIRED = ("Row Number", "Calculator ID", "Output Type", "Patient Note", "Question", "Ground Truth Answer",
            "Lower Limit", "Upper Limit", "Category")


@reader("medcalc_bench")
def read_medcalc_bench(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per CSV row, keyed by Row Number."""
    with paths["test_data.csv"].open(newline="", encoding="utf-8") as fh:
        reader_ = csv.DictReader(fh)
        require_columns("test_data.csv", reader_.fieldnames, REQUIRED)
        for number, row in enumerate(reader_, start=2):
            require_columns(f"test_data.csv row {number}", [k for k, v in row.items() if v is not None], REQUIRED)
            extra = MappingProxyType({
                "output_type": row["Output Type"], "lower_limit": row["Lower Limit"],
                "upper_limit": row["Upper Limit"], "category": row["Category"],
                "calculator_id": row["Calculator ID"],
            })
            yield Instance(f"row-{int(row['Row Number']):04d}",
                           f"Patient note: {row['Patient Note']}\n\nQuestion: {row['Question']}\n",
                           (Reference(row["Ground Truth Answer"]),), extra=extra)
