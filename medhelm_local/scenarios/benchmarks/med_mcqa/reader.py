"""MedMCQA (AIIMS and NEET PG entrance exams): the development split, 4 options, the split MedHELM evaluates.

`dev.json` holds one JSON object per line (despite its name): `question`, the options `opa`..`opd`
and `cop`, the number (1-4) of the correct one. The test split's answers are not published.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import json_lines

FILE = "dev.json"
OPTIONS = ("opa", "opb", "opc", "opd")


@reader("med_mcqa")
def read_med_mcqa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per line, keyed by line number; options A-D in opa..opd order."""
    for number, item in json_lines(paths[FILE]):
        correct = int(item["cop"])
        if not 1 <= correct <= len(OPTIONS):
            raise ValueError(f"line {number}: cop {correct} is not 1-4")
        refs = tuple(Reference(str(item[key]), index == correct) for index, key in enumerate(OPTIONS, start=1))
        yield Instance(f"dev-{number:05d}", str(item["question"]), refs)
