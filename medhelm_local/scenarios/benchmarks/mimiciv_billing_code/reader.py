"""MIMIC-IV billing codes: a discharge note in, its ICD-10 codes out (`mimiciv_icd10.feather`).

The feather file (from the MIMIC-IV ICD coding benchmark's preparation) has a `text` column and a
`target` column holding the list of codes. As in MedHELM, the reference is the codes joined by
commas; the note is the record that may be cut to fit a model. Instances are keyed by row; a row
without codes is skipped (nothing to score against; MedHELM keeps it with an empty reference).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

FILE = "mimiciv_icd10.feather"


def _codes(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(code) for code in value if code is not None]
    return [str(value)]


@reader("mimiciv_billing_code")
def read_mimiciv_billing_code(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per row with a note and at least one code, read from the memory-mapped file."""
    import pyarrow.feather as feather

    try:
        table = feather.read_table(paths[FILE], columns=["text", "target"], memory_map=True)
    except Exception as exc:  # pyarrow's own error types: not Feather/Arrow, or no text/target column
        raise ValueError(f"not a Feather file with text and target columns ({type(exc).__name__})") from None
    number = 0
    for batch in table.to_batches(max_chunksize=1024):
        for row in batch.to_pylist():
            number += 1
            note, codes = str(row["text"] or ""), _codes(row["target"])
            if note.strip() and codes:
                yield Instance(f"row-{number:06d}", note, (Reference(",".join(codes)),))
