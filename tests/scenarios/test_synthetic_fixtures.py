"""The synthetic fixtures are what tests/data/make_synthetic.py writes, byte for byte, and say they are synthetic."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import REPO

DATA = REPO / "tests" / "data"
FOLDERS = ("gated", "private", "datasets/med_dialog", "datasets/medmcqa")


def test_the_committed_fixtures_are_what_the_generator_writes(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_synthetic", DATA / "make_synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    module.write_all(tmp_path)

    for folder in FOLDERS:
        committed = {p.relative_to(DATA): p.read_bytes() for p in sorted((DATA / folder).rglob("*")) if p.is_file()}
        written = {p.relative_to(tmp_path): p.read_bytes() for p in sorted((tmp_path / folder).rglob("*"))
                   if p.is_file()}
        assert committed.keys() == written.keys(), folder
        assert [name for name in committed if committed[name] != written[name]] == [], folder


def test_every_fixture_folder_is_marked_synthetic() -> None:
    marked = [p.parent for p in DATA.rglob("SYNTHETIC.md")]
    for folder in [*(DATA / "gated").iterdir(), DATA / "private", DATA / "datasets" / "med_dialog",
                   DATA / "datasets" / "medmcqa"]:
        assert folder in marked, folder
        assert "no real patient data" in (folder / "SYNTHETIC.md").read_text()
