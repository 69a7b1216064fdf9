"""The encrypted store: what it refuses, and that plain text never reaches the disk."""

from __future__ import annotations

import importlib
import importlib.machinery
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from medhelm_local.errors import (
    ConfigError,
    NotAStoreError,
    StoreKeyError,
    StoreNotEncryptedError,
    StoreNotFoundError,
)
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Envelope, Kek
from medhelm_local.store.writer import StoreWriter

MARKER = "PHIMARKER-7Q2X-JONES-555-0199"


def _rows(n: int, run: str = "run-1") -> list[tuple[object, ...]]:
    return [(run, f"i{i}", i, "test", f"Patient {MARKER} note {i}", "[]", "{}", None) for i in range(n)]


def test_store_is_created_encrypted_and_reopens(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    handle = open_store(path, kek, create=True)
    row = handle.con.execute(
        "SELECT encrypted, cipher FROM duckdb_databases() WHERE database_name = 'store'").fetchone()
    handle.close()
    assert row == (True, "GCM")
    assert Envelope.path_for(path).exists()
    reopened = open_store(path, kek, read_only=True)
    assert reopened.store_id == Envelope.read(Envelope.path_for(path)).store_id
    reopened.close()


def test_marker_is_in_neither_the_store_file_nor_its_wal(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    handle = open_store(path, kek, create=True)
    writer = StoreWriter(handle)
    writer.put_many("instances", _rows(500))
    writer.close()
    wal = path.with_name(path.name + ".wal")
    # Still open: the rows sit in the WAL, not yet checkpointed into the main file.
    assert wal.exists() and wal.stat().st_size > 0
    assert MARKER.encode() not in wal.read_bytes()
    assert MARKER.encode() not in path.read_bytes()
    assert handle.con.execute("SELECT count(*) FROM instances WHERE input LIKE ?", [f"%{MARKER}%"]).fetchone() == (500,)
    handle.close()
    assert MARKER.encode() not in path.read_bytes()


def _spill_and_watch(con: duckdb.DuckDBPyConnection, tmp_dir: Path) -> tuple[int, bool]:
    """Run a query that must spill; return how many temp files appeared and whether any held the marker."""
    seen: set[Path] = set()
    leaked = False
    done = threading.Event()

    def watch() -> None:
        nonlocal leaked
        while not done.is_set():
            for file in tmp_dir.glob("*"):
                try:
                    data = file.read_bytes()
                except OSError:
                    continue
                seen.add(file)
                leaked = leaked or MARKER.encode() in data
            time.sleep(0.002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        # A window over incompressible strings: DuckDB compresses some spill blocks, and this
        # workload is one seen to write the strings verbatim when encryption is off.
        con.execute("SELECT max(r) FROM (SELECT v, row_number() OVER (ORDER BY v) AS r FROM big)").fetchone()
    finally:
        done.set()
        watcher.join()
    return len(seen), leaked


def _fill(con: duckdb.DuckDBPyConnection, table: str = "big") -> None:
    con.execute(f"CREATE TABLE {table} AS SELECT md5(range::VARCHAR) || '{MARKER}' || md5((range * 7)::VARCHAR) AS v "
                "FROM range(1500000)")


def test_spilled_temp_files_are_encrypted(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    handle = open_store(path, kek, create=True, memory_limit="256MB")
    _fill(handle.con)
    files, leaked = _spill_and_watch(handle.con, path.with_name(path.name + ".tmp"))
    handle.close()
    assert files > 0, "the query did not spill, so this test proved nothing"
    assert not leaked


def test_the_spill_probe_does_find_plain_text_when_encryption_is_off(tmp_path: Path) -> None:
    """Counter-check: the same watch on an unencrypted database sees the marker, so the test above can fail."""
    tmp_dir = tmp_path / "plain.tmp"
    con = duckdb.connect(str(tmp_path / "plain.duckdb"), config={"temp_directory": str(tmp_dir)})
    con.execute("SET memory_limit = '256MB'")
    con.execute("SET preserve_insertion_order = false")
    _fill(con)
    files, leaked = _spill_and_watch(con, tmp_dir)
    con.close()
    assert files > 0 and leaked


def test_wrong_kek_is_refused_with_both_fingerprints(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    open_store(path, kek, create=True).close()
    other = Kek(b"\x01" * 32, "other-key")
    with pytest.raises(StoreKeyError) as err:
        open_store(path, other)
    assert kek.fingerprint in str(err.value) and other.fingerprint in str(err.value)


def test_missing_envelope_is_a_clear_error(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    open_store(path, kek, create=True).close()
    Envelope.path_for(path).unlink()
    with pytest.raises(StoreKeyError, match="key envelope is missing"):
        open_store(path, kek)


def test_unencrypted_duckdb_file_is_refused(tmp_path: Path, kek: Kek) -> None:
    donor = tmp_path / "donor.duckdb"
    open_store(donor, kek, create=True).close()
    plain = tmp_path / "plain.duckdb"
    duckdb.connect(str(plain)).execute("CREATE TABLE t (x INTEGER)").close()
    Envelope.path_for(plain).write_bytes(Envelope.path_for(donor).read_bytes())
    with pytest.raises(StoreNotEncryptedError):
        open_store(plain, kek)


@pytest.mark.parametrize("content", [b"", b"hello world" * 100, b"\x00" * 4096])
def test_a_file_that_is_not_a_store_is_refused_and_left_alone(tmp_path: Path, kek: Kek, content: bytes) -> None:
    path = tmp_path / "notes.duckdb"
    path.write_bytes(content)
    with pytest.raises(NotAStoreError):
        open_store(path, kek, create=True)
    assert path.read_bytes() == content


def test_missing_store_is_not_created_by_readers(tmp_path: Path, kek: Kek) -> None:
    with pytest.raises(StoreNotFoundError):
        open_store(tmp_path / "absent.duckdb", kek, read_only=True)
    assert not (tmp_path / "absent.duckdb").exists()


def test_a_second_writer_process_is_refused(tmp_path: Path, kek: Kek) -> None:
    path = tmp_path / "suite.duckdb"
    handle = open_store(path, kek, create=True)
    code = ("import sys; from pathlib import Path; from medhelm_local.store.keys import Kek; "
            "from medhelm_local.store.database import open_store; from medhelm_local.errors import StoreLockedError\n"
            f"try:\n  open_store(Path({str(path)!r}), Kek(bytes.fromhex({kek.key.hex()!r}), 'k'))\n"
            "except StoreLockedError: sys.exit(7)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    handle.close()
    assert result.returncode == 7, result.stderr.decode()


def test_sql_cannot_reach_files_network_or_settings(tmp_path: Path, kek: Kek) -> None:
    handle = open_store(tmp_path / "suite.duckdb", kek, create=True)
    con = handle.con
    for statement in [f"COPY runs TO '{tmp_path / 'leak.csv'}'",
                      "SELECT * FROM read_csv('/etc/passwd')",
                      "INSTALL json",
                      "SET enable_external_access = true",
                      "SET temp_file_encryption = false",
                      "SET autoinstall_known_extensions = true"]:
        with pytest.raises(duckdb.Error):
            con.execute(statement)
    handle.close()
    assert not (tmp_path / "leak.csv").exists()


def test_bad_memory_limit_is_a_config_error(tmp_path: Path, kek: Kek) -> None:
    with pytest.raises(ConfigError, match="store_memory_limit"):
        open_store(tmp_path / "suite.duckdb", kek, create=True, memory_limit="lots")


def test_queries_with_parameters_no_longer_search_for_pandas(tmp_path: Path, kek: Kek,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # DuckDB's binding looks for pandas (not installed) at each query with parameters: each look searched
    # sys.path. Once a store is open, the absence is known and answered at once.
    handle = open_store(tmp_path / "s.duckdb", kek, create=True)
    searched: list[str] = []
    real = importlib.machinery.PathFinder.find_spec

    def counting(name: str, *args: object, **kwargs: object) -> object:
        searched.append(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", counting)
    try:
        for n in range(10):
            assert handle.con.execute("SELECT $n::INT + 1", {"n": n}).fetchone() == (n + 1,)
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("pandas")
    finally:
        handle.close()
    assert "pandas" not in searched


def test_discard_store_removes_its_files_but_never_one_another_process_has_open(tmp_path: Path, kek: Kek,
                                                                               kek_file: Path) -> None:
    """What a failed run made is removed with its key and log; a store another process is using is kept whole."""
    from medhelm_local.store.database import discard_store

    gone = tmp_path / "gone.duckdb"
    open_store(gone, kek, create=True).close()
    assert discard_store(gone) is True
    assert sorted(p.name for p in tmp_path.glob("gone*")) == []

    held = tmp_path / "held.duckdb"
    open_store(held, kek, create=True).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from medhelm_local.store.database import "
         "open_store; from medhelm_local.store.keys import Kek; "
         f"h = open_store(Path({str(held)!r}), Kek(bytes.fromhex(Path({str(kek_file)!r}).read_text().strip()), 'k')); "
         "print('open', flush=True); sys.stdin.readline(); h.close()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        assert discard_store(held) is False
        assert held.exists() and Envelope.path_for(held).exists()
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0
    assert discard_store(held) is True and not held.exists()
