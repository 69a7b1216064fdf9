"""The artifacts of an export, read from a suite store and shaped for the bundle.

Each builder takes the runs whose artifact leaves and a `Shaper` that applies each run's
treatment: `as_is` passes values through; `redacted` sends every free-text value through the
scrubber and replaces instance ids with pseudonyms. Logprobs never leave: their token fragments
are pieces of text that cannot be redacted reliably.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import duckdb

from medhelm_local.export.scrubber import Scrubber
from medhelm_local.store.queries import run_aggregates


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


@dataclass
class Shaper:
    """Applies each run's treatment of one artifact to ids and text."""

    artifact: str
    treatments: Mapping[str, str]  # run_id -> as_is | redacted
    scrubber: Scrubber

    def redacted(self, run_id: str) -> bool:
        """True when this run's artifact is redacted."""
        return self.treatments[run_id] == "redacted"

    def instance(self, run_id: str, instance_id: str) -> str:
        """The id as it leaves: itself, or a pseudonym ("" stays "": a run-level value, no instance)."""
        if not instance_id or not self.redacted(run_id):
            return instance_id
        return self.scrubber.pseudonym(run_id, instance_id)

    def text(self, run_id: str, instance_id: str, field: str, value: str | None) -> str | None:
        """A free-text value as it leaves."""
        if not self.redacted(run_id):
            return value
        where = (self.artifact, run_id, self.instance(run_id, instance_id), field)
        return self.scrubber.text(value, f"{run_id}\0{instance_id}", where)

    def json_text(self, run_id: str, instance_id: str, field: str, value: str | None) -> str | None:
        """A JSON value whose strings are free text, as it leaves."""
        if not self.redacted(run_id):
            return value
        where = (self.artifact, run_id, self.instance(run_id, instance_id), field)
        return self.scrubber.json_text(value, f"{run_id}\0{instance_id}", where)


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


def aggregates_artifact(run_ids: list[str], con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per run and metric: mean, 95 % interval and the counts beside it (numbers only)."""
    out = []
    for run_id in run_ids:
        for agg in run_aggregates(con, run_id):
            out.append({"run_id": run_id, **asdict(agg), "n_pending": agg.n_pending})
    return out


def scores_artifact(run_ids: list[str], shaper: Shaper, con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per instance and metric: the score and the answer the metric read."""
    out = []
    for run_id in run_ids:
        for instance_id, metric, value, extracted in con.execute(
                "SELECT s.instance_id, s.metric, s.value, s.extracted FROM scores s JOIN instances i "
                "USING (run_id, instance_id) WHERE s.run_id = ? ORDER BY i.ordinal, s.metric", [run_id]).fetchall():
            out.append({"run_id": run_id, "instance": shaper.instance(run_id, instance_id), "metric": metric,
                        "value": value, "extracted": shaper.text(run_id, instance_id, "extracted", extracted)})
    return out


def completions_artifact(run_ids: list[str], shaper: Shaper, con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per instance: the model's answer or why there is none, with tokens and latency."""
    out = []
    for run_id in run_ids:
        for row in con.execute(
                "SELECT c.instance_id, c.ok, c.text, c.finish_reason, c.prompt_tokens, c.completion_tokens, "
                "c.latency_s, c.attempts, c.error_type, c.error_message FROM completions c JOIN instances i "
                "USING (run_id, instance_id) WHERE c.run_id = ? ORDER BY i.ordinal", [run_id]).fetchall():
            instance_id = row[0]
            out.append({"run_id": run_id, "instance": shaper.instance(run_id, instance_id), "ok": row[1],
                        "text": shaper.text(run_id, instance_id, "text", row[2]), "finish_reason": row[3],
                        "prompt_tokens": row[4], "completion_tokens": row[5], "latency_s": row[6],
                        "attempts": row[7], "error_type": row[8],
                        "error_message": shaper.text(run_id, instance_id, "error_message", row[9])})
    return out


def prompts_artifact(run_ids: list[str], shaper: Shaper, con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per instance: the prompt sent and the reference answers."""
    out = []
    for run_id in run_ids:
        for instance_id, prompt, references in con.execute(
                "SELECT i.instance_id, r.prompt, i.references_json FROM instances i LEFT JOIN requests r "
                "USING (run_id, instance_id) WHERE i.run_id = ? ORDER BY i.ordinal", [run_id]).fetchall():
            out.append({"run_id": run_id, "instance": shaper.instance(run_id, instance_id),
                        "prompt": shaper.text(run_id, instance_id, "prompt", prompt),
                        "references": json.loads(shaper.json_text(run_id, instance_id, "references",
                                                                  references) or "[]")})
    return out
