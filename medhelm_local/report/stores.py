"""Reading suite stores for a report: read-only, never migrated, every schema version checked first.

A report never changes a store: stores are attached read-only, and a store written by an older
schema is refused with how to migrate it (the run stage migrates on open; a report must not), so
the file is byte-for-byte the same afterwards. `StoreReader` answers everything the pages need:
runs, their metrics, failures, judges, pages of instances as JSON, and per-instance scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb

from medhelm_local.errors import StoreError, StoreSchemaError
from medhelm_local.report.model import FailureCount, JudgeSummary, MetricSummary, RunInfo, StoreInfo
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.queries import compute_aggregates, list_runs
from medhelm_local.store.schema import SCHEMA_VERSION
from medhelm_local.taxonomy import load_taxonomy

UNPLACED = "Not in MedHELM's taxonomy"


def open_stores(paths: Sequence[Path], kek: Kek, memory_limit: str | None = None) -> list[StoreHandle]:
    """Every store opened read-only, without migrating; refused together when their schemas differ."""
    handles: list[StoreHandle] = []
    try:
        for path in paths:
            try:
                handles.append(open_store(path, kek, read_only=True, memory_limit=memory_limit, migrate=False))
            except OSError as exc:
                raise StoreError(f"the store cannot be read ({exc.strerror or exc})", where=str(path),
                                 fix="check the file's permissions (the report needs to read it, never to "
                                     "write it)") from None
        _check_versions(handles)
    except BaseException:
        for handle in handles:
            handle.close()
        raise
    return handles


def _check_versions(handles: Sequence[StoreHandle]) -> None:
    old = [h for h in handles if h.schema_version != SCHEMA_VERSION]
    if not old:
        return
    listed = "; ".join(f"{h.path}: version {h.schema_version}" for h in handles)
    mixed = len({h.schema_version for h in handles}) > 1
    raise StoreSchemaError(
        ("the stores have different schema versions" if mixed else "the store has an older schema version")
        + f" ({listed}), and a report reads version {SCHEMA_VERSION} only, never changing a store",
        where=", ".join(str(h.path) for h in old),
        fix="migrate each older store once with `medhelm-local runs list --store PATH` (its original is kept "
            "beside it until the migration commits), then make the report again")


def _placement(benchmark: str, declared: dict[str, Any]) -> tuple[str, str]:
    """(category, subcategory): the taxonomy's place for the declared subcategory, else as declared."""
    subcategory = declared.get("subcategory") or ""
    taxonomy = load_taxonomy()
    found = taxonomy.subcategories.get(subcategory) or taxonomy.placement(benchmark)
    if found is not None:
        return found.category, found.name
    return declared.get("category") or UNPLACED, subcategory or UNPLACED


class StoreReader:
    """One open suite store, read for a report."""

    def __init__(self, handle: StoreHandle) -> None:
        self.handle = handle
        self.con: duckdb.DuckDBPyConnection = handle.con
        self.label = handle.path.name

    def info(self) -> StoreInfo:
        """The store as the methods page lists it."""
        runs = self.con.execute("SELECT count(*) FROM runs").fetchone()
        return StoreInfo(str(self.handle.path), self.handle.store_id, self.handle.schema_version,
                         int(runs[0]) if runs else 0)

    def runs(self) -> list[RunInfo]:
        """Every run in the store with its benchmark's place and its counts."""
        declared = {r[0]: (json.loads(r[1] or "{}"), json.loads(r[2] or "{}")) for r in self.con.execute(
            "SELECT run_id, benchmark_json, scenario_args FROM runs").fetchall()}
        found = []
        for summary in list_runs(self.con):
            benchmark, args = declared.get(summary.run_id, ({}, {}))
            category, subcategory = _placement(summary.scenario, benchmark)
            found.append(RunInfo(
                key=summary.run_id, run_id=summary.run_id, source=self.label, suite=summary.suite,
                model=summary.model, deployment=summary.deployment, benchmark=summary.scenario,
                display_name=benchmark.get("display_name") or summary.scenario,
                task_type=benchmark.get("task_type") or "", category=category, subcategory=subcategory,
                access=summary.access, main_metric=summary.main_metric, run_entry=summary.run_entry,
                args={str(k): str(v) for k, v in args.items()}, n_instances=summary.n_instances,
                n_completed=summary.n_ok, n_failed=summary.n_failed, updated_at=summary.updated_at))
        return found

    def metrics(self) -> dict[str, dict[str, MetricSummary]]:
        """Per run, every metric as stored when the run finished, or computed from its scores when it has none."""
        by_run: dict[str, dict[str, MetricSummary]] = {}
        for row in self.con.execute("SELECT run_id, metric, value, ci_low, ci_high, n, n_scored, n_failed, "
                                    "detail_json FROM run_metrics ORDER BY run_id, metric").fetchall():
            by_run.setdefault(row[0], {})[row[1]] = MetricSummary(
                row[1], row[2], row[3], row[4], row[5], row[6], row[7], json.loads(row[8]) if row[8] else None)
        for (run_id,) in self.con.execute("SELECT run_id FROM runs").fetchall():
            if run_id not in by_run:  # a run stopped before it was summarised: its aggregates as of now
                by_run[run_id] = {a.metric: MetricSummary(a.metric, a.mean, a.ci_low, a.ci_high, a.n, a.n_scored,
                                                          a.n_failed, a.detail)
                                  for a in compute_aggregates(self.con, run_id)}
        return by_run

    def failures(self, run_id: str) -> list[FailureCount]:
        """A run's failed requests by reason, then each metric's unscorable instances by reason."""
        rows = self.con.execute(
            "SELECT 'request', coalesce(error_type, 'unknown'), count(*) FROM completions WHERE run_id = $r AND NOT ok "
            "GROUP BY ALL UNION ALL SELECT metric, coalesce(error, 'unknown'), count(*) FROM scores "
            "WHERE run_id = $r AND value IS NULL GROUP BY ALL ORDER BY 1, 3 DESC, 2", {"r": run_id}).fetchall()
        return [FailureCount(stage, reason, count) for stage, reason, count in rows]

    def judges(self, run_id: str) -> list[JudgeSummary]:
        """Per jury and judge: ratings given, failures by reason, and the mean rating."""
        rows = self.con.execute(
            "SELECT jury, judge, count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok), avg(mean) FILTER "
            "(WHERE ok), list(coalesce(error_type, 'unknown')) FILTER (WHERE NOT ok) FROM ratings WHERE run_id = ? "
            "GROUP BY jury, judge ORDER BY jury, judge", [run_id]).fetchall()
        summaries = []
        for jury, judge, rated, failed, mean, reasons in rows:
            counts: dict[str, int] = {}
            for reason in reasons or []:
                counts[reason] = counts.get(reason, 0) + 1
            summaries.append(JudgeSummary(jury, judge, rated, failed, mean, dict(sorted(counts.items()))))
        return summaries

    def instance_count(self, run_id: str, failed_only: bool = False) -> int:
        """Instances of a run (or only those with a failure)."""
        row = self.con.execute(f"SELECT count(*) FROM instances i WHERE i.run_id = $r {_failed_filter(failed_only)}",
                               {"r": run_id}).fetchone()
        return int(row[0]) if row else 0

    def instances_json(self, run_id: str, offset: int = 0, limit: int | None = None,
                       failed_only: bool = False) -> Iterator[str]:
        """A run's instances in order, each one JSON object: prompt, references, answer or failure, every
        metric's score, and every judge's ratings with explanations."""
        window = f"LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
        result = self.con.execute(_INSTANCES_SQL.format(failed=_failed_filter(failed_only), window=window),
                                  {"r": run_id})
        while True:
            chunk = result.fetchmany(2048)
            if not chunk:
                return
            for (text,) in chunk:
                yield text

    def score_values(self, run_id: str, metric: str) -> tuple[Any, Any]:
        """(instance ids, values) of one metric's scored instances in a run, as arrays."""
        found = self.con.execute("SELECT instance_id, value FROM scores WHERE run_id = ? AND metric = ? "
                                 "AND value IS NOT NULL", [run_id, metric]).fetchnumpy()
        return found["instance_id"], found["value"]

    def instances_withheld(self, run_id: str) -> str | None:
        """Why a run's instances may not be shown (never, on the appliance: the store is local)."""
        return None

    def close(self) -> None:
        """Close the store."""
        self.handle.close()


def _failed_filter(failed_only: bool) -> str:
    if not failed_only:
        return ""
    return ("AND (i.instance_id IN (SELECT instance_id FROM completions WHERE run_id = $r AND NOT ok) "
            "OR i.instance_id IN (SELECT instance_id FROM scores WHERE run_id = $r AND value IS NULL) "
            "OR i.instance_id IN (SELECT instance_id FROM ratings WHERE run_id = $r AND NOT ok))")


# One JSON object per instance, built by DuckDB (a 10,000-instance run in milliseconds).
_INSTANCES_SQL = """
WITH page AS (
    SELECT i.instance_id, i.ordinal, i.references_json FROM instances i
    WHERE i.run_id = $r {failed} ORDER BY i.ordinal {window}
), s AS (
    SELECT instance_id, list(struct_pack(metric := metric, value := value, extracted := extracted, error := error)
                             ORDER BY metric) AS scores
    FROM scores WHERE run_id = $r AND instance_id IN (SELECT instance_id FROM page) GROUP BY instance_id
), j AS (
    SELECT instance_id, list(struct_pack(jury := jury, judge := judge, ok := ok, mean := mean,
                                         ratings := json(ratings_json), error_type := error_type,
                                         error_message := error_message) ORDER BY jury, judge) AS ratings
    FROM ratings WHERE run_id = $r AND instance_id IN (SELECT instance_id FROM page) GROUP BY instance_id
)
SELECT to_json(struct_pack(
    id := p.instance_id, ordinal := p.ordinal, prompt := q.prompt, "references" := json(p.references_json),
    ok := c.ok, answer := c.text, finish_reason := c.finish_reason, error_type := c.error_type,
    error_message := c.error_message, latency_s := c.latency_s, attempts := c.attempts,
    prompt_tokens := c.prompt_tokens, completion_tokens := c.completion_tokens,
    scores := coalesce(s.scores, []), ratings := coalesce(j.ratings, [])))
FROM page p
LEFT JOIN requests q ON q.run_id = $r AND q.instance_id = p.instance_id
LEFT JOIN completions c ON c.run_id = $r AND c.instance_id = p.instance_id
LEFT JOIN s ON s.instance_id = p.instance_id
LEFT JOIN j ON j.instance_id = p.instance_id
ORDER BY p.ordinal
"""
