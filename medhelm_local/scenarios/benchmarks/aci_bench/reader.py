"""ACI-Bench: the encounters of the three challenge test sets (40 each), as in MedHELM; the input is
the doctor-patient dialogue, the reference the clinician's note, keyed by file id (unique across sets)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

# MedHELM's test split: the three challenge test sets, in this order (train_full.json is never evaluated).
TEST_SETS = ("clinicalnlp_taskB_test1", "clef_taskC_test3", "clinicalnlp_taskC_test2")
TEST_FILES = tuple(f"challenge_data_json/{name}_full.json" for name in TEST_SETS)


@reader("aci_bench")
def read_aci_bench(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per encounter of each test file, in file order."""
    seen: set[str] = set()
    for test_set, file in zip(TEST_SETS, TEST_FILES, strict=True):
        for entry in json.loads(paths[file].read_text("utf-8"))["data"]:
            encounter = entry["file"]
            if encounter in seen:
                raise ValueError(f"encounter {encounter} appears twice in the test sets")
            seen.add(encounter)
            if not entry["src"].strip() or not entry["tgt"].strip():
                raise ValueError(f"encounter {encounter} in {file} has an empty dialogue or note")
            yield Instance(encounter, f"Doctor-patient dialogue:\n\n{entry['src']}", (Reference(entry["tgt"]),),
                           extra=MappingProxyType({"test_set": test_set}))
