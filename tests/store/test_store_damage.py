"""Items 12 and 13: a store damaged on disk, or a write-ahead log cut short, is named clearly, never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from conftest import CLI, FakeServer, run_cli, write_config
from support.appliance import Appliance
from support.phi_store import PRIVATE_RUN

from medhelm_local.errors import StoreCorruptError
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Envelope, Kek

TABLES = ("runs", "instances", "requests", "completions", "scores")


def _copy(store: Path, to: Path) -> Path:
    shutil.copy(store, to)
    shutil.copy(Envelope.path_for(store), Envelope.path_for(to))
    return to


def _spoil(path: Path, offset: int) -> None:
    with path.open("r+b") as fh:
        fh.seek(offset)
        fh.write(bytes(range(64)))


def _damage_found_when_read(store: Path, kek: Kek, scratch: Path) -> int:
    """An offset whose damage opens fine and fails only when a table is read (the harder case to explain)."""
    for offset in range(17 * 16384 + 100, store.stat().st_size, 16384):
        trial = _copy(store, scratch)
        _spoil(trial, offset)
        try:
            handle = open_store(trial, kek, read_only=True)
        except StoreCorruptError:
            continue
        try:
            for table in TABLES:
                handle.con.execute(f"SELECT * FROM {table}").fetchall()
        except duckdb.Error:
            return offset
        finally:
            handle.close()
    pytest.fail("no page of the store fails only when read")


@pytest.mark.parametrize("where", ["header", "data page"])
def test_a_damaged_store_is_a_clear_error_in_every_command_and_failed_attempts_are_recorded(
        appliance: Appliance, kek: Kek, where: str) -> None:
    offset = 100 if where == "header" else _damage_found_when_read(appliance.store, kek, appliance.root / "t.duckdb")
    _spoil(appliance.store, offset)
    commands = {
        "runs list": ["runs", "list"],
        "show": ["show", PRIVATE_RUN, "--suite", "ward", "--instances", "5"],
        "export": ["export", "ward", "--to", str(appliance.root / "out"), "--role", "compliance_officer"],
        "redact store": ["redact", "store", str(appliance.store), "--out", str(appliance.root / "copy.duckdb")],
        "report": ["report", "ward", "--format", "json"],
    }
    for name, args in commands.items():
        done = appliance.cli(*args)
        assert done.returncode == 4, f"{name}: {done.stdout}{done.stderr}"
        assert "Traceback" not in done.stderr and "the store is damaged" in done.stderr, f"{name}: {done.stderr}"
        assert str(appliance.store) in done.stderr and "restore" in done.stderr and "backup" in done.stderr
    assert not (appliance.root / "out").exists() and not (appliance.root / "copy.duckdb").exists()
    failed = [r for r in appliance.audit_records() if r["kind"] in ("export.failed", "redact_store.failed")]
    assert [r["kind"] for r in failed] == ["export.failed", "redact_store.failed"]
    assert all(r["details"]["error"] == "StoreCorruptError" for r in failed)


def test_a_run_into_a_damaged_store_is_a_clear_error(tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek,
                                                     fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    entry = "pubmed_qa:model=local/fake,model_deployment=fake"
    assert run_cli("-c", str(config), "run", entry, "--suite", "s", "-m", "20", env=env).returncode == 0
    store = tmp_path / "results" / "s.duckdb"
    _spoil(store, _damage_found_when_read(store, kek, tmp_path / "t.duckdb"))
    again = run_cli("-c", str(config), "run", entry, "--suite", "s", "-m", "30", env=env)
    assert again.returncode == 4 and "Traceback" not in again.stderr, again.stderr
    assert "the store is damaged" in again.stderr and str(store) in again.stderr


def test_a_torn_write_ahead_log_is_reported_and_a_rerun_redoes_what_it_lost(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(delay=0.3)
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 4}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    entry = "pubmed_qa:model=local/fake,model_deployment=fake"
    proc = subprocess.Popen([str(CLI), "-c", str(config), "run", entry, "--suite", "torn"],
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while server.stats()["requests"] < 16 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.3)  # past the writer's window (1 s): answers committed
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    wal = tmp_path / "results" / "torn.duckdb.wal"
    data = wal.read_bytes()
    wal.write_bytes(data[:-7])  # the last entry cut short, as a crash mid-write leaves it
    listed = run_cli("-c", str(config), "runs", "list", "--suite", "torn", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "Warning:" in listed.stderr and "torn.duckdb.wal is cut short" in listed.stderr
    assert "rerun" in listed.stderr.lower() and "restore" in listed.stderr
    rerun = run_cli("-c", str(config), "run", entry, "--suite", "torn", "--json", env=env)
    assert rerun.returncode == 0 and "cut short" in rerun.stderr
    assert json.loads(rerun.stdout)["runs"][0]["run"]["n_ok"] == 50
    clean = run_cli("-c", str(config), "runs", "list", "--suite", "torn", env=env)
    assert clean.returncode == 0 and "Warning" not in clean.stderr


def test_one_bad_store_in_the_output_folder_is_skipped_with_a_warning_and_the_others_still_listed(
        tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    """Issue 29, finding 8: one foreign or damaged store in output_dir made `runs list` and `show` fail for
    every store."""
    from support.report_store import FakeRun, write_store

    from medhelm_local.store.keys import write_new_kek

    results = tmp_path / "results"
    good = write_store(results / "ward.duckdb", kek, "ward", [FakeRun("local/a", "pubmed_qa", 10)])[0]
    write_store(results / "other-site.duckdb", write_new_kek(tmp_path / "other-kek"), "other-site",
                [FakeRun("local/b", "pubmed_qa", 10)])  # sealed with another hospital's KEK
    _spoil(_copy(results / "ward.duckdb", results / "damaged.duckdb"), 100)
    (results / "notes.duckdb").write_bytes(os.urandom(4096))  # not a store at all
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    listed = run_cli("runs", "list", "--output", str(results), "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert [(s["store"], [r["run_id"] for r in s["runs"]]) for s in json.loads(listed.stdout)] == [
        (str(results / "ward.duckdb"), [good])]
    warned = " ".join(listed.stderr.split())
    for bad, why in (("damaged", "the store is damaged"), ("notes", "not a DuckDB database"),
                     ("other-site", "another key-encryption key")):
        assert f"Warning: skipped {results / bad}.duckdb, which cannot be read:" in warned and why in warned
    assert "Traceback" not in listed.stderr
    shown = run_cli("show", good, "--output", str(results), "--json", env=env)
    assert shown.returncode == 0 and json.loads(shown.stdout)["store"] == str(results / "ward.duckdb"), shown.stderr
    missing = run_cli("show", "nosuch-run", "--output", str(results), env=env)
    assert missing.returncode == 2 and "3 store(s) there could not be read" in " ".join(missing.stderr.split())
    damaged = run_cli("show", good, "--store", str(results / "damaged.duckdb"), env=env)
    assert damaged.returncode == 4 and "the store is damaged" in damaged.stderr and "Warning" not in damaged.stderr
    # When no store there can be read, the first one's error stops the command (damaged.duckdb: exit 4).
    _spoil(results / "ward.duckdb", 100)
    alone = run_cli("runs", "list", "--output", str(results), env=env)
    assert alone.returncode == 4 and "the store is damaged" in alone.stderr
