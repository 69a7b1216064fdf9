"""A run's figures depend on its scores, never on the order the store holds them in: a resumed, sharded or
merged run writes the same rows in another order and must report the same means and intervals, bit for bit."""

from __future__ import annotations

import random
from pathlib import Path

import duckdb
from support.report_store import FakeRun, write_store

from medhelm_local.records import Aggregate
from medhelm_local.results.aggregates import compute_aggregates
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


def _reverse(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Rewrite a table's rows in the opposite order (DuckDB scans in insertion order)."""
    con.execute(f"CREATE TEMP TABLE held AS SELECT * FROM {table} ORDER BY instance_id DESC")
    con.execute(f"DELETE FROM {table}")
    con.execute(f"INSERT INTO {table} SELECT * FROM held")
    con.execute("DROP TABLE held")


def test_figures_are_the_same_whatever_order_the_rows_were_written_in(tmp_path: Path, kek: Kek) -> None:
    rng = random.Random(3)
    values = [round(rng.random(), 3) for _ in range(300)]  # not 0/1: the general bootstrap resamples by position
    [run_id] = write_store(tmp_path / "s.duckdb", kek, "s", [FakeRun("local/m", "pubmed_qa", 300, values=values)],
                           aggregate=False)
    handle = open_store(tmp_path / "s.duckdb", kek)
    try:
        con = handle.con
        # Each answer's probability of its chosen option, so calibration (a seeded bootstrap too) is computed.
        con.execute("UPDATE completions SET confidence = 0.25 + (hash(instance_id) % 700) / 1000.0")
        con.execute("UPDATE scores SET value = round(value) WHERE metric = 'exact_match' AND instance_id > 'q000150'")
        before = compute_aggregates(con, run_id)
        assert _order_sensitive(before)
        _reverse(con, "scores")
        _reverse(con, "completions")
        assert con.execute("SELECT instance_id FROM scores LIMIT 1").fetchone() == ("q000299",)
        after = compute_aggregates(con, run_id)
    finally:
        handle.close()
    assert after == before


def _order_sensitive(aggregates: list[Aggregate]) -> bool:
    """The run has a mean with an interval and a calibration figure: the figures the row order could move."""
    names = {a.metric for a in aggregates if a.ci_low is not None}
    return "exact_match" in names and "ece" in names
