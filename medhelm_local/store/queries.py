"""Reads and run bookkeeping on an open store. Reporting needs only these, never a model."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Aggregate


@dataclass(frozen=True)
class RunSummary:
    """One run of a suite with its progress counts and, once scored, its main score."""

    run_id: str
    suite: str
    run_entry: str
    scenario: str
    model: str
    deployment: str
    main_metric: str
    n_instances: int
    n_ok: int
    n_failed: int
    mean_latency_s: float | None
    prompt_tokens: int
    completion_tokens: int
    updated_at: datetime
    main_score: float | None = None  # the stored aggregate of the main metric (None before scoring)
    access: str = "public"


def now_utc() -> datetime:
    """The current time as stored: naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class RunRecord:
    """A run's row as a command starts it: what was asked and of which benchmark."""

    run_id: str
    suite: str
    run_entry: str
    scenario: str
    scenario_args: Mapping[str, str]
    model: str
    deployment: str
    main_metric: str
    access: str
    settings: Mapping[str, Any]
    benchmark: Mapping[str, Any]
    data: Mapping[str, Any] | None = None  # what the run read (scenarios.data_read.DataRead), kept from its start


_RUN_COLUMNS = ("run_id, suite, run_entry, scenario, scenario_args, model, deployment, main_metric, access, settings, "
                "created_at, updated_at, benchmark_json, data_json")


def record_runs(con: duckdb.DuckDBPyConnection, records: Sequence[RunRecord]) -> None:
    """Create the runs' rows, or bring a resumed run's settings and benchmark description up to date (what it
    read stays as its first invocation recorded it: `run.active.start_runs` refuses to resume on other data).

    One statement for them all: a statement each costs ~3 ms on an encrypted store (a conf file of 30
    entries: ~0.1 s before the first request).
    """
    if not records:
        return
    now = now_utc()
    latest = {r.run_id: r for r in records}  # one row each: a statement may not update a row twice
    values = [[r.run_id, r.suite, r.run_entry, r.scenario, json.dumps(r.scenario_args, sort_keys=True), r.model,
               r.deployment, r.main_metric, r.access, json.dumps(r.settings, sort_keys=True), now, now,
               json.dumps(r.benchmark, sort_keys=True), None if r.data is None else json.dumps(r.data, sort_keys=True)]
              for r in latest.values()]
    placeholders = ", ".join(["(" + ", ".join(["?"] * len(values[0])) + ")"] * len(values))
    con.execute(f"INSERT INTO runs ({_RUN_COLUMNS}) VALUES {placeholders} ON CONFLICT (run_id) DO UPDATE SET "
                "updated_at = excluded.updated_at, settings = excluded.settings, main_metric = excluded.main_metric, "
                "benchmark_json = excluded.benchmark_json", [value for row in values for value in row])


def forget_unstarted_runs(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> list[str]:
    """Delete the rows of these runs that hold nothing yet (no instance stored, in this invocation or an
    earlier one): recorded by an invocation that stopped before its first request. Returns those deleted."""
    if not run_ids:
        return []
    rows = con.execute("DELETE FROM runs WHERE run_id IN (SELECT unnest(?)) AND run_id NOT IN "
                       "(SELECT DISTINCT run_id FROM instances WHERE run_id IN (SELECT unnest(?))) RETURNING run_id",
                       [list(run_ids), list(run_ids)]).fetchall()
    return [row[0] for row in rows]


def holds_runs(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the store records any run."""
    return con.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is not None


@dataclass(frozen=True)
class StoredProgress:
    """What earlier invocations stored of a run."""

    stored: list[str]  # its instances, in their stored order (an earlier invocation's sample, kept on resume)
    done: set[str]  # instances with a successful completion (never requested again)
    failed: set[str]  # instances with a failed completion


def stored_progress(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> dict[str, StoredProgress]:
    """Each run's stored instances and completions, read in two queries for all the runs."""
    found = {run_id: StoredProgress([], set(), set()) for run_id in run_ids}
    for run_id, instance_id in con.execute("SELECT run_id, instance_id FROM instances WHERE run_id IN "
                                           "(SELECT unnest(?)) ORDER BY run_id, ordinal", [list(run_ids)]).fetchall():
        found[run_id].stored.append(instance_id)
    for run_id, instance_id, ok in con.execute("SELECT run_id, instance_id, ok FROM completions WHERE run_id IN "
                                               "(SELECT unnest(?))", [list(run_ids)]).fetchall():
        (found[run_id].done if ok else found[run_id].failed).add(instance_id)
    return found


# Completions and instances are counted per run before they meet the runs table: joined row by row, a
# long run's summary built a hash table of every completion, raising the peak at the end of a run.
_SUMMARY_SQL = """
WITH c AS (SELECT run_id, count(*) FILTER (WHERE ok) AS n_ok, count(*) FILTER (WHERE NOT ok) AS n_failed,
                  avg(latency_s) FILTER (WHERE ok) AS latency, sum(prompt_tokens) AS tokens_in,
                  sum(completion_tokens) AS tokens_out
           FROM completions {only} GROUP BY run_id),
     i AS (SELECT run_id, count(*) AS n FROM instances {only} GROUP BY run_id)
SELECT r.run_id, r.suite, r.run_entry, r.scenario, r.model, r.deployment, r.main_metric, coalesce(i.n, 0),
       coalesce(c.n_ok, 0), coalesce(c.n_failed, 0), c.latency, coalesce(c.tokens_in, 0), coalesce(c.tokens_out, 0),
       r.updated_at, (SELECT m.value FROM run_metrics m WHERE m.run_id = r.run_id AND m.metric = r.main_metric),
       r.access
FROM runs r LEFT JOIN c USING (run_id) LEFT JOIN i USING (run_id)
{where}
ORDER BY r.suite, r.scenario, r.model
"""


def list_runs(con: duckdb.DuckDBPyConnection, suite: str | None = None) -> list[RunSummary]:
    """Every run in the store (optionally one suite), with progress counts and main score."""
    where, params = ("WHERE r.suite = $suite", {"suite": suite}) if suite else ("", {})
    rows = con.execute(_SUMMARY_SQL.format(only="", where=where), params).fetchall()
    return [RunSummary(*row) for row in rows]


def find_run(con: duckdb.DuckDBPyConnection, run_id: str) -> RunSummary | None:
    """One run by id, or None."""
    sql = _SUMMARY_SQL.format(only="WHERE run_id = $run", where="WHERE r.run_id = $run")
    rows = con.execute(sql, {"run": run_id}).fetchall()
    return RunSummary(*rows[0]) if rows else None


def get_run(con: duckdb.DuckDBPyConnection, run_id: str) -> RunSummary:
    """One run by id, or an error listing how to find ids."""
    found = find_run(con, run_id)
    if found is None:
        raise RunEntryError(f"no run with id '{run_id}' in this store", where="store",
                            fix="list run ids with `medhelm-local runs list`")
    return found


def run_metric_names(con: duckdb.DuckDBPyConnection, run_id: str) -> list[str]:
    """The run's metrics, main first (from the benchmark it ran; older runs: those with scores)."""
    row = con.execute("SELECT main_metric, benchmark_json FROM runs WHERE run_id = ?", [run_id]).fetchone()
    return [] if row is None else declared_metric_names(con, run_id, row[0], json.loads(row[1] or "{}"))


def declared_metric_names(con: duckdb.DuckDBPyConnection, run_id: str, main: str,
                          benchmark: dict[str, Any]) -> list[str]:
    """The run's metrics, main first: those its benchmark declares, then any others it has scores for."""
    declared = benchmark.get("metrics") or []
    scored = [r[0] for r in con.execute("SELECT DISTINCT metric FROM scores WHERE run_id = ? ORDER BY metric",
                                        [run_id]).fetchall()]
    return list(dict.fromkeys([main, *declared, *scored]))


def store_aggregates(con: duckdb.DuckDBPyConnection, by_run: Mapping[str, Iterable[Aggregate]]) -> None:
    """Record runs' aggregates (replacing earlier ones) so listings and reports need not recompute them."""
    from medhelm_local.store.writer import insert_rows, row_of

    rows = [row_of("run_metrics", run_id=run_id, metric=a.metric, value=a.mean, ci_low=a.ci_low, ci_high=a.ci_high,
                   n=a.n, n_scored=a.n_scored, n_failed=a.n_failed,
                   detail_json=json.dumps(a.detail, sort_keys=True) if a.detail else None)
            for run_id, aggregates in by_run.items() for a in aggregates]
    # As one Arrow batch and one commit: executemany, or one VALUES list, costs a commit's worth a row on an
    # encrypted store, and a commit per run added up over a suite (bench/suite.py; docs/performance.md).
    if rows:
        insert_rows(con, "run_metrics", rows)


def instance_rows(con: duckdb.DuckDBPyConnection, run_id: str, limit: int | None = None,
                  failed_only: bool = False, full: bool = False) -> list[dict[str, Any]]:
    """Per-instance results of a run: the answer, what was extracted, each score, or the failure.

    With `full`, also the prompt sent and the reference answers (for review on the appliance; the
    export gate still decides what leaves).
    """
    extra = ", min(q.prompt) AS prompt, min(i.references_json) AS references_json" if full else ""
    join = "LEFT JOIN requests q USING (run_id, instance_id)" if full else ""
    failed = ("AND (c.ok = false OR i.instance_id IN (SELECT instance_id FROM scores WHERE run_id = $run "
              "AND value IS NULL))") if failed_only else ""
    sql = f"""
    SELECT i.instance_id, c.ok, c.text, c.error_type, c.error_message, c.attempts, c.latency_s,
           list(struct_pack(metric := s.metric, value := s.value, extracted := s.extracted, error := s.error)
                ORDER BY s.metric) FILTER (WHERE s.metric IS NOT NULL) AS scores {extra}
    FROM instances i
    LEFT JOIN completions c USING (run_id, instance_id)
    LEFT JOIN scores s USING (run_id, instance_id)
    {join}
    WHERE i.run_id = $run {failed}
    GROUP BY ALL ORDER BY min(i.ordinal) {f"LIMIT {int(limit)}" if limit else ""}
    """
    result = con.execute(sql, {"run": run_id})
    cols = [d[0] for d in result.description]
    rows = [dict(zip(cols, row, strict=True)) for row in result.fetchall()]
    for row in rows:
        if full:
            row["references"] = [r["text"] for r in json.loads(row.pop("references_json") or "[]") if r["correct"]]
    return rows
