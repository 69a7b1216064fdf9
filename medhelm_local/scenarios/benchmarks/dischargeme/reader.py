"""Discharge Me! (BioNLP 2024, PhysioNet discharge-me 1.3): write the brief hospital course and the
discharge instructions of an admission from its discharge note and a radiology report.

Reads the phase-1 test files (`test_phase_1/*.csv.gz`) and joins them as MedHELM does: an admission
counts when its patient has a diagnosis and a triage row, and the admission a radiology report, an
ED stay and a target row. Its first radiology report (file order) is shown, and the target section
is removed from the discharge note. Two instances per admission, `<hadm_id>-brief_hospital_course`
and `<hadm_id>-discharge_instructions`, in discharge-file order. The note is the record that may be
cut to fit a model (its start is kept). Memory holds the small tables' keys and one radiology
report per admission; the discharge notes are streamed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.long_inputs import compose
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import delimited_rows, require_columns

FOLDER = "test_phase_1"
TARGETS = {"brief_hospital_course": "Brief Hospital Course", "discharge_instructions": "Discharge Instructions"}


def _rows(paths: Mapping[str, Path], name: str, wanted: tuple[str, ...]) -> Iterator[dict[str, str]]:
    for number, row in enumerate(delimited_rows(paths[f"{FOLDER}/{name}.csv.gz"]), start=2):
        if number == 2:
            require_columns(f"{name}.csv.gz", row, wanted)
        yield row


def _column(paths: Mapping[str, Path], name: str, key: str) -> set[str]:
    return {row[key] for row in _rows(paths, name, (key,))}


def _joined(paths: Mapping[str, Path]) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """(target row by hadm_id, first radiology report by hadm_id) of the admissions MedHELM's joins keep."""
    targets = {row["hadm_id"]: row for row in _rows(paths, "discharge_target", ("hadm_id", *TARGETS))}
    admitted = _column(paths, "edstays", "hadm_id") & set(targets)
    radiology: dict[str, str] = {}
    for row in _rows(paths, "radiology", ("hadm_id", "text")):
        if row["hadm_id"] in admitted:
            radiology.setdefault(row["hadm_id"], row["text"])
    return targets, radiology


def prompt_parts(task: str, note: str, radiology: str) -> tuple[str, str, str]:
    """MedHELM's prompt, verbatim (its source's line continuation leaves 4 spaces after the first line)."""
    before = (f"Generate the {task} from the following patient discharge text and radiology report text."
              f"{' ' * 4}\n\nDischarge Text:\n")
    return before, note, f"\n\nRadiology Report:\n{radiology}\n\n{task}:\n"


@reader("dischargeme")
def read_dischargeme(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """Two instances per kept admission (its brief hospital course, its discharge instructions)."""
    patients = _column(paths, "diagnosis", "subject_id") & _column(paths, "triage", "subject_id")
    targets, radiology = _joined(paths)
    seen: set[str] = set()
    for row in _rows(paths, "discharge", ("subject_id", "hadm_id", "text")):
        hadm = row["hadm_id"]
        if row["subject_id"] not in patients or hadm not in radiology or hadm in seen:
            continue
        seen.add(hadm)
        for column, task in TARGETS.items():
            target = targets[hadm][column]
            text, extra = compose(*prompt_parts(task, row["text"].replace(target, ""), radiology[hadm]))
            yield Instance(f"{hadm}-{column}", text, (Reference(target),), extra=MappingProxyType(extra))
