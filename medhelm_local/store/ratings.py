"""Judge ratings in a suite store: the judgings still owed, the texts a judge sees, each instance's jury score
derived from its ratings, and ratings for `show` and agreement. The annotate stage asks the judges; this module
is where their ratings are read and written."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from medhelm_local.metrics.health_bench import HEALTH_BENCH_SCORE
from medhelm_local.metrics.health_bench import instance_score as health_bench_instance
from medhelm_local.records import Score
from medhelm_local.store.database import ALIAS
from medhelm_local.store.rows import score_row
from medhelm_local.store.writer import insert_rows

JURY_METRIC = "jury_score"
BATCH = 256


@dataclass(frozen=True)
class Pending:
    """One answered instance and the judges of a jury that still owe it a rating."""

    instance_id: str
    judges: tuple[str, ...]
    failed: tuple[str, ...]  # of those, the judges whose earlier rating failed (its row is replaced)


def pending_judgings(con: duckdb.DuckDBPyConnection, run_id: str, jury: str, judges: Sequence[str],
                     kept_failures: Collection[str] = ()) -> list[Pending]:
    """Answered instances of a run without a rating from each judge, in instance order. A failed rating is
    owed again unless its failure is one of `kept_failures` (annotate.parse.CONTENT_FAILURES: the judge's own
    answer, which asking again would repeat; empty: every failure is asked again)."""
    kept = sorted(kept_failures)
    retried = f"r.error_type NOT IN ({', '.join(repr(k) for k in kept)})" if kept else "TRUE"
    rows = con.execute(f"""
        SELECT c.instance_id, j.judge, r.ok IS NOT NULL AS has_row
        FROM completions c JOIN instances i USING (run_id, instance_id)
        CROSS JOIN (SELECT unnest($judges) AS judge) j
        LEFT JOIN ratings r ON r.run_id = c.run_id AND r.instance_id = c.instance_id AND r.jury = $jury
                           AND r.judge = j.judge
        WHERE c.run_id = $run AND c.ok AND (r.ok IS NULL OR (NOT r.ok AND (r.error_type IS NULL OR {retried})))
        ORDER BY i.ordinal, j.judge""", {"judges": list(judges), "jury": jury, "run": run_id}).fetchall()
    owed: dict[str, tuple[list[str], list[str]]] = {}
    for instance_id, judge, has_row in rows:
        judges_owed, failed = owed.setdefault(instance_id, ([], []))
        judges_owed.append(judge)
        if has_row:
            failed.append(judge)
    return [Pending(i, tuple(j), tuple(f)) for i, (j, f) in owed.items()]


def judged_texts(con: duckdb.DuckDBPyConnection, run_id: str,
                 instance_ids: Sequence[str]) -> dict[str, tuple[str, str, str, dict[str, str]]]:
    """(input, reference, answer, the instance's own fields) of each instance: what a judge is shown."""
    rows = con.execute("""
        SELECT i.instance_id, i.input, i.references_json, c.text, i.extra_json FROM instances i
        JOIN completions c USING (run_id, instance_id)
        WHERE i.run_id = $run AND i.instance_id IN (SELECT unnest($ids))""",
                       {"run": run_id, "ids": list(instance_ids)}).fetchall()
    return {r[0]: (r[1], reference_text(r[2]), r[3] or "", json.loads(r[4] or "{}")) for r in rows}


def reference_text(references_json: str) -> str:
    """The first correct reference of a stored instance (the gold answer judges compare with)."""
    references = json.loads(references_json or "[]")
    return next((r["text"] for r in references if r.get("correct")), "")


def _instance_score(instance_id: str, jury: str, judged: dict[str, dict[str, Any]], metric: str = JURY_METRIC,
                    extra: dict[str, str] | None = None) -> Score:
    """One instance's jury score: the mean over the judges that rated it (each its mean over criteria; for
    HealthBench, its score over the instance's rubric items, with scores by tag)."""
    means = [j["mean"] for j in judged.values() if j.get("mean") is not None]
    detail: dict[str, Any] = {"jury": jury, "judges": judged}
    if not means:
        reasons = ", ".join(f"{name} {j.get('error', 'no score')}" for name, j in sorted(judged.items()))
        return Score(instance_id, metric, None, detail=detail, error=f"no judge rated it: {reasons}")
    if metric == HEALTH_BENCH_SCORE:
        value, detail["tags"] = health_bench_instance(judged, extra or {})
        return Score(instance_id, metric, value, detail=detail)
    return Score(instance_id, metric, sum(means) / len(means), detail=detail)


def _grouped(con: duckdb.DuckDBPyConnection, run_id: str, jury: str,
             judges: Sequence[str]) -> Iterator[tuple[str, dict[str, dict[str, Any]], dict[str, str]]]:
    result = con.execute("""
        SELECT r.instance_id, r.judge, r.ok, r.ratings_json, r.mean, r.error_type, i.extra_json FROM ratings r
        JOIN completions c USING (run_id, instance_id) JOIN instances i USING (run_id, instance_id)
        WHERE r.run_id = $run AND r.jury = $jury AND c.ok AND r.judge IN (SELECT unnest($judges))
        ORDER BY r.instance_id""", {"run": run_id, "jury": jury, "judges": list(judges)})
    current: str | None = None
    judged: dict[str, dict[str, Any]] = {}
    extra = "{}"
    while rows := result.fetchmany(4096):
        for instance_id, judge, ok, ratings_json, mean, error_type, extra_json in rows:
            if instance_id != current:
                if current is not None:
                    yield current, judged, json.loads(extra)
                current, judged, extra = instance_id, {}, extra_json or "{}"
            if ok:
                scores = {c: r["score"] for c, r in json.loads(ratings_json or "{}").items()}
                judged[judge] = {"mean": mean, "scores": scores}
            else:
                judged[judge] = {"error": error_type or "failed"}
    if current is not None:
        yield current, judged, json.loads(extra)


def derive_jury_scores(con: duckdb.DuckDBPyConnection, run_id: str, jury: str, judges: Sequence[str],
                       metric: str = JURY_METRIC) -> int:
    """Rewrite a run's per-instance jury scores (`metric`) from its ratings by this jury (one transaction); an
    instance is scored once every judge has a row for it. Returns the number of instances scored or failed."""
    rows = [score_row(run_id, _instance_score(instance_id, jury, judged, metric, extra))
            for instance_id, judged, extra in _grouped(con, run_id, jury, judges) if set(judged) >= set(judges)]
    cursor = con.cursor()
    cursor.execute("BEGIN")
    try:
        cursor.execute(f"DELETE FROM {ALIAS}.scores WHERE run_id = ? AND metric = ?", [run_id, metric])
        if rows:
            insert_rows(cursor, "scores", rows)
        cursor.execute("COMMIT")
    except Exception:
        cursor.execute("ROLLBACK")
        raise
    finally:
        cursor.close()
    return len(rows)


def record_jury(con: duckdb.DuckDBPyConnection, run_id: str, jury: str, prices: dict[str, Any]) -> None:
    """Note on the run which jury its jury score comes from, and each judge's price (for judging cost)."""
    row = con.execute("SELECT settings FROM runs WHERE run_id = ?", [run_id]).fetchone()
    settings = json.loads(row[0]) if row else {}
    settings["jury"] = jury
    settings.setdefault("juries", {})[jury] = prices
    con.execute("UPDATE runs SET settings = ? WHERE run_id = ?", [json.dumps(settings, sort_keys=True), run_id])


def instance_ratings(con: duckdb.DuckDBPyConnection, run_id: str,
                     instance_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """Ratings rows of some instances, by instance: judge, jury, ok, per-criterion scores, mean, failure."""
    rows = con.execute("""
        SELECT instance_id, jury, judge, ok, ratings_json, mean, error_type, error_message FROM ratings
        WHERE run_id = $run AND instance_id IN (SELECT unnest($ids)) ORDER BY jury, judge""",
                       {"run": run_id, "ids": list(instance_ids)}).fetchall()
    found: dict[str, list[dict[str, Any]]] = {}
    for instance_id, jury, judge, ok, ratings_json, mean, error_type, error_message in rows:
        found.setdefault(instance_id, []).append(
            {"jury": jury, "judge": judge, "ok": ok, "ratings": json.loads(ratings_json) if ratings_json else None,
             "mean": mean, "error_type": error_type, "error_message": error_message})
    return found

