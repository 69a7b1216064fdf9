"""MEDEC (MS test set): numbered clinical-note sentences; the reference is "<sentence id> <corrected
sentence>", or "CORRECT" for a note without error. The file's empty rows (where the UW notes were
left out) are skipped."""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import require_columns

FILE = "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"
REQUIRED = ("Text ID", "Sentences", "Error Flag", "Error Type", "Error Sentence ID", "Corrected Sentence")


@reader("medec")
def read_medec(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per non-empty row, keyed by Text ID; the numbered sentences are the input."""
    with paths[FILE].open(newline="", encoding="utf-8") as fh:
        rows = csv.DictReader(fh)
        require_columns(FILE, rows.fieldnames, REQUIRED)
        for row in rows:
            if not row["Sentences"]:
                continue
            # The file separates sentences with CRLF; MedHELM reads it in text mode, which makes them "\n".
            sentences = row["Sentences"].replace("\r\n", "\n").strip()
            flag = int(row["Error Flag"])
            sentence_id = row["Error Sentence ID"].strip()
            corrected = row["Corrected Sentence"].strip()
            has_error = flag == 1 and corrected != "NA" and sentence_id != "-1"
            if flag == 1 and not has_error:
                raise ValueError(f"{row['Text ID']}: flagged as an error without sentence id or correction")
            reference = f"{sentence_id} {corrected}" if has_error else "CORRECT"
            extra = MappingProxyType({"error_flag": str(int(has_error)), "error_sentence_id": sentence_id,
                                      "error_type": row["Error Type"].strip()})
            yield Instance(row["Text ID"].strip(), sentences, (Reference(reference),), extra=extra)
