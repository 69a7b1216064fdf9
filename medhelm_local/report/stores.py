"""Reading suite stores for a report: read-only, never migrated, every schema version checked first.

A report never changes a store: stores are attached read-only, and a store written by an older
schema is refused with how to migrate it (the run stage migrates on open; a report must not), so
the file is byte-for-byte the same afterwards. `StoreReader` answers everything the pages need:
runs, their metrics, failures, judges, pages of instances as JSON, and per-instance scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from medhelm_local.errors import ConfigError, StoreCorruptError, StoreError, StoreSchemaError
from medhelm_local.metrics.slices import SlicedMetric
from medhelm_local.report.read_model import FailureCount, JudgeSummary, MetricSummary, RunInfo, StoreInfo
from medhelm_local.results.aggregates import compute_aggregates
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.integrity import is_damage
from medhelm_local.store.keys import Kek
from medhelm_local.store.model_builds import builds_by_run
from medhelm_local.store.schema import SCHEMA_VERSION
from medhelm_local.store.slices import run_slices, stored_slices
from medhelm_local.taxonomy import load_taxonomy

if TYPE_CHECKING:
    from medhelm_local.report.jury_validation import Agreement

UNPLACED = "Not in MedHELM's taxonomy"


# DuckDB's memory for a report when the store_memory_limit setting gives none (its default is 80 % of RAM):
# a report's largest query sorts a batch of at most 100,000 instances (site._BATCH_ROWS). A store with long
# texts gets more: room to read them (store.database.open_store).
DEFAULT_MEMORY_MB = 256


@contextmanager
def reading(where: str) -> Iterator[None]:
    """DuckDB failures while reading stores, as clear errors (a damaged store, or too little memory)."""
    try:
        yield
    except duckdb.OutOfMemoryException:
        raise ConfigError("reading the stores needed more memory than DuckDB may use", where=where,
                          fix="set store_memory_limit (MEDHELM_STORE_MEMORY_LIMIT) higher, e.g. 1GB, or report "
                              "fewer instances per run") from None
    except duckdb.Error as exc:
        if is_damage(exc):  # exit 4, as everywhere else a page does not decrypt or check out
            raise StoreCorruptError(f"the store is damaged: a page does not decrypt or check out "
                                    f"({str(exc).splitlines()[0]})", where=where,
                                    fix="restore the store and its .key from your last backup (medhelm-local never "
                                        "repairs a store in place); of several stores, `medhelm-local runs list "
                                        "--store PATH` names the damaged one") from None
        raise StoreError(f"reading a store failed ({str(exc).splitlines()[0]})", where=where,
                         fix="check the store opens with `medhelm-local runs list --store PATH`; a damaged store "
                             "can be restored from its backup") from None


def open_stores(paths: Sequence[Path], kek: Kek, memory_limit: str | None = None) -> list[StoreHandle]:
    """Every store opened read-only, never migrated; stores of another schema version are refused together,
    each named with its version."""
    handles: list[StoreHandle] = []
    refused: list[tuple[Path, StoreSchemaError]] = []
    try:
        for path in paths:
            try:
                handles.append(open_store(path, kek, read_only=True, memory_limit=memory_limit,
                                          default_memory_mb=DEFAULT_MEMORY_MB, migrate=False))
            except StoreSchemaError as exc:
                refused.append((path, exc))
            except OSError as exc:
                raise StoreError(f"the store cannot be read ({exc.strerror or exc})", where=str(path),
                                 fix="check the file's permissions (the report needs to read it, never to "
                                     "write it)") from None
        if refused:
            raise _versions_error(refused, handles)
    except BaseException:
        for handle in handles:
            handle.close()
        raise
    return handles


def _versions_error(refused: Sequence[tuple[Path, StoreSchemaError]], current: Sequence[StoreHandle]
                    ) -> StoreSchemaError:
    listed = "; ".join([*(f"{path}: {exc.what}" for path, exc in refused),
                        *(f"{h.path}: version {SCHEMA_VERSION}" for h in current)])
    what = "the stores have different schema versions" if current else "the store's schema version is not this one"
    return StoreSchemaError(f"{what} ({listed}), and a report reads version {SCHEMA_VERSION} only, never changing a "
                            "store", where=", ".join(str(path) for path, _ in refused),
                            fix=refused[0][1].fix or "migrate each older store once with `medhelm-local runs list "
                                                     "--store PATH`, then make the report again")


def _placement(benchmark: str, declared: dict[str, Any]) -> tuple[str, str]:
    """(category, subcategory): the taxonomy's place for the declared subcategory, else as declared."""
    subcategory = declared.get("subcategory") or ""
    taxonomy = load_taxonomy()
    found = taxonomy.subcategories.get(subcategory) or taxonomy.placement(benchmark)
    if found is not None:
        return found.category, found.name
    return declared.get("category") or UNPLACED, subcategory or UNPLACED


def _not_comparable(benchmark: str, args: dict[str, str], declared: dict[str, Any]) -> str | None:
    """Why a run cannot be set beside published MedHELM results: as recorded when it ran, else (a run stored before
    that was recorded) its card's word on the arguments it ran with; None when it can, or the card is unknown."""
    if "not_comparable" in declared:
        return declared["not_comparable"] or None
    from medhelm_local.errors import MedhelmError
    from medhelm_local.scenarios.registry import get

    try:
        # Without the card's defaults: such a run predates them (race_based_med then read every run).
        return get(benchmark).card.comparability(args, defaults=False)
    except MedhelmError:
        return None


class StoreReader:
    """One open suite store, read for a report."""

    def __init__(self, handle: StoreHandle, scope: Sequence[str] | None = None) -> None:
        self.handle = handle
        self.scope = scope  # the runs whose summaries are read (None: every run, read in one pass)
        self.con: duckdb.DuckDBPyConnection = handle.con
        self.label = handle.path.name
        self._failures: dict[str, list[FailureCount]] | None = None  # read once, for every run in scope
        self._judges: dict[str, list[JudgeSummary]] | None = None
        self._counts: dict[str, tuple[int, int]] | None = None

    def info(self) -> StoreInfo:
        """The store as the methods page lists it."""
        runs = self.con.execute("SELECT count(*) FROM runs").fetchone()
        return StoreInfo(str(self.handle.path), self.handle.store_id, SCHEMA_VERSION,
                         int(runs[0]) if runs else 0)

    def runs(self) -> list[RunInfo]:
        """Every run in the store with its benchmark's place and its counts."""
        found = []
        served = builds_by_run(self.con)
        for row in self.con.execute(_RUNS_SQL).fetchall():
            (run_id, suite, entry, scenario, args, model, deployment, main, access, declared, updated, n, ok,
             failed) = row
            benchmark = json.loads(declared or "{}")
            category, subcategory = _placement(scenario, benchmark)
            run_args = {str(k): str(v) for k, v in json.loads(args or "{}").items()}
            found.append(RunInfo(
                key=run_id, run_id=run_id, source=self.label, suite=suite, model=model, deployment=deployment,
                benchmark=scenario, display_name=benchmark.get("display_name") or scenario,
                task_type=benchmark.get("task_type") or "", category=category, subcategory=subcategory,
                access=access, main_metric=main, run_entry=entry,
                args=run_args, n_instances=n, n_completed=ok, n_failed=failed, updated_at=updated,
                not_comparable=_not_comparable(scenario, run_args, benchmark), served=served.get(run_id, ())))
        return found

    def metrics(self) -> dict[str, dict[str, MetricSummary]]:
        """Per run, every metric as stored when the run finished, or computed from its scores when it has none."""
        by_run: dict[str, dict[str, MetricSummary]] = {}
        for row in self.con.execute("SELECT run_id, metric, value, ci_low, ci_high, n, n_scored, n_failed, "
                                    "detail_json FROM run_metrics ORDER BY run_id, metric").fetchall():
            by_run.setdefault(row[0], {})[row[1]] = MetricSummary(
                row[2], row[3], row[4], row[5], row[6], row[7], metric=row[1],
                detail=json.loads(row[8]) if row[8] else None)
        for (run_id,) in self.con.execute("SELECT run_id FROM runs").fetchall():
            if run_id not in by_run:  # a run stopped before it was summarised: its aggregates as of now
                by_run[run_id] = {a.metric: MetricSummary(a.mean, a.ci_low, a.ci_high, a.n, a.n_scored, a.n_failed,
                                                          metric=a.metric, detail=a.detail)
                                  for a in compute_aggregates(self.con, run_id)}
        return by_run

    def slices(self) -> dict[str, list[SlicedMetric]]:
        """Per run whose card names slice keys, its main metric per slice value (store.slices): as recorded with
        the run's aggregates, computed from its scores only for a run recorded without them."""
        found: dict[str, list[SlicedMetric]] = {}
        runs = dict(self.con.execute("SELECT run_id, main_metric FROM runs WHERE run_id IN (SELECT DISTINCT run_id "
                                     "FROM instances WHERE slices_json IS NOT NULL)").fetchall())
        recorded = stored_slices(self.con, runs)
        for run_id, main in sorted(runs.items()):
            if self.scope is None or run_id in self.scope:
                sliced = recorded[run_id] if run_id in recorded else run_slices(self.con, run_id)
                found[run_id] = [s for s in sliced if s.metric == main]
        return found

    def jury_agreements(self) -> dict[str, Agreement]:
        """Per benchmark, the jury's agreement with clinicians in this store's latest rating campaign on it."""
        from medhelm_local.report.jury_validation import agreements

        return agreements(self.con, self.label)

    def failures(self, run_id: str) -> list[FailureCount]:
        """A run's failed requests by reason, then each metric's unscorable instances by reason."""
        if self._failures is None:
            self._failures = {}
            for run_id_, stage, reason, count in self._rows(_FAILURES_SQL):
                self._failures.setdefault(run_id_, []).append(FailureCount(stage, reason, count))
        return self._failures.get(run_id, [])

    def judges(self, run_id: str) -> list[JudgeSummary]:
        """Per jury and judge: ratings given, failures by reason, and the mean rating."""
        if self._judges is None:
            self._judges = {}
            for run_id_, jury, judge, rated, failed, mean, reasons in self._rows(_JUDGES_SQL):
                counts: dict[str, int] = {}
                for reason in reasons or []:
                    counts[reason] = counts.get(reason, 0) + 1
                self._judges.setdefault(run_id_, []).append(JudgeSummary(jury, judge, rated, failed, mean,
                                                                         dict(sorted(counts.items()))))
        return self._judges.get(run_id, [])

    def instance_count(self, run_id: str, failed_only: bool = False) -> int:
        """Instances of a run (or only those with a failure: a request, a metric or a judge)."""
        if self._counts is None:
            self._counts = {run_id_: (n, failed) for run_id_, n, failed in self._rows(_COUNTS_SQL)}
        return self._counts.get(run_id, (0, 0))[1 if failed_only else 0]

    def _rows(self, sql: str) -> list[Any]:
        """A summary query over every run of the store at once, or over the runs in scope."""
        scope = _SCOPE if self.scope is not None else ""
        params = {"runs": list(self.scope)} if self.scope is not None else {}
        return self.con.execute(sql.format(scope=scope, failed=_FAILED.format(scope=scope)), params).fetchall()

    def instances_json(self, run_id: str, offset: int = 0, limit: int | None = None,
                       failed_only: bool = False) -> Iterator[str]:
        """A run's instances in order, each one JSON object: prompt, references, answer or failure, every
        metric's score, and every judge's ratings with explanations."""
        for _, text in self.instances_json_runs([run_id], limit, failed_only, offset):
            yield text

    def instances_json_runs(self, run_ids: Sequence[str], limit: int | None = None, failed_only: bool = False,
                            offset: int = 0) -> Iterator[tuple[str, str]]:
        """(run id, instance JSON) for several runs at once, by run then instance order: the first `limit`
        instances of each run after `offset` (all when limit is None). One pass over each table."""
        failed = _FAILED_JOIN if failed_only else ""
        if limit is None:
            chosen = f"SELECT i.run_id, i.instance_id, i.ordinal FROM ({_CANDIDATES}) i {failed}"
        else:
            # The first offset + limit by ordinal of each run, kept in a bounded heap (no sort of every instance).
            chosen = _FIRST.format(candidates=_CANDIDATES, failed=failed, n=int(offset) + int(limit))
            if offset:
                chosen = (f"SELECT * FROM ({chosen}) QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY ordinal)"
                          f" > {int(offset)}")
        result = self.con.execute(_INSTANCES_SQL.format(chosen=chosen), {"runs": list(run_ids)})
        while True:
            chunk = result.fetchmany(2048)
            if not chunk:
                return
            yield from chunk

    def score_values(self, wanted: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[Any, Any]]:
        """Per (run id, metric), (instance keys, values) of the scored instances, as arrays, in one pass over
        the scores. Keys are 64-bit hashes of the instance ids (the same id gives the same key in any store
        this program reads)."""
        import numpy as np

        if not wanted:
            return {}
        found = self.con.execute(
            "SELECT w.idx, hash(s.instance_id) AS key, s.value FROM scores s JOIN (SELECT unnest($runs) AS run_id, "
            "unnest($metrics) AS metric, unnest($idx) AS idx) w ON s.run_id = w.run_id AND s.metric = w.metric "
            "WHERE s.value IS NOT NULL",
            {"runs": [r for r, _ in wanted], "metrics": [m for _, m in wanted],
             "idx": list(range(len(wanted)))}).fetchnumpy()
        order = np.argsort(found["idx"], kind="stable")
        index, keys, values = found["idx"][order], found["key"][order], found["value"][order]
        bounds = np.searchsorted(index, np.arange(len(wanted) + 1))
        return {pair: (np.asarray(keys[bounds[i]:bounds[i + 1]]), np.asarray(values[bounds[i]:bounds[i + 1]],
                                                                             dtype=float))
                for i, pair in enumerate(wanted) if bounds[i + 1] > bounds[i]}

    def instances_withheld(self, run_id: str) -> str | None:
        """Why a run's instances may not be shown (never, on the appliance: the store is local)."""
        return None

    def close(self) -> None:
        """Close the store."""
        self.handle.close()


# Counted per table first, then joined: one pass over each per-instance table for every run at once.
_RUNS_SQL = """
WITH i AS (SELECT run_id, count(*) AS n FROM instances GROUP BY run_id),
     c AS (SELECT run_id, count(*) FILTER (WHERE ok) AS ok, count(*) FILTER (WHERE NOT ok) AS failed
           FROM completions GROUP BY run_id)
SELECT r.run_id, r.suite, r.run_entry, r.scenario, r.scenario_args, r.model, r.deployment, r.main_metric, r.access,
       r.benchmark_json, r.updated_at, coalesce(i.n, 0), coalesce(c.ok, 0), coalesce(c.failed, 0)
FROM runs r LEFT JOIN i USING (run_id) LEFT JOIN c USING (run_id)
ORDER BY r.suite, r.scenario, r.model, r.run_id
"""

# `{scope}` narrows each to the runs in $runs (a viewer page reads one run), or is empty (a report reads all).
_FAILURES_SQL = """
SELECT * FROM (
    SELECT run_id, 'request' AS stage, coalesce(error_type, 'unknown') AS reason, count(*) AS n FROM completions
    WHERE NOT ok {scope} GROUP BY ALL
    UNION ALL
    SELECT run_id, metric, coalesce(error, 'unknown'), count(*) FROM scores WHERE value IS NULL {scope} GROUP BY ALL
) ORDER BY run_id, stage <> 'request', stage, n DESC, reason
"""

_JUDGES_SQL = """
SELECT run_id, jury, judge, count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok), avg(mean) FILTER (WHERE ok),
       list(coalesce(error_type, 'unknown')) FILTER (WHERE NOT ok)
FROM ratings WHERE true {scope} GROUP BY run_id, jury, judge ORDER BY run_id, jury, judge
"""

# An instance "has a failure" when its request failed, a metric could not score it, or a judge gave no rating.
_FAILED = """
SELECT run_id, instance_id FROM completions WHERE NOT ok {scope}
UNION SELECT run_id, instance_id FROM scores WHERE value IS NULL {scope}
UNION SELECT run_id, instance_id FROM ratings WHERE NOT ok {scope}
"""

_COUNTS_SQL = """
WITH f AS ({failed}),
     i AS (SELECT run_id, count(*) AS n FROM instances WHERE true {scope} GROUP BY run_id),
     fc AS (SELECT run_id, count(*) AS n FROM f GROUP BY run_id)
SELECT r.run_id, coalesce(i.n, 0), coalesce(fc.n, 0) FROM runs r LEFT JOIN i USING (run_id) LEFT JOIN fc USING (run_id)
WHERE true {scope}
"""

_SCOPE = "AND list_contains($runs, run_id)"
_FAILED_JOIN = f"SEMI JOIN ({_FAILED.format(scope=_SCOPE)}) f USING (run_id, instance_id)"

# One JSON object per instance, built by DuckDB: the runs asked for, each table read once, the window of
# instances chosen per run by their order (row_number), then joined to their request, answer, scores and ratings.
_CANDIDATES = "SELECT run_id, instance_id, ordinal FROM instances WHERE list_contains($runs, run_id)"
_FIRST = """
SELECT run_id, x.i AS instance_id, x.o AS ordinal FROM (
    SELECT i.run_id, unnest(min_by(struct_pack(i := i.instance_id, o := i.ordinal), i.ordinal, {n})) AS x
    FROM ({candidates}) i {failed} GROUP BY i.run_id)
"""

# One JSON object per instance, built by DuckDB: the instances chosen per run (`{chosen}`: run_id, instance_id,
# ordinal), each table read once, joined to their request, answer, scores and ratings.
_INSTANCES_SQL = """
WITH k AS ({chosen}), p AS (
    SELECT k.run_id, k.instance_id, k.ordinal, i.references_json FROM k JOIN instances i USING (run_id, instance_id)
    WHERE list_contains($runs, i.run_id)
), s AS (
    SELECT run_id, instance_id,
           list(struct_pack(metric := metric, value := value, extracted := extracted, error := error)) AS scores
    FROM scores SEMI JOIN k USING (run_id, instance_id) WHERE list_contains($runs, run_id) GROUP BY run_id, instance_id
), j AS (
    SELECT run_id, instance_id,
           list(struct_pack(jury := jury, judge := judge, ok := ok, mean := mean, ratings := json(ratings_json),
                            error_type := error_type, error_message := error_message)) AS ratings
    FROM ratings SEMI JOIN k USING (run_id, instance_id) WHERE list_contains($runs, run_id) GROUP BY run_id, instance_id
)
SELECT p.run_id, to_json(struct_pack(
    id := p.instance_id, ordinal := p.ordinal, prompt := q.prompt, "references" := json(p.references_json),
    ok := c.ok, answer := c.text, finish_reason := c.finish_reason, error_type := c.error_type,
    error_message := c.error_message, attempts := c.attempts,
    scores := coalesce(s.scores, []), ratings := coalesce(j.ratings, [])))
FROM p
LEFT JOIN (SELECT run_id, instance_id, prompt FROM requests SEMI JOIN k USING (run_id, instance_id)
           WHERE list_contains($runs, run_id)) q USING (run_id, instance_id)
LEFT JOIN (SELECT * FROM completions SEMI JOIN k USING (run_id, instance_id) WHERE list_contains($runs, run_id)) c
    USING (run_id, instance_id)
LEFT JOIN s USING (run_id, instance_id)
LEFT JOIN j USING (run_id, instance_id)
ORDER BY p.run_id, p.ordinal
"""
