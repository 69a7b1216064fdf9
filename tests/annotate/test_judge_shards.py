"""Judging shards as generation does: shard processes of a jury-scored suite, merged, hold the same ratings,
jury scores and aggregates as one unsharded run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import CLI, FakeServer, run_cli
from support.jury import jury_config, write_generation_card

from medhelm_local.metrics.efficiency import TIMED
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

N = 30
ENTRY = "ward_notes:model=local/m,model_deployment=gen"


def _judged(store: Path, kek: Kek) -> dict[str, Any]:
    handle = open_store(store, kek, read_only=True)
    try:
        con = handle.con
        return {
            "ratings": con.execute("SELECT instance_id, judge, jury, ok, error_type, ratings_json, mean FROM ratings "
                                   "ORDER BY ALL").fetchall(),
            "scores": con.execute("SELECT instance_id, metric, value FROM scores ORDER BY ALL").fetchall(),
            # Latency, throughput and agreement intervals aside, what the run's table shows.
            "aggregates": con.execute("SELECT metric, value, n, n_scored, n_failed FROM run_metrics "
                                      "WHERE metric NOT IN (SELECT unnest($timed)) ORDER BY ALL",
                                      {"timed": list(TIMED)}).fetchall(),
        }
    finally:
        handle.close()


def test_shards_judged_as_they_run_merge_into_the_ratings_of_one_run(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server()
    judges = {"judge-a": fake_server(), "judge-b": fake_server(judge="fenced")}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    configs = {}
    for name in ("whole", "split"):
        (tmp_path / name).mkdir()
        # Generous timeouts: four processes share the fake servers here, and a request timed out on a loaded
        # machine is a failed rating, which is not what this test is about.
        configs[name] = jury_config(tmp_path / name, data_root, generator.base_url,
                                    {k: s.base_url for k, s in judges.items()}, cards,
                                    judge_fields={"timeout_s": 60}, generator_fields={"timeout_s": 60})
    assert run_cli("-c", str(configs["whole"]), "run", ENTRY, "--suite", "ward", env=env).returncode == 0
    asked = sum(s.stats()["requests"] for s in judges.values())

    procs = [subprocess.Popen([str(CLI), "-c", str(configs["split"]), "run", ENTRY, "--suite", "ward", "--shard",
                               f"{i}/3", "--quiet"], env={**os.environ, **env}) for i in range(3)]
    assert [p.wait(timeout=300) for p in procs] == [0, 0, 0]
    merged = run_cli("-c", str(configs["split"]), "store", "merge", "--suite", "ward", env=env)

    assert merged.returncode == 0, merged.stderr
    assert sum(s.stats()["requests"] for s in judges.values()) == 2 * asked  # each rating asked once per suite
    whole = _judged(tmp_path / "whole" / "results" / "ward.duckdb", kek)
    split = _judged(tmp_path / "split" / "results" / "ward.duckdb", kek)
    assert len(split["ratings"]) == 2 * N and {r[3] for r in split["ratings"]} == {True}
    assert split == whole
