"""HealthBench judged as a user runs it: scripted judges on the fault-injecting server grade every rubric item of
every answer; each (instance, judge) is one row; scores follow OpenAI's rule, recomputed here from the rows."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, FakeServer, run_cli
from support.jury import jury_config

from medhelm_local.scenarios import import_dataset
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

FIXTURE = REPO / "tests" / "data" / "datasets" / "health_bench"
ENTRY = "health_bench:model=local/m,model_deployment=gen"
ITEMS = {str(n): [(i["points"], i["tags"]) for i in json.loads(line)["rubrics"]]
         for n, line in enumerate((FIXTURE / "2025-05-07-06-14-12_oss_eval.jsonl").read_text().splitlines())}


def _rows(tmp_path: Path, kek: Kek, sql: str) -> list[tuple[Any, ...]]:
    handle = open_store(tmp_path / "results" / "hb.duckdb", kek, read_only=True)
    try:
        return handle.con.execute(sql).fetchall()
    finally:
        handle.close()


def _openai(points: list[float], met: list[bool]) -> float:
    """OpenAI's rule, restated: points met over positive points."""
    return sum(p for p, hit in zip(points, met, strict=True) if hit) / sum(p for p in points if p > 0)


def test_every_rubric_item_is_graded_and_scored_as_openai_scores_it(
        tmp_path: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    data = tmp_path / "data"
    import_dataset(FIXTURE, data)
    generator = fake_server()
    judges = {"good": fake_server(judge="good"), "fenced": fake_server(judge="fenced", seed=2),
              "malformed": fake_server(judge="malformed")}
    (tmp_path / "cards").mkdir()
    config = jury_config(tmp_path, data, generator.base_url, {k: s.base_url for k, s in judges.items()},
                         tmp_path / "cards")

    done = run_cli("-c", str(config), "run", ENTRY, "--suite", "hb", "--json",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})

    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    items = sum(len(v) for v in ITEMS.values())  # 4 + 3 + 3
    assert {name: s.stats()["requests"] for name, s in judges.items()} == {name: items for name in judges}
    rows = _rows(tmp_path, kek, "SELECT instance_id, judge, ok, error_type, ratings_json, mean FROM ratings "
                                "ORDER BY instance_id, judge")
    assert len(rows) == 3 * 3  # one row per (instance, judge), every item of it inside
    means: dict[str, list[float]] = {}
    for instance_id, judge, ok, error, ratings_json, mean in rows:
        if judge == "malformed":
            assert (ok, error, mean) == (False, "unparseable", None)
            continue
        verdicts = json.loads(ratings_json)
        assert list(verdicts) == [f"item_{i:03d}" for i in range(1, len(ITEMS[instance_id]) + 1)]
        met = [bool(verdicts[k]["score"]) for k in sorted(verdicts)]
        assert ok and mean == pytest.approx(_openai([p for p, _ in ITEMS[instance_id]], met))
        means.setdefault(instance_id, []).append(mean)
    scores = dict(_rows(tmp_path, kek, "SELECT instance_id, value FROM scores WHERE metric = 'health_bench_score'"))
    assert scores == {i: pytest.approx(sum(m) / 2) for i, m in means.items()}  # the two judges that graded all
    main = next(a for a in run["aggregates"] if a["metric"] == "health_bench_score")
    assert (main["n"], main["n_scored"], main["n_failed"]) == (3, 3, 0)
    assert main["mean"] == pytest.approx(min(1.0, max(0.0, sum(scores.values()) / 3)))
    detail = main["detail"]
    assert set(detail["by_theme"]) == {"emergency_referrals", "context_seeking", "health_data_tasks"}
    assert detail["by_theme"]["context_seeking"]["n"] == 1
    assert {"accuracy", "completeness", "communication_quality", "context_awareness"} == set(detail["by_axis"])
    assert detail["judges"]["malformed"] == {"rated": 0, "failed": 3, "failures": {"unparseable": 3}}
    assert detail["judges"]["good"] == {"rated": 3, "failed": 0, "failures": {}}

    # A judge pass afterwards owes nothing: a judge's unreadable answers are its answer, kept.
    again = run_cli("-c", str(config), "judge", "hb", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert again.returncode == 0, again.stderr
    assert {name: s.stats()["requests"] for name, s in judges.items()} == {name: items for name in judges}


def test_an_instance_no_judge_graded_completely_is_unscored_and_counted(
        tmp_path: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    data = tmp_path / "data"
    import_dataset(FIXTURE, data)
    generator = fake_server()
    judges = {"partial": fake_server(judge="partial"), "down": fake_server(fault_rate=1.0, faults="500")}
    (tmp_path / "cards").mkdir()
    config = jury_config(tmp_path, data, generator.base_url, {k: s.base_url for k, s in judges.items()},
                         tmp_path / "cards")

    done = run_cli("-c", str(config), "run", ENTRY, "--suite", "hb", "--json",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})

    assert done.returncode == 0, done.stderr
    main = next(a for a in json.loads(done.stdout)["runs"][0]["aggregates"] if a["metric"] == "health_bench_score")
    assert (main["n"], main["n_scored"], main["n_failed"], main["mean"]) == (3, 0, 3, None)
    rows = _rows(tmp_path, kek, "SELECT judge, ok, error_type, error_message FROM ratings ORDER BY judge")
    assert {(r[0], r[1], r[2]) for r in rows} == {("partial", False, "missing_criterion"),
                                                  ("down", False, "http_500")}
    assert all("item 1: the reply has no criteria_met" in r[3] for r in rows if r[0] == "partial")
    assert all(r[3].startswith(("4 of 4 requests failed", "3 of 3 requests failed")) for r in rows if r[0] == "down")
    errors = [e for (e,) in _rows(tmp_path, kek, "SELECT error FROM scores WHERE metric = 'health_bench_score'")]
    assert len(errors) == 3 and all(e.startswith("no judge rated it") for e in errors)
