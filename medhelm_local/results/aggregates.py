"""A run's aggregates: computed from its per-instance scores by each metric's declared aggregation, with the
run-level figures beside them (`results.figures`), or read as the store recorded them when the run finished."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, replace
from typing import Any

import duckdb

from medhelm_local.metrics.aggregate import ScoreRow, aggregate, summarise
from medhelm_local.metrics.registry import find
from medhelm_local.records import Aggregate
from medhelm_local.store.queries import declared_metric_names, run_metric_names, store_aggregates


def record_summaries(con: duckdb.DuckDBPyConnection, by_run: Mapping[str, Iterable[Aggregate]]) -> None:
    """Record runs' aggregates and their slices (each replacing what was recorded before), as a run, a judge pass
    or a merge finishes: what listings, reports and exports then read instead of recomputing."""
    from medhelm_local.store.slices import store_slices  # here: what reads aggregates never loads the slicing

    store_aggregates(con, by_run)
    store_slices(con, list(by_run))


def compute_aggregates(con: duckdb.DuckDBPyConnection, run_id: str) -> list[Aggregate]:
    """Every metric of a run from its per-instance scores, by the metric's declared aggregation, then the
    run-level figures (efficiency, cost, calibration, agreement, robustness: `results.figures`).

    Means are computed from a column of values fetched as one array (a 100,000-instance run stays
    small); run-level figures (macro-F1) read each instance's recorded detail.
    """
    import numpy as np  # aggregates only: a command that never summarises never loads it

    from medhelm_local.results.figures import compute_figures, read_run  # run-level figures (latency, cost, ...)

    # One query for what the run is and its counts, one a metric: a run's queries are most of the time its
    # aggregates take, and a suite's last runs are summarised after its last reply (bench/suite.py).
    run = read_run(con, run_id)
    if not run:
        return []
    n, n_failed = run["n"], run["failed"]
    aggregates = []
    for metric in declared_metric_names(con, run_id, run["main"], run["benchmark"]):
        spec = find(metric)
        if spec is None or spec.aggregation == "mean":  # an unknown metric (a newer store's) shown by its mean
            # In instance order: the seeded bootstrap resamples by position and a float sum depends on its order,
            # so the same scores written in another order (a resumed or merged run) must give the same figures.
            column = con.execute("SELECT value FROM scores WHERE run_id = ? AND metric = ? ORDER BY instance_id",
                                 [run_id, metric]).fetchnumpy()["value"]
            unscored = np.ma.getmaskarray(column)  # NULL: the instance could not be scored
            values = np.ma.getdata(column)[~unscored]
            found = aggregate(metric, n, values, n_failed + int(unscored.sum()))
            aggregates.append(_with_unreadable(con, run_id, found))
            continue
        rows = [ScoreRow(value, json.loads(detail) if detail else None) for value, detail in con.execute(
            "SELECT value, detail_json FROM scores WHERE run_id = ? AND metric = ? ORDER BY instance_id",
            [run_id, metric]).fetchall()]
        aggregates.append(summarise(spec, n, rows, n_failed))
    return aggregates + compute_figures(con, run)


def _with_unreadable(con: duckdb.DuckDBPyConnection, run_id: str, found: Aggregate) -> Aggregate:
    """A mean with the answers its metric could not read counted beside it, by reason (scored 0, never skipped)."""
    reasons = dict(con.execute(
        "SELECT json_extract_string(detail_json, '$.unreadable') AS reason, count(*) FROM scores "
        "WHERE run_id = ? AND metric = ? AND detail_json LIKE '%\"unreadable\"%' GROUP BY reason ORDER BY reason",
        [run_id, found.metric]).fetchall())
    if not reasons:
        return found
    return replace(found, detail={"unreadable": sum(reasons.values()), "unreadable_reasons": reasons})


def run_aggregates(con: duckdb.DuckDBPyConnection, run_id: str) -> list[Aggregate]:
    """A run's aggregates: as stored when the run last finished, else computed from its scores now."""
    stored = con.execute("SELECT metric, n, n_scored, n_failed, value, ci_low, ci_high, detail_json FROM run_metrics "
                         "WHERE run_id = ?", [run_id]).fetchall()
    if not stored:
        return compute_aggregates(con, run_id)
    by_metric = {row[0]: Aggregate(row[0], row[1], row[2], row[3], row[4], row[5], row[6],
                                   json.loads(row[7]) if row[7] else None) for row in stored}
    order = run_metric_names(con, run_id)
    return [by_metric[m] for m in order if m in by_metric] + [a for m, a in sorted(by_metric.items())
                                                              if m not in order]


def aggregate_dict(agg: Aggregate) -> dict[str, Any]:
    """An aggregate as plain data, with its pending count."""
    return asdict(agg) | {"n_pending": agg.n_pending}
