"""The mean win rate's bootstrap interval: HELM's value unchanged, an interval around it that is narrow where
models are far apart and wide where they differ only by noise."""

from __future__ import annotations

from pathlib import Path

from support.report_store import FakeRun, write_store

from medhelm_local.report.inputs import open_sources
from medhelm_local.report.read_model import Report
from medhelm_local.store.keys import Kek


def _report(tmp_path: Path, kek: Kek, runs: list[FakeRun]) -> Report:
    write_store(tmp_path / "s.duckdb", kek, "s", runs)
    sources = open_sources([tmp_path / "s.duckdb"], kek)
    try:
        return sources.report()
    finally:
        sources.close()


def test_far_apart_models_have_degenerate_intervals_at_helms_values(tmp_path: Path, kek: Kek) -> None:
    # On both benchmarks: best answers every instance, worst none, middle half. Every resample keeps the order, so
    # the intervals are the values themselves: 1, 0.5, 0 (HELM's mean win rate with three models).
    n = 40
    runs = [FakeRun(f"local/{name}", bench, n, values=[float(i < share * n) for i in range(n)])
            for bench in ("pubmed_qa", "med_qa") for name, share in (("best", 1.0), ("middle", 0.5), ("worst", 0.0))]
    rates = {row.model: row.win_rate for row in _report(tmp_path, kek, runs).leaderboard.rows}
    assert {m: (r.value, r.ci_low, r.ci_high) for m, r in rates.items()} == {
        "local/best": (1.0, 1.0, 1.0), "local/middle": (0.5, 0.5, 0.5), "local/worst": (0.0, 0.0, 0.0)}


def test_models_that_differ_only_by_noise_have_wide_intervals(tmp_path: Path, kek: Kek) -> None:
    # Two models with the same 50 % accuracy on different instances of one 60-instance benchmark: which one wins
    # flips from resample to resample, so each interval spans 0 to 1 around HELM's 0 or 1.
    n = 60
    runs = [FakeRun("local/a", "pubmed_qa", n, values=[float(i % 2 == 0) for i in range(n)]),
            FakeRun("local/b", "pubmed_qa", n, values=[float(i % 2 == 1 or i == 0) for i in range(n)])]
    rates = {row.model: row.win_rate for row in _report(tmp_path, kek, runs).leaderboard.rows}
    assert rates["local/b"].value == 1.0 and rates["local/a"].value == 0.0
    assert (rates["local/a"].ci_low, rates["local/a"].ci_high) == (0.0, 1.0)
    assert (rates["local/b"].ci_low, rates["local/b"].ci_high) == (0.0, 1.0)
