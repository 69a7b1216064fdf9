"""Sharded runs: `run --shard I/N` processes and `store merge` give exactly the rows and aggregates of one
unsharded run; a killed shard resumes; a merge that cannot be exact refuses and writes nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, FakeServer, run_cli, write_config

from medhelm_local.metrics.efficiency import TIMED
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

ENTRIES = ["pubmed_qa:model=local/m,model_deployment=fake", "medcalc_bench:model=local/m,model_deployment=fake"]


def _config(root: Path, data_root: Path, server: FakeServer, concurrency: int = 8) -> Path:
    return write_config(root / "config.toml", data_root, root / "results",
                        {"fake": {"base_url": server.base_url, "max_concurrency": concurrency, "max_retries": 0}})


def _snapshot(store: Path, kek: Kek) -> dict[str, Any]:
    """Everything a user could read from a suite store, in a stable order."""
    handle = open_store(store, kek, read_only=True)
    try:
        con = handle.con
        return {
            "instances": con.execute("SELECT run_id, instance_id, ordinal, input FROM instances "
                                     "ORDER BY ALL").fetchall(),
            "requests": con.execute("SELECT run_id, instance_id, prompt FROM requests ORDER BY ALL").fetchall(),
            "completions": con.execute("SELECT run_id, instance_id, ok, text FROM completions ORDER BY ALL").fetchall(),
            "scores": con.execute("SELECT run_id, instance_id, metric, value, extracted FROM scores "
                                  "ORDER BY ALL").fetchall(),
            # Latency and throughput are how long requests took this time: equal runs differ in them.
            "aggregates": con.execute("SELECT run_id, metric, value, ci_low, ci_high, n, n_scored, n_failed "
                                      "FROM run_metrics WHERE metric NOT IN (SELECT unnest($timed)) ORDER BY ALL",
                                      {"timed": list(TIMED)}).fetchall(),
            "runs": con.execute("SELECT run_id, main_metric, access FROM runs ORDER BY ALL").fetchall(),
        }
    finally:
        handle.close()


def _kek(kek_file: Path) -> Kek:
    return Kek(bytes.fromhex(kek_file.read_text().strip()), str(kek_file))


def _shards(config: Path, env: dict[str, str], count: int) -> None:
    """N shard processes at once, as an Indexed Job runs them."""
    procs = [subprocess.Popen([str(CLI), "-c", str(config), "run", *ENTRIES, "--suite", "ward", "-m", "24",
                               "--shard", f"{i}/{count}", "--quiet"], env={**os.environ, **env})
             for i in range(count)]
    assert [p.wait(timeout=300) for p in procs] == [0] * count


def test_three_shards_merged_equal_one_unsharded_run(tmp_path: Path, data_root: Path, kek_file: Path,
                                                     fake_server: Callable[..., FakeServer]) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    server = fake_server()
    whole = _config(tmp_path / "whole", data_root, server)
    assert run_cli("-c", str(whole), "run", *ENTRIES, "--suite", "ward", "-m", "24", env=env).returncode == 0
    split = _config(tmp_path / "split", data_root, server)
    _shards(split, env, 3)
    merged = run_cli("-c", str(split), "store", "merge", "--suite", "ward", "--json", env=env)
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["rows"]["instances"] == 48
    expected = _snapshot(tmp_path / "whole" / "results" / "ward.duckdb", _kek(kek_file))
    got = _snapshot(tmp_path / "split" / "results" / "ward.duckdb", _kek(kek_file))
    assert got == expected
    counts = [json.loads(run_cli("-c", str(split), "runs", "list", "--store", str(p), "--json", env=env).stdout)
              for p in sorted((tmp_path / "split" / "results").glob("ward.shard-*.duckdb"))]
    per_shard = [sum(r["n_instances"] for r in c[0]["runs"]) for c in counts]
    assert sum(per_shard) == 48 and all(n > 0 for n in per_shard)


def test_a_killed_shard_resumes_and_the_merge_waits_for_it(tmp_path: Path, data_root: Path, kek_file: Path,
                                                          fake_server: Callable[..., FakeServer]) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    server = fake_server(delay=0.3)
    config = _config(tmp_path, data_root, server, concurrency=2)
    shard = [str(CLI), "-c", str(config), "run", *ENTRIES, "--suite", "ward", "-m", "24", "--shard", "0/2", "--quiet"]
    proc = subprocess.Popen(shard, env={**os.environ, **env})
    deadline = time.monotonic() + 120  # wait for answers, however loaded the machine is, then kill midway
    while server.stats()["requests"] < 8 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(1.3)  # the writer commits within its window (1 s) of an answer
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert subprocess.run([*shard[:-5], "--shard", "1/2", "--quiet"], env={**os.environ, **env}).returncode == 0
    unfinished = run_cli("-c", str(config), "store", "merge", "--suite", "ward", env=env)
    assert unfinished.returncode == 2 and "has not finished" in unfinished.stderr
    assert not (tmp_path / "results" / "ward.duckdb").exists()
    handle = open_store(tmp_path / "results" / "ward.shard-0-of-2.duckdb", _kek(kek_file), read_only=True)
    try:
        answered = [hashlib.sha256(p.encode()).hexdigest()[:16] for (p,) in handle.con.execute(
            "SELECT prompt FROM requests JOIN completions USING (run_id, instance_id) WHERE ok").fetchall()]
    finally:
        handle.close()
    assert answered, "the shard was killed after some answers were stored"
    assert subprocess.run(shard, env={**os.environ, **env}).returncode == 0
    per_prompt = server.stats()["per_prompt"]
    assert all(per_prompt[h] == 1 for h in answered), "a resumed shard never asks again for an answer it has"
    assert run_cli("-c", str(config), "store", "merge", "--suite", "ward", env=env).returncode == 0


def test_a_merge_that_cannot_be_exact_refuses_and_writes_nothing(tmp_path: Path, data_root: Path, kek_file: Path,
                                                                  fake_server: Callable[..., FakeServer]) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    config = _config(tmp_path, data_root, fake_server())
    results = tmp_path / "results"
    _shards(config, env, 3)

    def merge(*extra: str, kek: Path = kek_file) -> subprocess.CompletedProcess[str]:
        return run_cli("-c", str(config), "store", "merge", "--suite", "ward", *extra,
                       env={"MEDHELM_KEK_FILE": str(kek)})

    aside = tmp_path / "aside"
    aside.mkdir()
    for suffix in ("", ".key"):
        shutil.move(results / f"ward.shard-1-of-3.duckdb{suffix}", aside / f"ward.shard-1-of-3.duckdb{suffix}")
    missing = merge()
    assert missing.returncode == 2 and "shard(s) 1 of 3 are missing" in missing.stderr
    for suffix in ("", ".key"):  # another suite's store passed off as shard 1
        assert run_cli("-c", str(config), "run", ENTRIES[0], "--suite", "other", "-m", "3", "--quiet",
                       env=env).returncode == 0 if not suffix else True
        shutil.copy(results / f"other.duckdb{suffix}", results / f"ward.shard-1-of-3.duckdb{suffix}")
    foreign = merge()
    assert foreign.returncode == 2 and "not 'ward'" in foreign.stderr
    for suffix in ("", ".key"):
        shutil.copy(aside / f"ward.shard-1-of-3.duckdb{suffix}", results / f"ward.shard-1-of-3.duckdb{suffix}")
    other_kek = tmp_path / "other.kek"
    assert run_cli("keys", "init", "--out", str(other_kek)).returncode == 0
    wrong_key = merge(kek=other_kek)
    assert wrong_key.returncode == 2 and "Traceback" not in wrong_key.stderr
    (results / "ward.duckdb").write_bytes(b"")
    exists = merge()
    assert exists.returncode == 2 and "already exists" in exists.stderr
    (results / "ward.duckdb").unlink()
    assert not list(results.glob(".ward*")) and not (results / "ward.duckdb").exists()
    assert merge().returncode == 0


@pytest.mark.parametrize("text", ["1/1/1", "3/3", "-1/2", "x", "2/"])
def test_a_malformed_shard_is_a_clear_error(tmp_path: Path, kek_file: Path, text: str) -> None:
    result = run_cli("run", ENTRIES[0], "--shard", text, env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert result.returncode == 2 and "--shard" in result.stderr and "Traceback" not in result.stderr
