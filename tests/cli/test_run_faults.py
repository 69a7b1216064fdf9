"""`medhelm-local run` as a user runs it, against the fault-injecting server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import CLI, FakeServer, run_cli, write_config

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

ENTRIES = [f"{name}:model=local/fake,model_deployment=fake" for name in ("pubmed_qa", "med_qa", "medcalc_bench")]


def _config(tmp_path: Path, data_root: Path, server: FakeServer, **deployment: Any) -> Path:
    fields = {"base_url": server.base_url, "max_concurrency": 32, "timeout_s": 1.0, "max_retries": 1, **deployment}
    return write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": fields})


def _show(config: Path, env: dict[str, str], run_id: str, suite: str) -> dict[str, Any]:
    shown = run_cli("-c", str(config), "show", run_id, "--suite", suite, "--instances", "1000", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def test_thirty_percent_faults_every_instance_scored_or_failed_with_reason(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(delay=0.01, fault_rate=0.3, hang=5.0)
    config = _config(tmp_path, data_root, server)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    result = run_cli("-c", str(config), "run", *ENTRIES, "--suite", "faults", "--json", env=env)
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    assert len(runs) == 3
    total_failed = 0
    for run in runs:
        summary, main = run["run"], run["run"]["main_metric"]
        detail = _show(config, env, summary["run_id"], "faults")
        rows = detail["instances"]
        assert len(rows) == summary["n_instances"] == 50
        for row in rows:
            scored = any(s["metric"] == main for s in (row["scores"] or []))
            if row["ok"]:
                assert scored, f"{row['instance_id']} completed but has no {main} score"
            else:
                assert not scored, "a failed request must never be scored"
                assert row["error_type"] and row["error_message"]
        failed = [r for r in rows if not r["ok"]]
        aggregate = next(a for a in run["aggregates"] if a["metric"] == main)
        assert aggregate["n_failed"] == len(failed) == summary["n_failed"]
        assert aggregate["n_scored"] + aggregate["n_failed"] == aggregate["n"] == 50
        total_failed += len(failed)
    outcomes = server.stats()["outcomes"]
    assert {"429", "500", "drop", "hang", "malformed"} <= set(outcomes)
    # One retry at 30 % faults leaves about 9 % failed: enough to prove failures are kept and counted.
    assert total_failed > 0


def test_rerun_retries_only_failed_instances(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(fault_rate=0.5, faults="500")
    config = _config(tmp_path, data_root, server, max_retries=0)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    first = json.loads(run_cli("-c", str(config), "run", ENTRIES[0], "--json", env=env).stdout)["runs"][0]
    failed_before = first["run"]["n_failed"]
    assert failed_before > 0
    requests_before = server.stats()["requests"]
    second = json.loads(run_cli("-c", str(config), "run", ENTRIES[0], "--json", env=env).stdout)["runs"][0]
    assert server.stats()["requests"] - requests_before == failed_before
    assert second["reused"] == 50 - failed_before
    # Every instance still has exactly one row in each table: a retry replaced its failed completion.
    handle = open_store(tmp_path / "results" / "default.duckdb", Kek(bytes.fromhex(kek_file.read_text().strip()), "k"),
                        read_only=True)
    try:
        for table in ("instances", "requests", "completions"):
            counts = handle.con.execute(f"SELECT count(*), count(DISTINCT instance_id) FROM {table}").fetchone()
            assert counts == (50, 50), table
        assert handle.con.execute("SELECT count(*) FROM scores WHERE metric = 'exact_match'").fetchone() == (
            second["run"]["n_ok"],)
    finally:
        handle.close()


def test_planted_marker_never_reaches_store_wal_log_or_terminal(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    marker = "PHI-MARKER-MRN-00417733-DOE"
    data_file = data_root / "pubmedqa" / "ori_pqal.json"
    items = json.loads(data_file.read_text())
    for item in items.values():
        item["QUESTION"] = f"Patient {marker}: {item['QUESTION']}"
    planted = tmp_path / "planted" / "pubmedqa"
    planted.mkdir(parents=True)
    (planted / "ori_pqal.json").write_text(json.dumps(items))
    assert run_cli("data", "import", str(planted), "--data-root", str(data_root), "--replace").returncode == 0

    server = fake_server(delay=0.5)
    config = _config(tmp_path, data_root, server, max_concurrency=4, timeout_s=10)
    log = tmp_path / "medhelm.log"
    env = {**os.environ, "MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_LOG_FILE": str(log)}
    proc = subprocess.Popen([str(CLI), "-c", str(config), "run", ENTRIES[0], "--suite", "marker"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    store = tmp_path / "results" / "marker.duckdb"
    wal = store.with_name(store.name + ".wal")
    deadline = time.monotonic() + 60
    while server.stats()["requests"] < 12 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.6)  # let some completions commit
    proc.send_signal(signal.SIGKILL)
    output = proc.communicate(timeout=30)[0]
    assert wal.exists() and wal.stat().st_size > 0, "kill -9 should leave the write-ahead log behind"
    for path in (store, wal, log):
        assert path.exists()
        assert marker.encode() not in path.read_bytes(), f"marker found in {path.name}"
    assert marker.encode() not in output
    assert "instances selected" in log.read_text(), "the log must have been written for this check to mean anything"
    # And the text really is in the store, encrypted: a reader with the key finds it.
    shown = run_cli("-c", str(config), "runs", "list", "--suite", "marker", "--json",
                    env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert shown.returncode == 0 and json.loads(shown.stdout)[0]["runs"][0]["n_ok"] > 0


def _port_with_nothing_listening() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_endpoint_down_leaves_no_new_store_and_no_empty_run_in_an_old_one(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """A model server that is down stops the command before any request: a suite it would have created is
    not left behind, and in an existing suite the run it would have added is not kept with nothing in it."""
    server = fake_server(delay=0.0)
    down = f"http://127.0.0.1:{_port_with_nothing_listening()}/v1"
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 8},
                           "down": {"base_url": down, "max_concurrency": 8, "max_retries": 0}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    on_down = "pubmed_qa:model=local/other,model_deployment=down"

    fresh = run_cli("-c", str(config), "run", on_down, "--suite", "never", "--max-eval-instances", "5", env=env)
    assert fresh.returncode == 3, fresh.stderr
    assert "nothing answered" in fresh.stderr and "Traceback" not in fresh.stderr
    assert "start the vLLM server" in fresh.stderr  # the default engine, named as the user set it up
    assert sorted(p.name for p in (tmp_path / "results").glob("never*")) == []

    kept = run_cli("-c", str(config), "run", ENTRIES[0], "--suite", "ward", "--max-eval-instances", "5", env=env)
    assert kept.returncode == 0, kept.stderr
    again = run_cli("-c", str(config), "run", ENTRIES[0], on_down, "--suite", "ward", "--max-eval-instances", "5",
                    env=env)
    assert again.returncode == 3, again.stderr
    listed = run_cli("-c", str(config), "runs", "list", "--suite", "ward", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    suites = json.loads(listed.stdout)
    assert [[(r["model"], r["n_ok"]) for r in s["runs"]] for s in suites] == [[("local/fake", 5)]]
