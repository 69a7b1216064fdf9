"""Judging resumes: after `kill -9`, a rerun asks each judge only for the ratings not yet stored; a suite run
without a jury is judged later by `medhelm-local judge`."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from conftest import CLI, FakeServer, run_cli
from support.jury import jury_config, write_generation_card
from support.kill import kill_after_commits

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

N = 40
ENTRY = "ward_notes:model=local/m,model_deployment=gen"


def _stored(tmp_path: Path, kek: Kek) -> dict[str, int]:
    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        return dict(handle.con.execute("SELECT judge, count(*) FROM ratings GROUP BY judge").fetchall())
    finally:
        handle.close()


def test_a_suite_without_a_jury_is_pending_then_judged_and_a_killed_pass_resumes_without_asking_twice(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server()
    # Slow enough judges that the pass is still going once the writer (committing once a second) has committed.
    judges = {"judge-a": fake_server(delay=0.5), "judge-b": fake_server(delay=0.5, judge="fenced")}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards,
                         jury=False)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}

    ran = run_cli("-c", str(config), "run", ENTRY, "--suite", "ward", env=env)
    assert ran.returncode == 0, ran.stderr
    assert "no jury is configured" in ran.stderr and "medhelm-local judge ward" in ran.stderr
    listed = json.loads(run_cli("-c", str(config), "runs", "list", "--json", env=env).stdout)[0]["runs"][0]
    assert listed["main_metric"] == "jury_score" and listed["main_score"] is None  # pending, never imputed
    shown = json.loads(run_cli("-c", str(config), "show", listed["run_id"], "--json", env=env).stdout)
    jury = next(a for a in shown["aggregates"] if a["metric"] == "jury_score")
    assert (jury["n_scored"], jury["n_failed"], jury["n_pending"]) == (0, 0, N)
    assert sum(s.stats()["requests"] for s in judges.values()) == 0

    judge = [str(CLI), "-c", str(config), "judge", "ward", "--jury", "local", "-q"]
    proc = subprocess.Popen(judge, env={**os.environ, **env})
    kill_after_commits(proc, lambda: judges["judge-a"].stats()["requests"] >= 12,
                       tmp_path / "results" / "ward.duckdb.wal")
    before = _stored(tmp_path, kek)
    assert 0 < before.get("judge-a", 0) < N, before
    asked = {name: s.stats()["requests"] for name, s in judges.items()}

    again = run_cli("-c", str(config), "judge", "ward", "--jury", "local", "--json", env=env)
    assert again.returncode == 0, again.stderr

    for name, server in judges.items():
        sent = server.stats()["requests"] - asked[name]
        assert sent == N - before.get(name, 0), f"{name}: {before.get(name, 0)} stored, yet {sent} were asked again"
    assert _stored(tmp_path, kek) == {"judge-a": N, "judge-b": N}
    [outcome] = json.loads(again.stdout)["runs"]
    jury = next(a for a in outcome["aggregates"] if a["metric"] == "jury_score")
    assert jury["n_scored"] == N and 1.0 <= jury["mean"] <= 5.0
    # A third pass has nothing left to ask.
    third = run_cli("-c", str(config), "judge", "ward", "--jury", "local", env=env)
    assert third.returncode == 0 and "nothing left to ask" in third.stdout
    assert sum(s.stats()["requests"] for s in judges.values()) == sum(asked.values()) + 2 * N - sum(before.values())


def test_a_run_killed_while_judging_as_it_goes_resumes_both_stages_without_asking_twice(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server(delay=0.1)
    judges = {"judge-a": fake_server(delay=0.5), "judge-b": fake_server(delay=0.5)}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    command = [str(CLI), "-c", str(config), "run", ENTRY, "--suite", "ward", "-q"]

    proc = subprocess.Popen(command, env={**os.environ, **env})
    kill_after_commits(proc, lambda: judges["judge-b"].stats()["requests"] >= 8,
                       tmp_path / "results" / "ward.duckdb.wal")
    before = _stored(tmp_path, kek)
    asked = {name: s.stats()["requests"] for name, s in judges.items()}
    generated = generator.stats()["requests"]
    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        answered = handle.con.execute("SELECT count(*) FROM completions WHERE ok").fetchone()[0]  # type: ignore[index]
    finally:
        handle.close()
    assert 0 < sum(before.values()) < 2 * answered

    again = run_cli(*command[1:], env=env)
    assert again.returncode == 0, again.stderr

    assert generator.stats()["requests"] - generated == N - answered
    for name, server in judges.items():
        assert server.stats()["requests"] - asked[name] == N - before.get(name, 0)
    assert _stored(tmp_path, kek) == {"judge-a": N, "judge-b": N}
