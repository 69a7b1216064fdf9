"""One folder per built-in benchmark: its card, its reader hook, its data record and a README, side by side."""

from __future__ import annotations

import fnmatch
import json
import tomllib
from pathlib import Path

import yaml
from conftest import REPO

from medhelm_local.scenarios import benchmarks, get, names
from medhelm_local.scenarios.dataset_sources import dataset_sources, gated_datasets, unpinned_datasets

FOLDER = REPO / "medhelm_local" / "scenarios" / "benchmarks"
KNOWN = {"__init__.py", "card.yaml", "reader.py", "manifest.json", "gated.json", "unpinned.json", "README.md"}


def _folders() -> list[Path]:
    return sorted(p for p in FOLDER.iterdir() if p.is_dir() and p.name != "__pycache__")


def test_every_shipped_benchmark_is_a_folder_named_for_it_with_a_card_and_a_readme() -> None:
    assert [p.name for p in _folders()] == names()
    for folder in _folders():
        card = yaml.safe_load((folder / "card.yaml").read_text("utf-8"))
        assert card["name"] == folder.name
        readme = (folder / "README.md").read_text("utf-8")
        assert readme.startswith(f"# {card['display_name']}") and f"`{folder.name}`" in readme, folder
        main = card["metrics"]["main"]
        assert all(f"`{m}`" in readme for m in ([main] if isinstance(main, str) else main)), folder
        # A reader hook sits beside the card that names it; helpers of that hook may sit there too.
        assert (folder / "reader.py").is_file() == (card["data"].get("reader") == folder.name), folder
        extra = {p.name for p in folder.iterdir() if p.name not in KNOWN and p.name != "__pycache__"}
        assert all(name.endswith(".py") for name in extra), f"{folder.name}: {extra}"


def test_each_data_record_sits_in_the_folder_of_the_benchmark_that_reads_it() -> None:
    for path in benchmarks.every(benchmarks.MANIFEST):
        assert get(path.parent.name).card.data.folder == json.loads(path.read_text("utf-8"))["folder"], path
    for path in benchmarks.every(benchmarks.UNPINNED):
        record = json.loads(path.read_text("utf-8"))
        assert record["benchmark"] == path.parent.name and get(path.parent.name).card.data.folder == record["folder"]
    for path in benchmarks.every(benchmarks.GATED):
        assert json.loads(path.read_text("utf-8"))["benchmark"].split()[0] == path.parent.name
        assert get(path.parent.name).access == "gated" or (path.parent / "manifest.json").is_file()
    gated = {name for name in names() if get(name).access == "gated"}
    assert gated <= {p.parent.name for p in benchmarks.every(benchmarks.GATED)}
    assert len(dataset_sources()) == len(list(benchmarks.every(benchmarks.MANIFEST)))
    assert len(gated_datasets()) + len(unpinned_datasets()) == len(
        [*benchmarks.every(benchmarks.GATED), *benchmarks.every(benchmarks.UNPINNED)])


def test_the_wheel_carries_every_file_of_every_benchmark_folder() -> None:
    """Each folder is a package (its reader imports) and each data file matches pyproject's package-data globs, as
    setuptools matches them; a real `pip wheel .` (the wheelhouse's build, which needs the index) shipped them all."""
    package_data = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-data"]
    globs = package_data["medhelm_local"]
    for folder in _folders():
        assert (folder / "__init__.py").is_file(), folder
        for path in folder.iterdir():
            relative = path.relative_to(REPO / "medhelm_local").as_posix()
            if path.suffix != ".py" and path.name != "__pycache__":
                assert any(fnmatch.fnmatchcase(relative, g) and g.count("/") == relative.count("/") for g in globs), \
                    f"{relative} would be left out of the wheel"
