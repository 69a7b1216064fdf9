"""`data import` writes one dataset folder directly in the data root, and never deletes anything else
(issue 29, finding 5: `data import . --replace` inside the data root deleted the whole root; `DIR/x/..`
deleted the root's parent, which in the default layout holds the audit log)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CLI, DEMO_DATASETS

from medhelm_local.errors import DataImportError
from medhelm_local.scenarios import DataRoot, create, import_dataset


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` and its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """The default layout: XDG_DATA_HOME/medhelm-local holding the audit log beside the data root, with two
    datasets imported."""
    home = Path(os.environ["XDG_DATA_HOME"]) / "medhelm-local"
    (home / "data").mkdir(parents=True)
    (home / "audit.duckdb").write_bytes(b"the audit log")
    for folder in ("pubmedqa", "medcalc_bench"):
        import_dataset(DEMO_DATASETS / folder, home / "data")
    return home


def _data_import(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), "data", "import", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "200"}, timeout=120)


def _refused(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_importing_the_data_root_itself_with_replace_deletes_nothing(layout: Path) -> None:
    before = _snapshot(layout)

    done = _data_import(".", "--replace", cwd=layout / "data")

    _refused(done, "the source is the data root or a folder that holds it")
    assert _snapshot(layout) == before


def test_a_dotdot_path_to_the_data_root_deletes_neither_it_nor_its_parent(layout: Path) -> None:
    before = _snapshot(layout)

    done = _data_import(str(layout / "data" / "pubmedqa" / ".."), "--replace", cwd=layout)

    _refused(done, "the source is the data root or a folder that holds it")
    assert _snapshot(layout) == before and (layout / "audit.duckdb").read_bytes() == b"the audit log"


def test_a_dotdot_path_from_outside_imports_the_folder_it_names(layout: Path, tmp_path: Path) -> None:
    outside = tmp_path / "downloads" / "pubmedqa"
    shutil.copytree(DEMO_DATASETS / "pubmedqa", outside)
    (outside / "x").mkdir()
    before = _snapshot(layout)

    done = _data_import(str(outside / "x" / ".."), "--replace", cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert f"into {layout / 'data' / 'pubmedqa'}" in done.stdout
    after = _snapshot(layout)
    assert (layout / "audit.duckdb").read_bytes() == b"the audit log"
    assert {k for k in after if not k.startswith("data/pubmedqa/")} == {k for k in before
                                                                        if not k.startswith("data/pubmedqa/")}
    assert len(create("pubmed_qa").load(DataRoot(layout / "data"))) == 50


def test_a_folder_above_the_data_root_is_refused(layout: Path) -> None:
    before = _snapshot(layout)

    with pytest.raises(DataImportError, match="a folder that holds it"):
        import_dataset(layout, layout / "data", replace=True)

    assert _snapshot(layout) == before


def test_a_folder_inside_another_dataset_is_refused(layout: Path) -> None:
    inner = layout / "data" / "pubmedqa" / "sub"
    inner.mkdir()
    (inner / "a.json").write_text("{}")

    with pytest.raises(DataImportError, match="inside the data root"):
        import_dataset(inner, layout / "data", name="pubmedqa", replace=True)
    with pytest.raises(DataImportError, match="inside the data root"):
        import_dataset(layout / "data" / "pubmedqa", layout / "data", name="copy")

    assert (inner / "a.json").exists() and not (layout / "data" / "copy").exists()


def test_a_link_to_the_data_root_is_refused(layout: Path, tmp_path: Path) -> None:
    link = tmp_path / "looks-like-a-dataset"
    link.symlink_to(layout / "data")
    before = _snapshot(layout)

    with pytest.raises(DataImportError, match="a folder that holds it"):
        import_dataset(link, layout / "data", name="fine", replace=True)

    assert _snapshot(layout) == before


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "../data"])
def test_a_name_that_is_not_one_folder_is_refused(layout: Path, name: str) -> None:
    before = _snapshot(layout)

    with pytest.raises(DataImportError, match="cannot name a dataset folder"):
        import_dataset(DEMO_DATASETS / "pubmedqa", layout / "data", name=name, replace=True)

    assert _snapshot(layout) == before


def test_replacing_a_linked_dataset_folder_leaves_the_link_target_alone(layout: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(DEMO_DATASETS / "medcalc_bench", elsewhere)
    shutil.rmtree(layout / "data" / "medcalc_bench")
    (layout / "data" / "medcalc_bench").symlink_to(elsewhere)
    kept = _snapshot(elsewhere)

    import_dataset(DEMO_DATASETS / "medcalc_bench", layout / "data", replace=True)

    assert _snapshot(elsewhere) == kept
    assert not (layout / "data" / "medcalc_bench").is_symlink()
    assert sorted(p.name for p in (layout / "data").iterdir()) == ["medcalc_bench", "pubmedqa"]


def test_replace_keeps_the_old_copy_until_the_new_one_is_complete(layout: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from medhelm_local.scenarios import datafiles

    seen: list[list[str]] = []
    real = datafiles._copy_private

    def copy_and_look(src: Path, dest: Path) -> str:
        seen.append(sorted(p.name for p in (layout / "data" / "pubmedqa").iterdir()))
        return real(src, dest)

    monkeypatch.setattr(datafiles, "_copy_private", copy_and_look)
    before = sorted(p.name for p in (layout / "data" / "pubmedqa").iterdir())

    import_dataset(DEMO_DATASETS / "pubmedqa", layout / "data", replace=True)

    assert seen and all(names == before for names in seen)
    assert sorted(p.name for p in (layout / "data").iterdir()) == ["medcalc_bench", "pubmedqa"]
