"""The httpfs extension: loaded from site-packages, its bytes checked against the pinned digest, and any other
file loaded only when DuckDB finds its signature valid."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from medhelm_local.store.database import connect
from medhelm_local.store.extension import Extension, checked, httpfs_extension, httpfs_extension_path


def _copy(tmp_path: Path, platform: str | None = None, flip_byte_at: int | None = None) -> Path:
    """A copy of the installed extension in a `<version>/<platform>/` folder, optionally with one byte changed."""
    source = httpfs_extension_path()
    folder = tmp_path / source.parent.parent.name / (platform or source.parent.name)
    folder.mkdir(parents=True)
    copy = folder / source.name
    shutil.copyfile(source, copy)
    if flip_byte_at is not None:
        with copy.open("r+b") as file:
            file.seek(flip_byte_at)
            byte = file.read(1)
            file.seek(flip_byte_at)
            file.write(bytes([byte[0] ^ 0xFF]))
    return copy


def test_the_installed_extension_ships_in_site_packages_and_is_the_pinned_release() -> None:
    # Fails when duckdb-ext-httpfs is upgraded without its digest in PINNED: stores would still open, with
    # DuckDB's slower signature check, and this says so.
    found = httpfs_extension()
    assert found.path.is_file() and "site-packages" in str(found.path)
    assert found.pinned, f"add the SHA-256 of {found.path} to store/extension.py PINNED"
    assert "pinned" in found.describe() and "no download" in found.describe()


def test_only_the_exact_bytes_in_the_pinned_folder_are_pinned(tmp_path: Path) -> None:
    assert checked(_copy(tmp_path / "same")).pinned
    assert not checked(_copy(tmp_path / "changed", flip_byte_at=4096)).pinned
    assert not checked(_copy(tmp_path / "elsewhere", platform="linux_arm64")).pinned
    assert not checked(tmp_path / "v1.4.4" / "linux_amd64" / "missing.duckdb_extension").pinned


def test_a_changed_extension_file_is_refused_by_duckdbs_signature_check(tmp_path: Path) -> None:
    # Its digest is not pinned, so DuckDB checks the signature, and a changed byte breaks it: nothing loads.
    changed = checked(_copy(tmp_path, flip_byte_at=4096))
    with pytest.raises(duckdb.Error, match=r"(?i)signature|signed"):
        connect(extension=changed)


def test_a_file_not_pinned_still_loads_when_duckdb_finds_it_signed(tmp_path: Path) -> None:
    # Another platform's folder (no digest pinned there): the genuine bytes load, after DuckDB's own check.
    elsewhere = checked(_copy(tmp_path, platform="linux_arm64"))
    assert not elsewhere.pinned
    con = connect(extension=elsewhere)
    try:
        loaded = con.execute("SELECT loaded FROM duckdb_extensions() WHERE extension_name = 'httpfs'").fetchone()
        assert loaded == (True,)
    finally:
        con.close()


def test_an_encrypted_store_opens_with_the_pinned_extension(tmp_path: Path) -> None:
    con = connect(extension=Extension(httpfs_extension_path(), pinned=True))
    try:
        con.execute(f"ATTACH '{tmp_path / 'x.duckdb'}' AS x (ENCRYPTION_KEY '{'ab' * 32}', ENCRYPTION_CIPHER 'GCM')")
        con.execute("CREATE TABLE x.t AS SELECT 42 AS v")
        assert con.execute("SELECT encrypted FROM duckdb_databases() WHERE database_name = 'x'").fetchone() == (True,)
    finally:
        con.close()
