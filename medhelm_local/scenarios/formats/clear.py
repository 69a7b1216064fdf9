"""CLEAR (Stanford): does the patient have a history of a condition? One spreadsheet per condition.

The data is a folder of `<condition>.xlsx` (or `.csv`) files, the one read named by the run entry's
`condition=`, each with `text` (the note) and `result_human` (1 has a history, 0 does not, 2
uncertain). As in MedHELM, rows without text or label are skipped, and the labels become the three
options "Has a history of <condition>", "Does not have a history of <condition>", "Uncertain".
Rows are numbered; each is its own instance.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.errors import DatasetMissingError, RunEntryError
from medhelm_local.scenarios.formats import row_format
from medhelm_local.scenarios.spreadsheet import sheet_records
from medhelm_local.scenarios.tabular import delimited_rows

# MedHELM's wording of each condition in its prompts.
CONDITIONS = {
    "alcohol_dependence": "alcohol dependence",
    "attention_deficit_hyperactivity_disorder": "attention deficit hyperactivity disorder (ADHD)",
    "bipolar_disorder": "bipolar disorder",
    "chronic_pain": "chronic pain",
    "homelessness": "homelessness",
    "liver_disease": "liver disease",
    "major_depression": "major depression",
    "personality_disorder": "personality disorder",
    "post_traumatic_stress_disorder": "post-traumatic stress disorder (PTSD)",
    "substance_use_disorder": "substance use disorder",
    "suicidal_behavior": "suicidal behavior",
    "tobacco_dependence": "tobacco dependence",
    "unemployment": "unemployment",
}


def _source(path: Path, condition: str) -> Path:
    if path.is_file():
        return path
    for suffix in (".xlsx", ".csv"):
        if (path / f"{condition}{suffix}").is_file():
            return path / f"{condition}{suffix}"
    raise DatasetMissingError(f"there is no spreadsheet for the condition {condition}", where=str(path),
                              fix=f"put {condition}.xlsx (or .csv), with columns text and result_human, in that folder")


def _records(source: Path) -> Iterator[tuple[int, dict[str, str]]]:
    if source.suffix.lower() == ".xlsx":
        yield from sheet_records(source)
    else:
        yield from enumerate(delimited_rows(source), start=2)


@row_format("clear", ("clear",))
def clear_rows(path: Path, args: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Rows with text, condition (words as MedHELM prompts them), options (JSON) and answer (the option)."""
    condition = args.get("condition", "")
    if condition not in CONDITIONS:
        raise RunEntryError(f"clear has no condition '{condition}'", where="run entry for clear",
                            fix=f"use one of: {', '.join(CONDITIONS)}")
    words = CONDITIONS[condition]
    options = [f"Has a history of {words}", f"Does not have a history of {words}", "Uncertain"]
    by_label = {"1": options[0], "0": options[1], "2": options[2]}
    source = _source(path, condition)
    for position, (number, record) in enumerate(_records(source)):
        if position == 0 and ("text" not in record or "result_human" not in record):
            raise ValueError(f"{source.name} lacks the column(s) text and result_human")
        text, label = record.get("text", "").strip(), record.get("result_human", "").strip()
        if not text or not label:
            continue
        answer = by_label.get(label.removesuffix(".0"))
        if answer is None:
            raise ValueError(f"row {number}: result_human is not 1, 0 or 2")  # the value is not quoted: it may be text
        yield {"row": str(number), "text": text, "condition": words, "condition_name": condition.replace("_", " "),
               "options": json.dumps(options), "answer": answer}
