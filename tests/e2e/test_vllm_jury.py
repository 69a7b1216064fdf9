"""The jury end to end through the real vLLM server (CPU build): the tiny model answers a generation card and
two judges (the same server under two deployment names) rate the answers with structured output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import vllm_server
from conftest import run_cli
from support.jury import jury_config, write_generation_card

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.vllm
N = 6
# Short explanations keep the random model's ratings (and the test) short; the scale and criteria are the
# shipped ones.
RUBRIC = """rubric: 1
name: ward_summary
description: A ward case summary judged against the clinician's.
prompt: |-
  Case: {input}
  Summary written: {response}
  Clinician's summary: {reference}
criteria:
  - {name: accuracy, asks: Is it correct?, low: wrong, high: correct}
  - {name: completeness, asks: Is anything missing?, low: most is missing, high: nothing is missing}
  - {name: clarity, asks: Is it clear?, low: confusing, high: clear}
max_tokens: 512
explanation_characters: 40
"""


def test_a_generation_card_judged_by_two_judges_with_structured_output(
        vllm: vllm_server.VllmServer, tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek) -> None:
    cards = tmp_path / "cards"
    write_generation_card(cards, 20, rubric="../ward_summary.yaml")
    (tmp_path / "ward_summary.yaml").write_text(RUBRIC)
    config = jury_config(tmp_path, data_root, vllm.base_url, {"judge-one": vllm.base_url, "judge-two": vllm.base_url},
                         cards, {"model": "tiny-llama", "timeout_s": 240},
                         generator_fields={"model": "tiny-llama", "timeout_s": 240})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    before = vllm.http_request_count()

    done = run_cli("-c", str(config), "run", "ward_notes:model=local/tiny-llama,model_deployment=gen", "--suite",
                   "ward", "-m", str(N), "--json", env=env, timeout=900)

    assert done.returncode == 0, done.stderr
    assert "is the model being evaluated (tiny-llama)" in " ".join(done.stderr.split())
    assert vllm.http_request_count() - before == N + 2 * N  # each answer once, each rating once
    [run] = json.loads(done.stdout)["runs"]
    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute("SELECT instance_id, judge, ok, error_type, ratings_json, mean, completion_tokens "
                                  "FROM ratings ORDER BY instance_id, judge").fetchall()
        scores = dict(handle.con.execute("SELECT instance_id, value FROM scores WHERE metric = 'jury_score'")
                      .fetchall())
    finally:
        handle.close()
    assert {(r[0], r[1]) for r in rows} == {(i, j) for i in scores for j in ("judge-one", "judge-two")}
    assert len(rows) == 2 * N
    # Structured output: even the random model's replies are schema-valid ratings.
    assert [r[3] for r in rows if not r[2]] == []
    for _, _, _, _, ratings_json, mean, tokens in rows:
        ratings = json.loads(ratings_json)
        assert set(ratings) == {"accuracy", "completeness", "clarity"}
        values = [r["score"] for r in ratings.values()]
        assert all(isinstance(v, int) and 1 <= v <= 5 for v in values)
        # The grammar counts a token that ends inside a UTF-8 sequence as one character; decoded, its bytes become
        # replacement characters (U+FFFD), one each: those are not the judge writing past its limit.
        assert all(len(r["explanation"].replace("\ufffd", "")) <= 40 for r in ratings.values())
        assert mean == pytest.approx(sum(values) / 3) and tokens > 0
    means: dict[str, list[float]] = {}
    for instance_id, _, _, _, _, mean, _ in rows:
        means.setdefault(instance_id, []).append(mean)
    assert scores == {i: pytest.approx(sum(m) / 2) for i, m in means.items()}
    jury = next(a for a in run["aggregates"] if a["metric"] == "jury_score")
    assert jury["n"] == N and jury["n_scored"] == N and jury["n_failed"] == 0
    assert jury["mean"] == pytest.approx(sum(scores.values()) / N)
    assert jury["detail"]["judges"] == {"judge-one": {"rated": N, "failed": 0, "failures": {}},
                                        "judge-two": {"rated": N, "failed": 0, "failures": {}}}
    figures = {a["metric"] for a in run["aggregates"]}
    assert {"rouge_l", "latency_p50", "latency_p95", "tokens_in", "tokens_out", "output_tokens_per_s"} <= figures
