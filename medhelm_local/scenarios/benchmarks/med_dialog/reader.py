"""MedDialog (English): summarise a patient-doctor conversation in one sentence.

HELM's copy of the BioBART splits: `<subset>/test.json` for the subsets healthcaremagic and
icliniq, each `{"data": [{"src": conversation, "tgt": summary}, ...]}`. One instance per item of
the subset named by `subset=`, keyed `<subset>-<position>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

SUBSETS = ("healthcaremagic", "icliniq")


@reader("med_dialog")
def read_med_dialog(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """Every conversation of the subset's test split, in file order."""
    subset = args.get("subset", SUBSETS[0])
    items = json.loads(paths[f"{subset}/test.json"].read_text("utf-8"))["data"]
    if not isinstance(items, list):
        raise ValueError(f"{subset}/test.json: data is not a list")
    for position, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not str(item.get("src", "")).strip():
            raise ValueError(f"{subset}/test.json item {position} has no src")
        yield Instance(f"{subset}-{position:05d}", str(item["src"]), (Reference(str(item.get("tgt", ""))),))
