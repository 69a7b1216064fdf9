"""Judging as a user runs it: scripted judges on the fault-injecting server; every (instance, judge) is a row."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, run_cli
from support.jury import jury_config, write_generation_card

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

N = 12
ENTRY = "ward_notes:model=local/m,model_deployment=gen"


def _rows(tmp_path: Path, kek: Kek, sql: str) -> list[tuple[Any, ...]]:
    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        return handle.con.execute(sql).fetchall()
    finally:
        handle.close()


def _run(config: Path, kek_file: Path, *more: str) -> dict[str, Any]:
    done = run_cli("-c", str(config), "run", ENTRY, "--suite", "ward", "--json", *more,
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _main(run: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(a for a in run["aggregates"] if a["metric"] == "jury_score")
    return found


def test_every_scripted_judge_reply_lands_as_a_rating_or_a_failure_with_its_reason(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server()
    judges = {"good": fake_server(judge="good"), "fenced": fake_server(judge="fenced"),
              "malformed": fake_server(judge="malformed"), "partial": fake_server(judge="partial"),
              "range": fake_server(judge="out_of_range"), "failing": fake_server(fault_rate=1.0, faults="500"),
              "slow": fake_server(delay=8.0)}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards,
                         {"timeout_s": 1.0})

    run = _run(config, kek_file)["runs"][0]

    rows = _rows(tmp_path, kek, "SELECT judge, ok, error_type, mean, ratings_json FROM ratings")
    assert len(rows) == N * len(judges)  # one row per (instance, judge), whatever happened
    kinds = {judge: {(ok, error) for j, ok, error, _, _ in rows if j == judge} for judge in judges}
    assert kinds == {"good": {(True, None)}, "fenced": {(True, None)}, "malformed": {(False, "unparseable")},
                     "partial": {(False, "missing_criterion")}, "range": {(False, "out_of_range")},
                     "failing": {(False, "http_500")}, "slow": {(False, "timeout")}}
    for _, ok, _, mean, ratings_json in rows:
        if ok:
            scores = [r["score"] for r in json.loads(ratings_json).values()]
            assert all(isinstance(s, int) and 1 <= s <= 5 for s in scores)
            assert mean == pytest.approx(sum(scores) / 3)
        else:
            assert mean is None
    # The jury score is the mean over the two judges that answered; the aggregate agrees with the rows.
    scores = dict(_rows(tmp_path, kek, "SELECT instance_id, value FROM scores WHERE metric = 'jury_score'"))
    by_instance: dict[str, list[float]] = {}
    for instance_id, value in _rows(tmp_path, kek, "SELECT instance_id, mean FROM ratings WHERE ok"):
        by_instance.setdefault(instance_id, []).append(value)
    assert scores == {i: pytest.approx(sum(v) / len(v)) for i, v in by_instance.items()}
    main = _main(run)
    assert main["n_scored"] == N and main["mean"] == pytest.approx(sum(scores.values()) / N)
    per_judge = main["detail"]["judges"]
    assert per_judge["good"] == {"rated": N, "failed": 0, "failures": {}}
    assert per_judge["slow"] == {"rated": 0, "failed": N, "failures": {"timeout": N}}
    assert main["detail"]["normalised"]["mean"] == pytest.approx((main["mean"] - 1) / 4)
    assert run["judging"]["malformed"] == {"rated": 0, "failed": N}


def test_an_instance_no_judge_could_rate_is_unscored_never_one(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server()
    judges = {"malformed": fake_server(judge="malformed"), "failing": fake_server(fault_rate=1.0, faults="500")}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards)

    main = _main(_run(config, kek_file)["runs"][0])

    assert main["mean"] is None and main["n_scored"] == 0 and main["n_failed"] == N
    rows = _rows(tmp_path, kek, "SELECT value, error FROM scores WHERE metric = 'jury_score'")
    assert len(rows) == N
    assert all(value is None and error == "no judge rated it: failing http_500, malformed unparseable"
               for value, error in rows)
    # ROUGE-L, the second metric, is unaffected.
    assert _rows(tmp_path, kek, "SELECT count(*) FROM scores WHERE metric = 'rouge_l' AND value IS NOT NULL") == [(N,)]
