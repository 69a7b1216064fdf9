"""HealthBench end to end through the real vLLM server (CPU build): conversations sent as chat turns, every rubric
item graded by the judge with structured output (a boolean verdict), scored as OpenAI scores it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import vllm_server
from conftest import REPO, run_cli, write_config

from medhelm_local.scenarios import import_dataset
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.vllm
FIXTURE = REPO / "tests" / "data" / "datasets" / "health_bench"
POINTS = {str(n): [i["points"] for i in json.loads(line)["rubrics"]]
          for n, line in enumerate((FIXTURE / "2025-05-07-06-14-12_oss_eval.jsonl").read_text().splitlines())}


def test_health_bench_items_are_graded_by_a_real_judge_and_scored_as_openai_does(
        vllm: vllm_server.VllmServer, tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    data = tmp_path / "data"
    import_dataset(FIXTURE, data)
    fields = {"base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 4, "timeout_s": 240,
              "max_retries": 0}
    config = write_config(tmp_path / "config.toml", data, tmp_path / "results", {"gen": fields, "judge": fields},
                          judges=("judge",), extra='jury = "local"\n\n[juries.local]\njudges = ["judge"]\n')
    before = vllm.http_request_count()

    done = run_cli("-c", str(config), "run", "health_bench:model=local/tiny-llama,model_deployment=gen,"
                   "num_output_tokens=48", "--suite", "hb", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)},
                   timeout=900)

    assert done.returncode == 0, done.stderr
    items = sum(len(p) for p in POINTS.values())
    assert vllm.http_request_count() - before == 3 + items  # each answer once, each rubric item once
    handle = open_store(tmp_path / "results" / "hb.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute("SELECT instance_id, ok, ratings_json, mean FROM ratings ORDER BY instance_id"
                                  ).fetchall()
        scores = dict(handle.con.execute("SELECT instance_id, value FROM scores WHERE metric = 'health_bench_score'")
                      .fetchall())
        params = [json.loads(p) for (p,) in handle.con.execute("SELECT params_json FROM requests ORDER BY instance_id")
                  .fetchall()]
    finally:
        handle.close()
    assert [len(p.get("history", [])) for p in params] == [0, 2, 0]  # the second conversation's earlier turns
    assert len(rows) == 3 and all(ok for _, ok, _, _ in rows)  # structured output: every verdict a boolean
    for instance_id, _, ratings_json, mean in rows:
        verdicts = json.loads(ratings_json)
        met = [verdicts[k]["score"] == 1 for k in sorted(verdicts)]
        points = POINTS[instance_id]
        expected = sum(p for p, hit in zip(points, met, strict=True) if hit) / sum(p for p in points if p > 0)
        assert len(met) == len(points) and mean == pytest.approx(expected)
        assert scores[instance_id] == pytest.approx(mean)
    [run] = json.loads(done.stdout)["runs"]
    main = next(a for a in run["aggregates"] if a["metric"] == "health_bench_score")
    assert (main["n"], main["n_scored"], main["n_failed"]) == (3, 3, 0)
    assert main["mean"] == pytest.approx(min(1.0, max(0.0, sum(scores.values()) / 3)))
    assert set(main["detail"]["by_theme"]) == {"emergency_referrals", "context_seeking", "health_data_tasks"}
