"""MedHELM's configurable benchmark with a jury, end to end through the real vLLM server (CPU build): HELM's
documented jury example, run from HELM's documented conf, its answers judged by the judge its config names (mapped
to a local deployment), on MedHELM's 0-5 scale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import vllm_server
from conftest import CLI, REPO, write_config

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.vllm
EXAMPLES = REPO / "tests" / "data" / "medhelm_configurable"
CRITERIA = {"faithfulness", "completeness", "safety", "clarity", "conciseness"}


def test_a_configurable_benchmark_is_judged_by_the_jury_its_config_names(
        vllm: vllm_server.VllmServer, tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek) -> None:
    examples = tmp_path / "examples"
    shutil.copytree(EXAMPLES, examples)
    # The tiny model writes nonsense up to max_tokens; HELM's 1024 is kept elsewhere (unit tests), 64 keeps this short.
    config_file = examples / "llm_jury_score_demo.yaml"
    config_file.write_text(config_file.read_text().replace("max_tokens: 1024", "max_tokens: 64"))
    deployments = {"gen": {"base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 4, "timeout_s": 240,
                           "max_retries": 0},
                   "judge-qwen": {"base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 4,
                                  "timeout_s": 240, "max_retries": 0}}
    # No jury is configured: the config's own judge, mapped to a local judge deployment, is the jury.
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", deployments,
                          judges=("judge-qwen",),
                          extra='[judge_map]\n"huggingface/qwen2.5-7b-instruct" = "judge-qwen"\n')
    env = {**os.environ, "MEDHELM_KEK_FILE": str(kek_file), "COLUMNS": "200"}
    before = vllm.http_request_count()

    # HELM's own conf, from the folder holding the files (HELM reads config_path from the working directory).
    done = subprocess.run([str(CLI), "-c", str(config), "run", "--conf", "llm_jury_score_demo.conf", "--model",
                           "local/tiny-llama", "--model-deployment", "gen", "--suite", "demo", "--json"],
                          capture_output=True, text=True, env=env, cwd=examples, timeout=900)

    assert done.returncode == 0, done.stderr
    assert vllm.http_request_count() - before == 2 + 2  # each answer once, each judged once by the one judge
    [run] = json.loads(done.stdout)["runs"]
    assert run["run"]["run_id"].startswith("llm_jury_score_demo-")
    handle = open_store(tmp_path / "results" / "demo.duckdb", kek, read_only=True)
    try:
        scenario, args = handle.con.execute("SELECT scenario, scenario_args FROM runs").fetchone()
        rows = handle.con.execute("SELECT instance_id, jury, judge, rubric, ok, ratings_json, mean FROM ratings "
                                  "ORDER BY instance_id").fetchall()
        scores = dict(handle.con.execute("SELECT instance_id, value FROM scores WHERE metric = 'jury_score_0_5'")
                      .fetchall())
        prompts = [p for (p,) in handle.con.execute("SELECT prompt FROM requests ORDER BY instance_id").fetchall()]
    finally:
        handle.close()
    assert scenario == "llm_jury_score_demo" and json.loads(args) == {"config_path": "llm_jury_score_demo.yaml"}
    template = (examples / "llm_jury_score_demo_prompt.txt").read_text()
    assert prompts[0] == template.format(note="67-year-old with cough and fever; chest X-ray shows pneumonia. Current "
                                         "meds: metformin 500 mg BID, atorvastatin 20 mg QHS. New Rx: amoxicillin-"
                                         "clavulanate 875/125 mg PO BID x7 days. Return if worse. Follow-up PCP in 3 "
                                         "days.", constraints="<=120 words; bullet points allowed; use lay terms; "
                                         "include diagnosis, meds, warning signs, and follow-up.") + "\n"
    assert len(rows) == 2 and {r[1:4] for r in rows} == {("medhelm:llm_jury_score_demo", "judge-qwen",
                                                          "llm_jury_score_demo_judge_prompt")}
    # Structured output: even the random model's replies are ratings on MedHELM's 0-5 scale, every criterion.
    assert all(r[4] for r in rows)
    for instance_id, _, _, _, _, ratings_json, mean in rows:
        ratings = json.loads(ratings_json)
        assert set(ratings) == CRITERIA
        values = [r["score"] for r in ratings.values()]
        assert all(isinstance(v, int) and 0 <= v <= 5 for v in values)
        assert mean == pytest.approx(sum(values) / 5) and scores[instance_id] == pytest.approx(mean)
    jury = next(a for a in run["aggregates"] if a["metric"] == "jury_score_0_5")
    assert (jury["n"], jury["n_scored"], jury["n_failed"]) == (2, 2, 0)
    assert jury["detail"]["scale"] == [0.0, 5.0]
    assert jury["detail"]["judges"] == {"judge-qwen": {"rated": 2, "failed": 0, "failures": {}}}
    assert jury["detail"]["normalised"]["mean"] == pytest.approx(jury["mean"] / 5)
