"""A suite store opened read-only from Python (`open_suite`): its runs, metrics, per-instance rows, scores and
judge ratings as Arrow tables, read by the same functions as `runs list`, `show` and the reports."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol

from medhelm_local.errors import ConfigError, RunEntryError, StoreNotFoundError
from medhelm_local.results.aggregates import aggregate_dict, run_aggregates
from medhelm_local.settings import settings_for
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import load_kek
from medhelm_local.store.queries import instance_rows, list_runs, run_metric_names
from medhelm_local.store.run_ids import resolve_run_id
from medhelm_local.store.slices import run_slices
from medhelm_local.store.suites import is_suite_name, suite_store_path

if TYPE_CHECKING:
    import pyarrow as pa

    from medhelm_local.metrics.slices import SlicedMetric
    from medhelm_local.settings import Settings


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    import pyarrow as pa

    return pa.Table.from_pylist(rows)


_SLICE_COLUMNS = {"run_id": "string", "metric": "string", "key": "string", "value": "string", "mean": "float64",
                  "ci_low": "float64", "ci_high": "float64", "n": "int64", "n_scored": "int64", "n_failed": "int64",
                  "n_pending": "int64"}
_GAP_COLUMNS = {"run_id": "string", "metric": "string", "key": "string", "high": "string", "low": "string",
                "gap": "float64", "ci_low": "float64", "ci_high": "float64"}


def _empty(columns: dict[str, str]) -> pa.Table:
    """A table with these columns and no rows (a suite without slices still has the columns to select)."""
    import pyarrow as pa

    return pa.schema([(name, pa.type_for_alias(kind)) for name, kind in columns.items()]).empty_table()


class SuiteResults:
    """One suite store, open read-only until `close()` (or the end of a `with` block). Every table is a
    `pyarrow.Table` (`.to_pandas()` where pandas is installed); ids and values are as the CLI prints them."""

    def __init__(self, handle: StoreHandle, path: Path) -> None:
        self._handle = handle
        self.path = path

    def _run_id(self, run_id: str) -> str:
        """The whole id of the run `run_id` names (the id, or a beginning of it that names one run, as the CLI
        takes them); an error that names the argument and says how to list the ids from Python, never a command."""
        return resolve_run_id(self._handle.con, run_id, f"run_id argument (store {self.path})",
                              find_ids="the `run_id` column of `.runs()` lists them",
                              whole="`.runs()` gives them whole")

    def _metric(self, metric: str, run_ids: list[str]) -> str:
        """`metric` itself when one of these runs has it; a misspelt name is an error listing the metrics there,
        not an empty table that reads as 'nothing was scored'."""
        con = self._handle.con
        known = {m for run in run_ids for m in run_metric_names(con, run)}
        known |= {row[0] for row in con.execute("SELECT DISTINCT metric FROM run_metrics WHERE list_contains($runs, "
                                                "run_id)", {"runs": run_ids}).fetchall()}
        if metric in known or not known:
            return metric
        raise RunEntryError(f"no run here has a metric called '{metric}'", where=f"metric argument (store {self.path})",
                            fix=f"use one of: {', '.join(sorted(known))}")

    def _scope(self, run_id: str | None) -> list[str]:
        """The runs a table covers: the one `run_id` names, or every run."""
        return [self._run_id(run_id)] if run_id is not None else [r.run_id for r in list_runs(self._handle.con)]

    def runs(self) -> pa.Table:
        """Every run with its progress counts and main score (`medhelm-local runs list --json`)."""
        return _table([asdict(r) for r in list_runs(self._handle.con)])

    def metrics(self, run_id: str | None = None) -> pa.Table:
        """Each run's aggregates, one row per (run, metric), as `show --json` gives them; `detail_json` holds a
        metric's extra figures (per-label counts, unreadable answers) as JSON text."""
        con = self._handle.con
        rows = []
        for run in self._scope(run_id):  # an unknown id is an error that says how to list ids, not an empty table
            for agg in run_aggregates(con, run):
                found = aggregate_dict(agg)
                detail = found.pop("detail")
                rows.append({"run_id": run, **found,
                             "detail_json": None if detail is None else json.dumps(detail, sort_keys=True)})
        return _table(rows)

    def instances(self, run_id: str, *, failed_only: bool = False, full: bool = False) -> pa.Table:
        """One run's per-instance rows: answer, each score (a list of structs), or the failure; with `full`,
        the prompt sent and the reference answers too (`show RUN_ID --instances N --json`)."""
        return _table(instance_rows(self._handle.con, self._run_id(run_id), None, failed_only, full))

    def scores(self, run_id: str | None = None, metric: str | None = None) -> pa.Table:
        """Per-instance scores, one row per (run, instance, metric), with each run's benchmark and model: the
        table to pair two models on the same instances. `value` is null where an answer could not be scored."""
        if run_id is not None:
            run_id = self._run_id(run_id)
        if metric is not None:
            metric = self._metric(metric, self._scope(run_id))
        return self._handle.con.execute("""
            SELECT s.run_id, r.suite, r.scenario, r.model, r.deployment, s.instance_id, s.metric, s.value,
                   s.extracted, s.error
            FROM scores s JOIN runs r USING (run_id)
            WHERE ($run IS NULL OR s.run_id = $run) AND ($metric IS NULL OR s.metric = $metric)
            ORDER BY s.run_id, s.instance_id, s.metric""", {"run": run_id, "metric": metric}).fetch_arrow_table()

    def slices(self, run_id: str | None = None, metric: str | None = None) -> pa.Table:
        """Each metric per slice value of the card's slice keys, one row per (run, metric, key, value): the mean
        over the instances with that value that were scored, its 95 % bootstrap interval and the counts beside
        it (`show`'s slices); runs whose card names no slice keys have no rows."""
        rows = [{"run_id": run, "metric": s.metric, "key": v.key, "value": v.value, "mean": v.mean,
                 "ci_low": v.ci_low, "ci_high": v.ci_high, "n": v.n, "n_scored": v.n_scored,
                 "n_failed": v.n_failed, "n_pending": v.n_pending}
                for run, s in self._sliced(run_id, metric) for v in s.values]
        return _table(rows) if rows else _empty(_SLICE_COLUMNS)

    def slice_gaps(self, run_id: str | None = None, metric: str | None = None) -> pa.Table:
        """The largest gap between two values of each slice key, one row per (run, metric, key): the highest
        value's mean minus the lowest's, with its two-sample bootstrap 95 % interval."""
        rows = [{"run_id": run, "metric": s.metric, "key": s.key, "high": s.gap.high, "low": s.gap.low,
                 "gap": s.gap.gap, "ci_low": s.gap.ci_low, "ci_high": s.gap.ci_high}
                for run, s in self._sliced(run_id, metric) if s.gap is not None]
        return _table(rows) if rows else _empty(_GAP_COLUMNS)

    def _sliced(self, run_id: str | None, metric: str | None) -> list[tuple[str, SlicedMetric]]:
        con = self._handle.con
        ids = self._scope(run_id)
        if metric is not None:
            metric = self._metric(metric, ids)
        return [(run, s) for run in ids for s in run_slices(con, run) if metric is None or s.metric == metric]

    def ratings(self, run_id: str | None = None) -> pa.Table:
        """Judge ratings, one row per (run, instance, jury, judge); a failed judge is a row with `ok` false and
        its error, never a rating. `ratings_json` holds the per-criterion scores and explanations."""
        run = None if run_id is None else self._run_id(run_id)
        return self._handle.con.execute("""
            SELECT run_id, instance_id, jury, judge, rubric, ok, mean, ratings_json, error_type, error_message,
                   latency_s, attempts
            FROM ratings WHERE $run IS NULL OR run_id = $run
            ORDER BY run_id, instance_id, jury, judge""", {"run": run}).fetch_arrow_table()

    def close(self) -> None:
        """Close the store."""
        self._handle.close()

    def __enter__(self) -> SuiteResults:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SuiteResults({str(self.path)!r})"


class StoredSuite(Protocol):
    """What `evaluate()` returns (a `SuiteRun`, which run/ defines above this package): anything naming its store."""

    @property
    def store(self) -> Path:
        """The suite's store file."""
        ...


def open_suite(suite: str | Path | StoredSuite, settings: Settings | str | Path | None = None) -> SuiteResults:
    """Open a suite store read-only with the KEK the settings name: `suite` is a store file, the name of a
    suite in the output folder (`<output_dir>/<suite>.duckdb`), or the SuiteRun `evaluate()` returned.
    `settings`: a Settings object or a config file (default: as the CLI finds one). StoreNotFoundError if
    there is no such store, StoreKeyError for a KEK that does not open it."""
    loaded = settings_for(settings)
    if not isinstance(suite, (str, Path)) and isinstance(getattr(suite, "store", None), Path):
        suite = suite.store  # what evaluate() returned (a SuiteRun): its store
    if not isinstance(suite, (str, Path)):
        raise ConfigError(f"suite must be a suite name, a store file or what evaluate() returned, not "
                          f"{type(suite).__name__}", where="suite argument",
                          fix="pass e.g. 'trial', run.store, or run (the SuiteRun evaluate() returned)")
    path = Path(suite)
    if isinstance(suite, str) and path.suffix != ".duckdb" and is_suite_name(suite):
        path = suite_store_path(loaded.output_dir, suite)
        if not path.exists():  # a misspelt suite name: say which suites there are, as `make_report` does
            known = ", ".join(sorted(p.stem for p in loaded.output_dir.glob("*.duckdb"))) or "none"
            raise StoreNotFoundError(f"there is no store for suite '{suite}' (suites in the output folder: {known})",
                                     where=str(path), fix="check the suite name (`output_dir` in your settings "
                                                          "is where suites are looked for), or give the store file")
    handle = open_store(path, load_kek(loaded), read_only=True, memory_limit=loaded.store_memory_limit)
    return SuiteResults(handle, path)
