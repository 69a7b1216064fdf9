"""Item 7 (file modes): every file and folder the program writes is its owner's alone."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import CLI, FakeServer, write_config
from support.appliance import Appliance, make_appliance

from medhelm_local.store.keys import Kek


@pytest.fixture
def appliance(tmp_path: Path, kek_file: Path, kek: Kek, data_root: Path) -> Appliance:
    """The shared appliance, its signing key and audit log made by the commands (`keys signing-init`, `policy
    approve`): the modes of what they write are checked here."""
    return make_appliance(tmp_path, kek_file, kek, data_root, commands=True)


def _tree(root: Path) -> set[Path]:
    return {p for p in root.rglob("*")}


def _open_to_others(paths: set[Path]) -> list[str]:
    """Every path whose group or others may read, write or enter it (public keys are meant to be read)."""
    return sorted(f"{p} {stat.filemode(p.stat().st_mode)}" for p in paths
                  if p.exists() and p.stat().st_mode & 0o077 and p.suffix != ".pub")


def test_exports_copies_audit_log_and_redacted_files_are_owner_only(appliance: Appliance) -> None:
    before = _tree(appliance.root)
    notes = appliance.root / "notes.jsonl"
    notes.write_text('{"id": 1, "text": "Call Mr. Przybylski at (617) 555-0143."}\n')
    before.add(notes)
    for args in (["export", "ward", "--to", str(appliance.root / "exports" / "b1"), "--role", "data_scientist"],
                 ["redact", "store", str(appliance.store), "--out", str(appliance.root / "shared" / "copy.duckdb")],
                 ["redact", "scan", "-i", str(notes), "-o", str(appliance.root / "spans.jsonl")],
                 ["redact", "apply", "-i", str(notes), "-o", str(appliance.root / "redacted.jsonl")],
                 ["keys", "init", "--out", str(appliance.root / "keys" / "kek2")]):
        done = appliance.cli(*args)
        assert done.returncode == 0, done.stderr
    made = _tree(appliance.root) - before
    assert {p.name for p in made} >= {"MANIFEST.json", "scores.jsonl", "copy.duckdb", "copy.duckdb.key", "spans.jsonl",
                                      "redacted.jsonl", "kek2", "exports", "b1"}
    assert appliance.audit.exists()  # made by the fixture's approval, through the CLI too
    audit_files = {appliance.audit, appliance.audit.with_name("audit.duckdb.key"),
                   appliance.audit.with_name("audit.duckdb.head")}
    assert _open_to_others(made | audit_files | {appliance.signing_key}) == []


def test_a_store_its_write_ahead_log_and_the_log_file_are_owner_only(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(delay=0.3)
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 4}})
    log = tmp_path / "logs" / "medhelm.log"
    log.parent.mkdir()
    env = {**os.environ, "MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_LOG_FILE": str(log)}
    proc = subprocess.Popen([str(CLI), "-c", str(config), "run", "pubmed_qa:model=local/fake,model_deployment=fake",
                             "--suite", "modes"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while server.stats()["requests"] < 12 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)  # a killed run leaves its write-ahead log behind
    proc.wait(timeout=30)
    results = tmp_path / "results"
    names = {p.name for p in results.iterdir()}
    assert {"modes.duckdb", "modes.duckdb.key", "modes.duckdb.wal"} <= names
    assert _open_to_others(_tree(results) | {results, log}) == []


def test_a_kek_or_signing_key_others_may_read_stops_the_export_with_the_chmod(appliance: Appliance) -> None:
    """Issue 29, finding 8: a KEK or signing key readable by others (mode 0644) was used without a word."""
    kek_file = Path(appliance.env["MEDHELM_KEK_FILE"])
    bundle = appliance.root / "exports" / "b1"
    export = ["export", "ward", "--to", str(bundle), "--role", "data_scientist"]
    for key, what in ((kek_file, "key-encryption key"), (appliance.signing_key, "signing key")):
        key.chmod(0o644)
        refused = appliance.cli(*export)
        said = " ".join(refused.stderr.split())
        assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
        assert f"the {what} file may be read or changed by others (mode 0644)" in said
        assert f"chmod 600 {key}" in said
        assert not bundle.exists()
        key.chmod(0o600)
    done = appliance.cli(*export)
    assert done.returncode == 0, done.stderr


def test_a_notebook_under_umask_022_gets_owner_only_stores_and_keeps_its_umask(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The library called from a notebook (umask 022, not the command's 077): what it writes is owner-only
    all the same, and the notebook's umask is what it was once the call returns, also after an error."""
    import medhelm_local as mh
    from medhelm_local.errors import RunEntryError

    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 4}})
    monkeypatch.setenv("MEDHELM_KEK_FILE", str(kek_file))
    before = os.umask(0o022)
    try:
        run = mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=config, suite="notebook",
                          max_eval_instances=5)
        assert os.umask(0o022) == 0o022
        with pytest.raises(RunEntryError):
            mh.evaluate([], config=config)
        assert os.umask(0o022) == 0o022
        made = mh.make_report("notebook", config=config, fmt="html", out=tmp_path / "report")
    finally:
        os.umask(before)
    assert run.store.exists() and made
    assert _open_to_others(_tree(tmp_path / "results") | _tree(tmp_path / "report") | {tmp_path / "report"}) == []
