"""The artifacts of an export, read from a suite store and shaped for the bundle.

Which tables and columns make up an artifact, and how each column leaves, come from the schema
declaration (`store.schema`): a column added there is exported with its treatment and no edit
here. Each builder takes the runs whose artifact leaves and a `Shaper` that applies each run's
treatment: `as_is` passes values through; `redacted` sends every free-text value through the
scrubber and replaces instance ids with pseudonyms. A column that carries another artifact's text
(the answer a metric read, in `scores`) leaves only where that artifact may, and as strictly.
Logprobs never leave: their token fragments are pieces of text that cannot be redacted reliably.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import duckdb

from medhelm_local.export.scrubber import Scrubber
from medhelm_local.policy.rules import may_leave_unredacted
from medhelm_local.results.aggregates import aggregate_dict, run_aggregates
from medhelm_local.store.schema import Column, Table, artifact_tables


@dataclass(frozen=True)
class RunRow:
    """A run as the export sees it: its labels, access level and counts."""

    run_id: str
    suite: str
    run_entry: str
    scenario: str
    scenario_args: str
    model: str
    deployment: str
    main_metric: str
    access: str
    created_at: datetime
    updated_at: datetime


def read_runs(con: duckdb.DuckDBPyConnection) -> list[RunRow]:
    """Every run in the store, in a stable order."""
    rows = con.execute("SELECT run_id, suite, run_entry, scenario, scenario_args, model, deployment, main_metric, "
                       "access, created_at, updated_at FROM runs ORDER BY suite, scenario, model, run_id").fetchall()
    return [RunRow(*row) for row in rows]


# For a column that carries another artifact's text: how that artifact leaves this run
# ("as_is", "redacted" or "never").
Carried = Callable[[str, str], str]


@dataclass
class Shaper:
    """Applies each run's treatment of one artifact to ids and text."""

    artifact: str
    treatments: Mapping[str, str]  # run_id -> as_is | redacted
    scrubber: Scrubber
    access: Mapping[str, str] | None = None  # run_id -> public | gated | private (labels of sensitive runs)

    def redacted(self, run_id: str) -> bool:
        """True when this run's artifact is redacted."""
        return self.treatments[run_id] == "redacted"

    def instance(self, run_id: str, instance_id: str) -> str:
        """The id as it leaves: itself, or a pseudonym ("" stays "": a run-level value, no instance)."""
        if not instance_id or not self.redacted(run_id):
            return instance_id
        return self.scrubber.pseudonym(run_id, instance_id)

    def text(self, run_id: str, instance_id: str, field: str, value: str | None, force: bool = False) -> str | None:
        """A free-text value as it leaves (`force`: redacted whatever this artifact's treatment)."""
        if not (force or self.redacted(run_id)):
            return value
        where = (self.artifact, run_id, self.instance(run_id, instance_id), field)
        return self.scrubber.text(value, f"{run_id}\0{instance_id}", where)

    def json_text(self, run_id: str, instance_id: str, field: str, value: str | None,
                  force: bool = False) -> str | None:
        """A JSON value whose strings are free text, as it leaves."""
        if not (force or self.redacted(run_id)):
            return value
        where = (self.artifact, run_id, self.instance(run_id, instance_id), field)
        return self.scrubber.json_text(value, f"{run_id}\0{instance_id}", where)

    def sensitive(self, run_id: str) -> bool:
        """True for runs of gated or private benchmarks, whose labels are redacted too."""
        return not may_leave_unredacted((self.access or {}).get(run_id, "private"))

    def column(self, column: Column, run_id: str, instance_id: str, value: Any, stricter: bool = False) -> Any:
        """One stored value as it leaves, by its column's declared treatment; JSON columns parsed."""
        treatment = column.treatment
        if treatment == "instance_id":
            return self.instance(run_id, instance_id)
        if treatment in ("label", "json_label"):
            force = self.sensitive(run_id)
            shaped = (self.json_text(run_id, instance_id, column.name, value, force=True) if treatment == "json_label"
                      else self.text(run_id, instance_id, column.name, value, force=True)) if force else value
        elif treatment == "json_text":
            shaped = self.json_text(run_id, instance_id, column.name, value, force=stricter)
        elif treatment == "text":
            shaped = self.text(run_id, instance_id, column.name, value, force=stricter)
        else:
            shaped = value
        if column.is_json and isinstance(shaped, str):
            return json.loads(shaped)
        if isinstance(shaped, datetime):
            return shaped.isoformat() + "Z"
        return shaped


def runs_artifact(runs: list[RunRow], shaper: Shaper, con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Run metadata and counts (labels of redacted runs are scanned like text)."""
    out = []
    for run in runs:
        counts = con.execute(
            "SELECT (SELECT count(*) FROM instances WHERE run_id = $r), "
            "(SELECT count(*) FROM completions WHERE run_id = $r AND ok), "
            "(SELECT count(*) FROM completions WHERE run_id = $r AND NOT ok)", {"r": run.run_id}).fetchone()
        n, ok, failed = counts or (0, 0, 0)
        out.append({"run_id": run.run_id, "suite": run.suite, "benchmark": run.scenario,
                    "run_entry": shaper.text(run.run_id, "", "run_entry", run.run_entry),
                    "benchmark_args": json.loads(shaper.json_text(run.run_id, "", "benchmark_args",
                                                                  run.scenario_args) or "{}"),
                    "model": run.model, "deployment": run.deployment, "main_metric": run.main_metric,
                    "access": run.access, "created_at": run.created_at.isoformat() + "Z",
                    "updated_at": run.updated_at.isoformat() + "Z",
                    "instances": n, "completed": ok, "failed": failed, "pending": n - ok - failed})
    return out


def aggregates_artifact(run_ids: list[str], shaper: Shaper, con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per run and metric: the value, 95 % interval and the counts beside it; label names in a
    per-label breakdown are redacted for gated and private runs."""
    out = []
    for run_id in run_ids:
        for agg in run_aggregates(con, run_id):
            row = {"run_id": run_id, **aggregate_dict(agg)}
            if agg.detail is not None and shaper.sensitive(run_id):
                row["detail"] = json.loads(shaper.json_text(run_id, "", "detail", json.dumps(agg.detail),
                                                            force=True) or "null")
            out.append(row)
    return out


def _select(tables: tuple[Table, ...]) -> tuple[str, list[tuple[Table, Column]]]:
    """One query over an artifact's tables joined on (run_id, instance_id), in instance order."""
    first = tables[0]
    columns: list[tuple[Table, Column]] = []
    for table in tables:
        columns += [(table, c) for c in table.columns if c.treatment != "drop"
                    and not (table is not first and c.name in ("run_id", "instance_id"))]
    joins = "".join(f" LEFT JOIN {t.name} USING (run_id, instance_id)" for t in tables[1:])
    order = "" if "instances" in {t.name for t in tables} else " JOIN instances USING (run_id, instance_id)"
    extra_key = [k for k in first.key if k not in ("run_id", "instance_id")]
    names = ", ".join(f"{t.name}.{c.name}" for t, c in columns)
    sql = (f"SELECT {names} FROM {first.name}{joins}{order} WHERE {first.name}.run_id = ? "
           f"ORDER BY instances.ordinal{''.join(f', {first.name}.{k}' for k in extra_key)}")
    return sql, columns


def rows_artifact(artifact: str, run_ids: list[str], shaper: Shaper, con: duckdb.DuckDBPyConnection,
                  carried: Carried) -> list[dict[str, Any]]:
    """Per-instance rows of an artifact (prompts, completions, scores), every column as declared."""
    sql, columns = _select(artifact_tables(artifact))
    out = []
    for run_id in run_ids:
        for values in con.execute(sql, [run_id]).fetchall():
            record = dict(zip((c.name for _, c in columns), values, strict=True))
            instance_id = str(record.get("instance_id") or "")
            row: dict[str, Any] = {}
            for _, column in columns:
                if column.carries is not None:
                    how = carried(run_id, column.carries)
                    if how == "never":
                        continue  # that text may not leave for this run: the column is left out
                    row[column.export_name] = shaper.column(column, run_id, instance_id, record[column.name],
                                                            stricter=how == "redacted")
                else:
                    row[column.export_name] = shaper.column(column, run_id, instance_id, record[column.name])
            out.append(row)
    return out


def withheld_columns(artifact: str, run_ids: list[str], carried: Callable[[str, str], str]) -> list[dict[str, str]]:
    """Columns of an artifact left out for a run because they hold text of an artifact that may not leave."""
    return [{"run_id": run_id, "artifact": f"{artifact}.{column.export_name}",
             "reason": f"it can hold {column.carries} text, and {column.carries} may not leave for this run"}
            for table in artifact_tables(artifact) for column in table.columns if column.carries is not None
            for run_id in run_ids if carried(run_id, column.carries) == "never"]
