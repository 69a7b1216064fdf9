"""End to end through a real llama.cpp server (llama-cpp-python, the engine Ollama wraps) serving the tiny model
as GGUF: a multiple-choice run, a jury using the engine's structured output, kill -9 and resume, and doctor.

`make test` builds the server's wheel (once), its environment and the GGUF first. The model's weights are
random, so answers are nonsense, but every byte goes through the real engine and the encrypted store.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import llama_server
import pytest
from conftest import CLI, run_cli, write_config
from support.holding_proxy import HoldingProxy
from support.jury import jury_config, write_generation_card
from support.kill import kill_while_held

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.llamacpp
ENTRY = "pubmed_qa:model=local/tiny-llama,model_deployment=llama-local"
RUBRIC = """rubric: 1
name: ward_summary
description: A ward case summary judged against the clinician's.
prompt: |-
  Case: {input}
  Summary written: {response}
  Clinician's summary: {reference}
criteria:
  - {name: accuracy, asks: Is it correct?, low: wrong, high: correct}
  - {name: clarity, asks: Is it clear?, low: confusing, high: clear}
max_tokens: 256
explanation_characters: 30
"""


def _config(tmp_path: Path, data_root: Path, server: llama_server.LlamaServer | HoldingProxy, **fields: Any) -> Path:
    deployment = {"base_url": server.base_url, "model": "tiny-llama", "engine": "llama.cpp", "max_concurrency": 4,
                  "timeout_s": 60, **fields}
    return write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"llama-local": deployment})


def _settled(server: llama_server.LlamaServer) -> int:
    """The server's request count once it has stopped moving (requests in flight finished)."""
    last, since = server.request_count(), time.monotonic()
    while time.monotonic() - since < 1.5:
        time.sleep(0.25)
        now = server.request_count()
        if now != last:
            last, since = now, time.monotonic()
    return last


def _instances(config: Path, env: dict[str, str], suite: str, run_id: str) -> dict[str, tuple[Any, ...]]:
    shown = run_cli("-c", str(config), "show", run_id, "--suite", suite, "-n", "1000", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    rows = json.loads(shown.stdout)["instances"]
    return {r["instance_id"]: (r["ok"], r["text"], json.dumps(r["scores"], sort_keys=True)) for r in rows}


def test_a_multiple_choice_run_through_llamacpp_scores_every_answer_and_never_asks_for_tokenize(
        llamacpp: llama_server.LlamaServer, tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek) -> None:
    config = _config(tmp_path, data_root, llamacpp)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    before = _settled(llamacpp)

    result = run_cli("-c", str(config), "run", ENTRY, "--suite", "mc", "-m", "12", "--json", env=env)

    assert result.returncode == 0, result.stderr
    [run] = json.loads(result.stdout)["runs"]
    assert run["run"]["n_ok"] == 12 and run["run"]["n_failed"] == 0
    assert run["run"]["prompt_tokens"] > 12 * 50, "token usage comes from the server"
    main = next(a for a in run["aggregates"] if a["metric"] == run["run"]["main_metric"])
    assert main["n_scored"] == 12 and 0.0 <= main["mean"] <= 1.0
    assert _settled(llamacpp) - before == 12
    # llama.cpp (like Ollama) has no vLLM /tokenize: the engine setting means it is never asked.
    assert "/tokenize" not in llamacpp.log_text()
    handle = open_store(tmp_path / "results" / "mc.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute("SELECT logprobs_json, reasoning FROM completions").fetchall()
    finally:
        handle.close()
    # llama.cpp returns logprobs for chat completions (the multiple-choice prompts ask for them).
    assert all(json.loads(lp)[0]["top_logprobs"] for lp, _ in rows)
    assert {r for _, r in rows} == {None}


def test_a_generation_card_judged_through_llamacpp_structured_output(
        llamacpp: llama_server.LlamaServer, tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek) -> None:
    cards = tmp_path / "cards"
    write_generation_card(cards, 8, rubric="../ward_summary.yaml")
    (tmp_path / "ward_summary.yaml").write_text(RUBRIC)
    fields = {"model": "tiny-llama", "engine": "llama.cpp", "timeout_s": 120}
    config = jury_config(tmp_path, data_root, llamacpp.base_url, {"judge-one": llamacpp.base_url}, cards, fields,
                         generator_fields=fields)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    before = _settled(llamacpp)

    done = run_cli("-c", str(config), "run", "ward_notes:model=local/tiny-llama,model_deployment=gen", "--suite",
                   "ward", "-m", "4", "--json", env=env, timeout=600)

    assert done.returncode == 0, done.stderr
    assert _settled(llamacpp) - before == 4 + 4  # each answer once, each rating once: no retry of a bad format
    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute("SELECT ok, error_type, ratings_json FROM ratings").fetchall()
    finally:
        handle.close()
    assert len(rows) == 4 and [r[1] for r in rows if not r[0]] == []
    for _, _, ratings_json in rows:  # the engine's grammar kept even the random model to the schema
        ratings = json.loads(ratings_json)
        assert set(ratings) == {"accuracy", "clarity"}
        assert all(r["score"] in range(1, 6) and len(r["explanation"]) <= 30 for r in ratings.values())
    [run] = json.loads(done.stdout)["runs"]
    jury = next(a for a in run["aggregates"] if a["metric"] == "jury_score")
    assert jury["n_scored"] == 4 and jury["n_failed"] == 0


def test_sigkill_midway_then_rerun_on_llamacpp_requests_nothing_twice(
        llamacpp: llama_server.LlamaServer, tmp_path: Path, data_root: Path, kek_file: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    with HoldingProxy(llamacpp.base_url, hold_after=1 << 62) as proxy:
        config = _config(tmp_path, data_root, proxy)
        common = ["-c", str(config), "run", ENTRY, "--max-eval-instances", "30", "--concurrency", "1"]
        whole = run_cli(*common, "--suite", "whole", "--json", env=env)
        assert whole.returncode == 0, whole.stderr
        run_id = json.loads(whole.stdout)["runs"][0]["run"]["run_id"]

        # The proxy holds the 11th request, so the kill lands midway however fast the server answers.
        proxy.hold_after_more(10)
        proc = subprocess.Popen([str(CLI), *common, "--suite", "killed", "-q"], env={**os.environ, **env})
        kill_while_held(proc, proxy, tmp_path / "results" / "killed.duckdb.wal")
        proxy.release()
        listing = json.loads(run_cli("-c", str(config), "runs", "list", "--suite", "killed", "--json", env=env).stdout)
        killed = listing[0]["runs"][0]
        stored = killed["n_ok"]
        assert 0 < stored < 30, f"expected a run killed midway, {stored} of 30 were stored"

        before = _settled(llamacpp)
        rerun = run_cli(*common, "--suite", "killed", "--json", env=env)
        assert rerun.returncode == 0, rerun.stderr
        assert _settled(llamacpp) - before == 30 - stored
        assert json.loads(rerun.stdout)["runs"][0]["reused"] == stored
        assert _instances(config, env, "killed", killed["run_id"]) == _instances(config, env, "whole", run_id)


def test_doctor_checks_the_llamacpp_deployment(
        llamacpp: llama_server.LlamaServer, tmp_path: Path, data_root: Path, kek_file: Path) -> None:
    config = _config(tmp_path, data_root, llamacpp)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}

    checked = run_cli("-c", str(config), "doctor", "--json", env=env)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    [deployment] = [c for c in json.loads(checked.stdout) if c["name"] == "deployment: llama-local"]
    assert deployment["ok"]
    assert "llama.cpp" in deployment["detail"] and "tiny-llama" in deployment["detail"]
    assert "NOT offered" not in deployment["detail"] and "no /tokenize" in deployment["detail"]
    wrong = _config(tmp_path, data_root, llamacpp, model="no-such-model")
    [flagged] = [c for c in json.loads(run_cli("-c", str(wrong), "doctor", "--json", env=env).stdout)
                 if c["name"] == "deployment: llama-local"]
    assert "'no-such-model' is NOT offered" in flagged["detail"]
