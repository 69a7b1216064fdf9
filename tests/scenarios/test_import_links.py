"""`data import FOLDER` copies only what is inside the folder, into files only their owner can read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, run_cli

from medhelm_local.errors import DataImportError
from medhelm_local.scenarios import DataRoot, create, import_dataset


def dataset_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "usb" / "pubmedqa"
    folder.mkdir(parents=True)
    for path in (DEMO_DATASETS / "pubmedqa").iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    return folder


def test_a_link_to_a_file_outside_the_folder_is_refused_and_nothing_is_copied(tmp_path: Path) -> None:
    source = dataset_copy(tmp_path)
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not part of any dataset")
    (source / "notes.txt").symlink_to(secret)
    root = tmp_path / "data"

    with pytest.raises(DataImportError) as caught:
        import_dataset(source, root)

    assert "notes.txt is a symbolic link to a file outside the dataset folder" in caught.value.what
    assert not (root / "pubmedqa").exists()
    assert not any("not part of any dataset" in p.read_text(errors="replace")
                   for p in root.rglob("*") if p.is_file()) if root.exists() else True


def test_the_cli_refuses_a_link_to_a_system_file(tmp_path: Path) -> None:
    source = dataset_copy(tmp_path)
    (source / "passwd").symlink_to("/etc/passwd")
    root = tmp_path / "data"

    result = run_cli("data", "import", str(source), "--data-root", str(root))

    assert result.returncode == 2
    assert "passwd is a symbolic link to a file outside the dataset folder" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (root / "pubmedqa").exists()


def test_a_link_to_a_folder_is_refused(tmp_path: Path) -> None:
    source = dataset_copy(tmp_path)
    (source / "more").symlink_to(tmp_path / "usb")

    with pytest.raises(DataImportError, match="more is a symbolic link to a folder"):
        import_dataset(source, tmp_path / "data")


def test_a_link_inside_the_folder_is_copied_as_the_file_it_names(tmp_path: Path) -> None:
    source = dataset_copy(tmp_path)
    (source / "LICENSE.txt").symlink_to(source / "LICENSE")

    report = import_dataset(source, tmp_path / "data")

    copied = report.destination / "LICENSE.txt"
    assert not copied.is_symlink()
    assert copied.read_bytes() == (source / "LICENSE").read_bytes()


def test_every_imported_file_and_folder_is_owner_only(tmp_path: Path) -> None:
    source = dataset_copy(tmp_path)
    (source / "sub").mkdir()
    (source / "sub" / "extra.txt").write_text("x")
    for path in source.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    old_umask = os.umask(0o022)
    try:
        report = import_dataset(source, tmp_path / "data")
    finally:
        os.umask(old_umask)

    made = [report.destination, *report.destination.rglob("*")]
    modes = {p.relative_to(report.destination).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in made}
    assert modes == {".": 0o700, "LICENSE": 0o600, "ori_pqal.json": 0o600, "MANIFEST.json": 0o600,
                     "sub": 0o700, "sub/extra.txt": 0o600}
    assert len(create("pubmed_qa").load(DataRoot(tmp_path / "data"))) == 50
