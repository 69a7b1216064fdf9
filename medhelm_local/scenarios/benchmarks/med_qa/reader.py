"""MedQA (USMLE, 4 options): one instance per line of the test file, and of the dev file with `split=`.

MedHELM evaluates the dev questions together with the test questions (`split=dev+test`, dev first,
as HELM reads them); the published copy here holds the test file only, so `split=test` is the default.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

SPLITS = {"test": ("test",), "dev": ("dev",), "dev+test": ("dev", "test")}


def _read_split(path: Path, split: str) -> Iterator[Instance]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            item = json.loads(line)
            options = item["options"]
            if item["answer_idx"] not in options:
                raise ValueError(f"{path.name} line {number}: answer_idx is not one of the options")
            # Options in the file's order, as HELM lists them.
            refs = tuple(Reference(str(text).rstrip('"').rstrip(), key == item["answer_idx"])
                         for key, text in options.items())
            yield Instance(f"{split}-{number:05d}", item["question"], refs, split=split)


@reader("med_qa")
def read_med_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per line of the chosen split(s); options A-D in file order, the correct one from answer_idx."""
    for split in SPLITS[args.get("split", "test")]:
        yield from _read_split(paths[f"phrases_no_exclude_{split}.jsonl"], split)
