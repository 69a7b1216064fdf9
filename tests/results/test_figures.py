"""Efficiency and cost of a run, computed from its stored rows when it finishes (and again after judging)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, run_cli
from support.jury import jury_config, write_generation_card

from medhelm_local.metrics.efficiency import busy_seconds, token_cost
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

N = 20


def test_busy_time_is_the_union_of_request_intervals() -> None:
    assert busy_seconds([(0, 2), (1, 3), (5, 6), (5.5, 5.7)]) == pytest.approx(4.0)
    assert busy_seconds([]) == 0.0
    assert token_cost(2_000_000, 500_000, 0.5, 2.0) == pytest.approx(2.0)


def test_busy_time_is_the_figure_adding_intervals_one_by_one_gives_bit_for_bit() -> None:
    # Computed over arrays (a 100,000-instance run no longer holds a Python tuple per request), the figure a
    # store records must not move: stores written before keep their recomputed aggregates equal.
    def one_by_one(intervals: list[tuple[float, float]]) -> float:
        total, reach = 0.0, float("-inf")
        for start, end in sorted(intervals):
            if end > reach:
                total += end - max(start, reach)
                reach = end
        return total

    rng = random.Random(5)
    for _ in range(200):
        starts = [1.79e9 + rng.uniform(0, 300) for _ in range(rng.randint(1, 300))]
        intervals = [(a, a + rng.choice([0.0, rng.expovariate(2.0)])) for a in starts]
        intervals += intervals[:len(intervals) // 4]  # the same interval twice
        assert busy_seconds(intervals) == one_by_one(intervals)


def _aggregates(done: Any) -> dict[str, dict[str, Any]]:
    assert done.returncode == 0, done.stderr
    return {a["metric"]: a for a in json.loads(done.stdout)["runs"][0]["aggregates"]}


def test_a_priced_run_reports_latency_tokens_and_cost_with_judging_cost_apart(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server(delay=0.05)
    judges = {"judge-a": fake_server(delay=0.1), "judge-b": fake_server()}
    cards = tmp_path / "cards"
    write_generation_card(cards, N)
    prices = ("[deployments.gen.price]\ninput_per_million = 0.5\noutput_per_million = 2.0\ncurrency = \"EUR\"\n"
              "[deployments.judge-a.price]\nper_gpu_hour = 3.6\ngpus = 2\n")
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards,
                         extra=prices)

    figures = _aggregates(run_cli("-c", str(config), "run", "ward_notes:model=local/m,model_deployment=gen",
                                  "--suite", "ward", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)}))

    handle = open_store(tmp_path / "results" / "ward.duckdb", kek, read_only=True)
    try:
        tokens_in, tokens_out, latencies = handle.con.execute(
            "SELECT sum(prompt_tokens), sum(completion_tokens), list(latency_s ORDER BY latency_s) FROM completions"
        ).fetchone()  # type: ignore[misc]
        judge_a = handle.con.execute("SELECT epoch(created_at) - latency_s, epoch(created_at) FROM ratings "
                                     "WHERE judge = 'judge-a'").fetchall()
    finally:
        handle.close()
    assert figures["tokens_in"]["mean"] == tokens_in and figures["tokens_out"]["mean"] == tokens_out
    assert 0.05 <= figures["latency_p50"]["mean"] <= figures["latency_p95"]["mean"] <= max(latencies)
    assert figures["output_tokens_per_s"]["mean"] > 0
    assert figures["cost"]["mean"] == pytest.approx(tokens_in / 1e6 * 0.5 + tokens_out / 1e6 * 2.0)
    assert figures["cost"]["detail"]["currency"] == "EUR"
    assert figures["cost_per_1k"]["mean"] == pytest.approx(figures["cost"]["mean"] / N * 1000)
    # Judging: judge-a by GPU time (2 GPUs x 3.6 an hour over the time its requests were in flight);
    # judge-b declares no price, so it is named, not counted as free.
    judging = figures["judging_cost"]
    assert judging["mean"] == pytest.approx(2 * 3.6 * busy_seconds(judge_a) / 3600)
    assert judging["detail"]["unpriced_judges"] == ["judge-b"]
    assert figures["judging_cost_per_1k"]["mean"] == pytest.approx(judging["mean"] / N * 1000)


def test_without_a_price_there_is_no_cost_figure_never_zero(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    generator = fake_server()
    judges = {"judge-a": fake_server()}
    cards = tmp_path / "cards"
    write_generation_card(cards, 5)
    config = jury_config(tmp_path, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()}, cards)

    figures = _aggregates(run_cli("-c", str(config), "run", "ward_notes:model=local/m,model_deployment=gen",
                                  "--suite", "ward", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)}))

    assert not {"cost", "cost_per_1k", "judging_cost", "judging_cost_per_1k"} & set(figures)
    assert {"latency_p50", "latency_p95", "tokens_in", "tokens_out", "output_tokens_per_s"} <= set(figures)
    assert "jury_alpha" not in figures  # one judge: no agreement to measure


def test_a_price_must_be_by_tokens_or_by_gpu_time(tmp_path: Path, data_root: Path) -> None:
    from medhelm_local.errors import ConfigError
    from medhelm_local.settings import load_settings

    config = tmp_path / "c.toml"
    config.write_text('[deployments.gen]\nbase_url = "http://127.0.0.1:1/v1"\n'
                      "[deployments.gen.price]\ninput_per_million = 1.0\nper_gpu_hour = 2.0\n")
    with pytest.raises(ConfigError, match=r"deployments\.gen\.price"):
        load_settings(config)
