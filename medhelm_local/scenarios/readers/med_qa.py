"""MedQA (USMLE, 4 options): one instance per line of the test file."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader


@reader("med_qa")
def read_med_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per line; options A-D in file order, the correct one from answer_idx."""
    with paths["phrases_no_exclude_test.jsonl"].open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            item = json.loads(line)
            options = item["options"]
            if item["answer_idx"] not in options:
                raise ValueError(f"line {number}: answer_idx is not one of the options")
            refs = tuple(Reference(str(text).rstrip('"').rstrip(), key == item["answer_idx"])
                         for key, text in sorted(options.items()))
            yield Instance(f"test-{number:05d}", item["question"], refs)
