"""End to end through a real vLLM server (CPU build) serving the project's tiny model.

`make test` builds the server's environment and the model first. The model's weights are
random, so answers are nonsense, but every byte goes through the real server and store.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import vllm_server
from conftest import CLI, run_cli, write_config
from support.holding_proxy import HoldingProxy
from support.kill import kill_while_held

pytestmark = pytest.mark.vllm


def _config(tmp_path: Path, data_root: Path, server: vllm_server.VllmServer | HoldingProxy, api: str = "chat") -> Path:
    deployment = {"base_url": server.base_url, "model": "tiny-llama", "api": api, "max_concurrency": 4,
                  "timeout_s": 60}
    return write_config(tmp_path / f"config-{api}.toml", data_root, tmp_path / "results", {"vllm-local": deployment})


def _instances(config: Path, env: dict[str, str], suite: str, run_id: str) -> dict[str, tuple[Any, ...]]:
    shown = run_cli("-c", str(config), "show", run_id, "--suite", suite, "-n", "1000", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)["instances"]
    return {r["instance_id"]: (r["ok"], r["text"], json.dumps(r["scores"], sort_keys=True)) for r in rows}


def _settled_count(server: vllm_server.VllmServer) -> int:
    """The server's inference request counter once it has stopped moving (in-flight requests finished)."""
    last, stable_since = server.http_request_count(), time.monotonic()
    while time.monotonic() - stable_since < 1.5:
        time.sleep(0.25)
        now = server.http_request_count()
        if now != last:
            last, stable_since = now, time.monotonic()
    return last


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_benchmarks_run_through_vllm_into_the_encrypted_store(
        vllm: vllm_server.VllmServer, tmp_path: Path, data_root: Path, kek_file: Path, api: str) -> None:
    config = _config(tmp_path, data_root, vllm, api)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    before = vllm.http_request_count()
    entries = [f"{b}:model=local/tiny-llama,model_deployment=vllm-local" for b in ("pubmed_qa", "medcalc_bench")]
    result = run_cli("-c", str(config), "run", *entries, "--suite", api, "-m", "10", "--json", env=env)
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    assert vllm.http_request_count() - before == 20
    for run in runs:
        assert run["run"]["n_ok"] == 10 and run["run"]["n_failed"] == 0
        assert run["run"]["prompt_tokens"] > 10 * 50, "token usage comes from the server"
        main = next(a for a in run["aggregates"] if a["metric"] == run["run"]["main_metric"])
        assert main["n_scored"] == 10 and 0.0 <= main["mean"] <= 1.0
    store = tmp_path / "results" / f"{api}.duckdb"
    assert store.exists() and b"Question:" not in store.read_bytes()


def test_sigkill_midway_then_rerun_requests_nothing_twice_and_matches_uninterrupted(
        vllm: vllm_server.VllmServer, tmp_path: Path, data_root: Path, kek_file: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    entries = [f"{name}:model=local/tiny-llama,model_deployment=vllm-local" for name in ("pubmed_qa", "med_qa")]
    with HoldingProxy(vllm.base_url, hold_after=1 << 62) as proxy:
        config = _config(tmp_path, data_root, proxy)
        # One request at a time: greedy float32 output then cannot depend on how requests were batched.
        common = ["-c", str(config), "run", *entries, "--concurrency", "1"]

        whole = run_cli(*common, "--suite", "whole", "--json", env=env)
        assert whole.returncode == 0, whole.stderr
        whole_ids = {r["run"]["scenario"]: r["run"]["run_id"] for r in json.loads(whole.stdout)["runs"]}
        total = sum(len(_instances(config, env, "whole", run_id)) for run_id in whole_ids.values())
        assert total > 30, f"the kill needs a suite longer than the 30 answers let through, not {total}"

        # The proxy holds the 31st request, so the kill lands midway however fast the server answers.
        proxy.hold_after_more(30)
        proc = subprocess.Popen([str(CLI), *common, "--suite", "killed", "-q"], env={**os.environ, **env})
        kill_while_held(proc, proxy, tmp_path / "results" / "killed.duckdb.wal")
        proxy.release()

        listing = json.loads(run_cli("-c", str(config), "runs", "list", "--suite", "killed", "--json", env=env).stdout)
        killed = {r["scenario"]: r for r in listing[0]["runs"]}
        stored = sum(r["n_ok"] for r in killed.values())  # a failed answer is asked again
        assert 0 < stored < total, f"expected a suite killed midway, {stored} of {total} were stored"

        before_rerun = _settled_count(vllm)
        rerun = run_cli(*common, "--suite", "killed", "--json", env=env)
        assert rerun.returncode == 0, rerun.stderr
        sent = _settled_count(vllm) - before_rerun
        assert sent == total - stored, f"{stored} instances were already stored, yet the rerun sent {sent} requests"
        assert sum(r["reused"] for r in json.loads(rerun.stdout)["runs"]) == stored

        for scenario, run_id in whole_ids.items():
            resumed = _instances(config, env, "killed", killed[scenario]["run_id"])
            assert resumed == _instances(config, env, "whole", run_id)
