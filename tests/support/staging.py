"""Helpers for `data stage` / `data import` tests: what the local mirror serves, and a staging policy."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from medhelm_local.data.stage import StagePlan, plan_stage
from medhelm_local.scenarios.datafiles import sha256_file
from medhelm_local.scenarios.dataset_sources import dataset_sources

REPO = Path(__file__).resolve().parents[2]
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
FIXTURE_ROOTS = (REPO / "tests" / "data" / "datasets", REPO / "deploy" / "demo" / "datasets")
SHIPPED_POLICIES = REPO / "policies"


def published_mirror() -> bool:
    """True when the published files themselves are on this machine (../shared/datasets)."""
    return SHARED_DATASETS.is_dir()


def mirror_folders() -> dict[str, Path]:
    """The dataset folders the mirror serves: the published ones when present, else the project's fixtures."""
    known = dataset_sources()
    if published_mirror():
        return {folder: SHARED_DATASETS / folder for folder in known if (SHARED_DATASETS / folder).is_dir()}
    return {p.name: p for root in FIXTURE_ROOTS for p in sorted(root.iterdir()) if p.is_dir() and p.name in known}


def served_plan(mirror_url: str, folders: Sequence[str] | None = None) -> StagePlan:
    """What to stage from the mirror: the shipped plan when it serves the published files, else the same
    sources with the checksums of the fixture files it serves (fixtures are subsets, not published bytes)."""
    served = mirror_folders()
    chosen = sorted(folders or served)
    if published_mirror():
        return plan_stage(chosen).served_from(mirror_url)
    sources = []
    for folder in chosen:
        shipped, path = dataset_sources()[folder], served[folder]
        files = tuple(replace(f, sha256=sha256_file(path / f.name), bytes=(path / f.name).stat().st_size)
                      for f in shipped.files if (path / f.name).is_file())
        sources.append(replace(shipped, files=files))
    return StagePlan(tuple(sources), ()).served_from(mirror_url)


def staging_policy(dest: Path, port: int, purpose: str = "staging") -> Path:
    """A copy of the shipped policies whose egress.yaml lists the mirror on 127.0.0.1 for `purpose`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("export.yaml", "retention.yaml", "roles.yaml"):
        shutil.copy(SHIPPED_POLICIES / name, dest / name)
    (dest / "egress.yaml").write_text(
        f"default: deny\nallow:\n  - host: 127.0.0.1\n    port: {port}\n    purpose: {purpose}\n"
        "    why: the test mirror of the dataset publishers\n")
    return dest
