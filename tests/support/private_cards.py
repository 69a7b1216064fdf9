"""The documented private-format example cards placed beside synthetic files, as a hospital places its own."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Each example card (docs/private-benchmarks/) and the synthetic file (tests/data/private/) it reads.
PRIVATE_FILES = {"shc_ptbm_med": "shc_ptbm_med.csv", "clear": "CLEAR", "chw_care_plan": "chw_care_plan.csv",
                 "mental_health": "mental_health.csv", "starr_patient_instructions": "starr_patient_instructions.csv"}


def private_cards(folder: Path) -> Path:
    """A folder holding every example card with its file (for the `benchmark_cards` setting)."""
    folder.mkdir(parents=True)
    for name, data in PRIVATE_FILES.items():
        shutil.copy(REPO / "docs" / "private-benchmarks" / f"{name}.yaml", folder / f"{name}.yaml")
        source = REPO / "tests" / "data" / "private" / data
        if source.is_dir():
            shutil.copytree(source, folder / data)
        else:
            shutil.copy(source, folder / data)
    return folder
