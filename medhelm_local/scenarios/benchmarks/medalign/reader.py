"""MedAlign: clinicians' instructions over a patient's whole EHR, answered by the clinicians themselves.

As MedHELM reads the release: the instructions from `clinician-reviewed-model-responses.tsv`
(instruction_id, question, person_id; a repeated instruction_id keeps its last row), the reference
from `clinician-instruction-responses.tsv` (the Annotator_1 response of each instruction; an
instruction without one is left out), and the patient's record, the raw text of
`medalign_ehr_xml/<person_id>.xml`. The record is the part cut to fit a model (its end, the most
recent, is kept); MedHELM drops the instances whose record does not fit instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.errors import DatasetMissingError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.long_inputs import compose
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import delimited_rows, require_columns

INSTRUCTIONS = "clinician-reviewed-model-responses.tsv"
RESPONSES = "clinician-instruction-responses.tsv"
EHR_FOLDER = "medalign_ehr_xml"
ANNOTATOR = "Annotator_1"


def _tsv(paths: Mapping[str, Path], name: str, wanted: tuple[str, ...]) -> Iterator[dict[str, str]]:
    if name not in paths:
        raise DatasetMissingError(f"the MedAlign file {name} is missing", where="the medalign dataset folder",
                                  fix="import the MedAlign release folder (its TSVs and medalign_ehr_xml/)")
    for number, row in enumerate(delimited_rows(paths[name], "\t"), start=2):
        if number == 2:
            require_columns(name, row, wanted)
        yield row


@reader("medalign")
def read_medalign(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per instruction with an Annotator_1 response, in the responses file's order."""
    instructions = {row["instruction_id"]: (row["question"], row["person_id"])
                    for row in _tsv(paths, INSTRUCTIONS, ("instruction_id", "question", "person_id"))}
    # Records by patient number: MedHELM matches int(person_id) with int(file stem).
    records = {int(Path(n).stem): p for n, p in paths.items()
               if Path(n).parent.name == EHR_FOLDER and n.endswith(".xml") and Path(n).stem.isdigit()}
    for row in _tsv(paths, RESPONSES, ("instruction_id", "annotator_num", "clinician_response")):
        if row["annotator_num"] != ANNOTATOR or row["instruction_id"] not in instructions:
            continue
        question, person = instructions[row["instruction_id"]]
        ehr = records.get(int(person)) if person.strip().isdigit() else None
        if ehr is None:
            raise ValueError(f"instruction {row['instruction_id']}: no {EHR_FOLDER}/ file for its patient")
        before = "Instruction: Answer the following question based on the EHR:\n\nEHR: "
        text, extra = compose(before, ehr.read_text("utf-8"), f"\n\nQuestion: {question}\n\nAnswer:")
        yield Instance(row["instruction_id"], text, (Reference(row["clinician_response"]),),
                       extra=MappingProxyType(extra))
