"""MIMIC-IV-Ext-BHC: a discharge note in, its brief hospital course out (JSON lines, `input` and `target`).

As MedHELM reads it: every line with both fields is one instance; lines where either is empty are
skipped. Instances are keyed by line number (the file has no id field MedHELM uses).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import json_lines

FILE = "mimic_iv_bhc.json"


@reader("mimic_bhc")
def read_mimic_bhc(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per JSON line with a note (`input`) and its brief hospital course (`target`)."""
    for number, item in json_lines(paths[FILE]):
        if "input" not in item or "target" not in item:
            raise ValueError(f"line {number} has no input or no target")
        note, summary = str(item["input"] or ""), str(item["target"] or "")
        if note.strip() and summary.strip():
            yield Instance(f"line-{number:06d}", note, (Reference(summary),))
