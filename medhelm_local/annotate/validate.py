"""`judge validate`: does the jury agree with this hospital's clinicians? MedHELM's validation table, locally.

Clinicians rate some answers of a suite in a CSV file: `run_id` (or `--run`), `instance_id`,
`clinician`, and a column per rubric criterion they rated (`accuracy`, `completeness`, `clarity`)
and/or `score` (an overall rating), on the rubric's scale. A clinician's rating of an answer is
their mean over the columns they filled. Then, each with a 95 % bootstrap interval over instances:

    jury vs clinicians        the mean ICC over (jury, clinician) pairs
    clinician vs clinician    the mean ICC over pairs of clinicians
    rouge_l vs clinicians     the mean ICC over (ROUGE-L, clinician) pairs, ROUGE-L put on the rubric's
                              scale by its range (0 -> lowest point, 1 -> highest)

The ICC is ICC(3,1) (two-way mixed, consistency, single rater): one rater against one rater, with
a rater's constant offset not counted against it, so ROUGE-L's different spread of values can be
compared at all; ICC(2,1) (absolute agreement) is shown beside it. Per criterion, jury vs
clinicians is also given. The file is checked completely before anything is computed: an unknown
run or instance id, a value off the scale, an unknown column is an error naming the line. Nothing
is written to the store.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from medhelm_local.annotate.rubric import Rubric
from medhelm_local.errors import ConfigError
from medhelm_local.metrics.agreement import pairwise_icc
from medhelm_local.metrics.rouge import ROUGE_L

KEYS = ("run_id", "instance_id", "clinician")
OVERALL = "score"
SHOWN = 5


@dataclass(frozen=True)
class Comparison:
    """One row of the validation table."""

    comparison: str
    pairs: int
    instances: int
    icc: float
    ci_low: float
    ci_high: float
    icc_absolute: float


@dataclass
class ClinicianRatings:
    """Clinicians' ratings, by (run, instance): clinician -> {column: score}."""

    units: dict[tuple[str, str], dict[str, dict[str, float]]] = field(default_factory=dict)
    columns: list[str] = field(default_factory=list)

    @property
    def clinicians(self) -> list[str]:
        """Every clinician named in the file."""
        return sorted({c for by in self.units.values() for c in by})


def _fail(what: str, path: Path, fix: str) -> ConfigError:
    return ConfigError(what, where=str(path), fix=fix)


def read_ratings(path: Path, rubric: Rubric, known: dict[str, set[str]], default_run: str | None) -> ClinicianRatings:
    """Read and check a clinicians' ratings CSV against the runs' instances and the rubric's scale."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            reader = csv.DictReader(fh)
            lines = [(reader.line_num, row) for row in reader]  # the line each row ends on, for messages
            header = [h.strip() for h in reader.fieldnames or []]
    except OSError as exc:
        raise _fail(f"cannot read the ratings file ({exc.strerror})", path, "check the path") from None
    for line, row in lines:
        if None in row:  # more cells than the header names: they would be dropped without a word
            raise _fail(f"line {line} has {len(row[None])} cell(s) more than the header's {len(header)} columns",
                        path, "quote cells that hold a comma, or remove the extra cells")
    rows = [row for _, row in lines]
    if not rows:
        raise _fail("the ratings file holds no rows", path, "write a header line and one row per clinician rating")
    scored = [c for c in rubric.criterion_names if c in header] + ([OVERALL] if OVERALL in header else [])
    required = [k for k in KEYS if not (k == "run_id" and default_run)]
    unknown = [h for h in header if h not in (*KEYS, *rubric.criterion_names, OVERALL)]
    if unknown or any(k not in header for k in required) or not scored:
        raise _fail(f"the ratings file's columns are not the expected ones (unknown: {', '.join(unknown) or 'none'})",
                    path, f"use {', '.join(required)}, then {OVERALL} and/or the rubric's criteria "
                          f"({', '.join(rubric.criterion_names)})")
    low, high = rubric.scale.min, rubric.scale.max
    found = ClinicianRatings(columns=scored)
    bad_ids: list[str] = []
    for line, row in lines:
        run_id = (row.get("run_id") or default_run or "").strip()
        instance_id, clinician = (row.get("instance_id") or "").strip(), (row.get("clinician") or "").strip()
        if not instance_id:
            raise _fail(f"line {line}: the instance_id cell is empty", path,
                        "give the id of the answer rated, as `medhelm-local show RUN_ID --instances N` prints it")
        if run_id not in known:
            raise _fail(f"line {line}: run '{run_id}' is not a judged run of this store", path,
                        f"use one of: {', '.join(sorted(known))}")
        if instance_id not in known[run_id]:
            bad_ids.append(f"{instance_id or '(empty)'} (line {line})")
            continue
        if not clinician:
            raise _fail(f"line {line}: no clinician is named", path, "name who gave each rating (an id is enough)")
        values: dict[str, float] = {}
        for column in scored:
            text = (row.get(column) or "").strip()
            if not text:
                continue
            try:
                value = float(text)
            except ValueError:
                value = float("nan")
            if not low <= value <= high:
                raise _fail(f"line {line}: {column} = {text!r} is off the rubric's scale ({low}-{high})", path,
                            f"give whole or decimal points from {low} to {high}")
            values[column] = value
        by = found.units.setdefault((run_id, instance_id), {})
        if clinician in by:
            raise _fail(f"line {line}: clinician {clinician} rates {instance_id} of {run_id} twice", path,
                        "keep one row per clinician and answer")
        if values:
            by[clinician] = values
    if bad_ids:
        raise _fail(f"{len(bad_ids)} instance id(s) are not instances of their run: {', '.join(bad_ids[:SHOWN])}",
                    path, "use the ids `medhelm-local show RUN_ID --instances N` prints")
    return found


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _store_values(con: duckdb.DuckDBPyConnection, units: Sequence[tuple[str, str]], jury: dict[str, str],
                  criteria: Sequence[str]) -> tuple[dict[str, list[float | None]], list[float | None]]:
    """Per unit: the jury's overall and per-criterion ratings (means over the judges that rated), and ROUGE-L."""
    jury_values: dict[str, list[float | None]] = {name: [] for name in (OVERALL, *criteria)}
    rouge: list[float | None] = []
    for run_id, instance_id in units:
        rows = con.execute("SELECT mean, ratings_json FROM ratings WHERE run_id = ? AND instance_id = ? AND jury = ? "
                           "AND ok", [run_id, instance_id, jury.get(run_id)]).fetchall()
        jury_values[OVERALL].append(_mean([float(m) for m, _ in rows]))
        parsed = [json.loads(r or "{}") for _, r in rows]
        for criterion in criteria:
            jury_values[criterion].append(_mean([float(p[criterion]["score"]) for p in parsed if criterion in p]))
        found = con.execute("SELECT value FROM scores WHERE run_id = ? AND instance_id = ? AND metric = ?",
                            [run_id, instance_id, ROUGE_L]).fetchone()
        rouge.append(None if found is None or found[0] is None else float(found[0]))
    return jury_values, rouge


def _row(name: str, columns: dict[str, list[float | None]], pairs: list[tuple[str, str]]) -> Comparison:
    icc, low, high, used = pairwise_icc(columns, pairs, "ICC(3,1)")
    absolute = pairwise_icc(columns, pairs, "ICC(2,1)", samples=1)[0]
    return Comparison(name, len(pairs), used, icc, low, high, absolute)


def validation_table(con: duckdb.DuckDBPyConnection, ratings: ClinicianRatings, rubric: Rubric,
                     jury: dict[str, str]) -> list[Comparison]:
    """The validation table: jury, clinicians and ROUGE-L against clinicians (see the module docstring)."""
    units = sorted(ratings.units)
    clinicians = ratings.clinicians
    criteria = [c for c in ratings.columns if c != OVERALL]
    jury_values, rouge = _store_values(con, units, jury, criteria)
    low, high = rubric.scale.min, rubric.scale.max

    def clinician_column(name: str, column: str | None) -> list[float | None]:
        out: list[float | None] = []
        for unit in units:
            given = ratings.units[unit].get(name, {})
            out.append(given.get(column) if column else _mean(list(given.values())))
        return out

    overall = {f"clinician {c}": clinician_column(c, None) for c in clinicians}
    columns = {**overall, "jury": jury_values[OVERALL],
               "rouge": [None if r is None else low + (high - low) * r for r in rouge]}
    names = list(overall)
    table = [_row("jury vs clinicians", columns, [("jury", c) for c in names])]
    if len(names) > 1:
        table.append(_row("clinician vs clinician", columns,
                          [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]))
    if any(r is not None for r in rouge):
        table.append(_row(f"{ROUGE_L} vs clinicians", columns, [("rouge", c) for c in names]))
    for criterion in criteria:
        per = {f"clinician {c}": clinician_column(c, criterion) for c in clinicians}
        per["jury"] = jury_values[criterion]
        table.append(_row(f"jury vs clinicians: {criterion}", per, [("jury", c) for c in per if c != "jury"]))
    return table


def table_json(rows: Sequence[Comparison]) -> list[dict[str, Any]]:
    """The table as plain data (nan as None)."""
    def clean(value: float) -> float | None:
        return None if value != value else value  # nan

    return [{"comparison": r.comparison, "pairs": r.pairs, "instances": r.instances, "icc_3_1": clean(r.icc),
             "ci_low": clean(r.ci_low), "ci_high": clean(r.ci_high), "icc_2_1": clean(r.icc_absolute)} for r in rows]


@dataclass(frozen=True)
class ValidationReport:
    """The validation table and what it was computed from."""

    rows: list[Comparison]
    runs: list[str]
    clinicians: list[str]
    rubric: str

    def as_json(self) -> dict[str, Any]:
        """Plain data for --json."""
        return {"runs": self.runs, "clinicians": self.clinicians, "rubric": self.rubric, "icc_form": "ICC(3,1)",
                "comparisons": table_json(self.rows)}


def _judged_runs(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[Rubric, str | None]]:
    """Runs of the store scored by a jury: run id -> (rubric, the jury their scores come from)."""
    from medhelm_local.scenarios import create

    found: dict[str, tuple[Rubric, str | None]] = {}
    for run_id, scenario, args, settings in con.execute(
            "SELECT run_id, scenario, scenario_args, settings FROM runs").fetchall():
        benchmark = create(scenario, json.loads(args or "{}"))
        rubric = benchmark.spec.rubric
        if benchmark.judged and rubric is not None:
            found[run_id] = (rubric, json.loads(settings or "{}").get("jury"))
    return found


def validation_report(con: duckdb.DuckDBPyConnection, path: Path, run: str | None,
                      jury: str | None) -> ValidationReport:
    """Check the ratings file against the store, then compute the validation table."""
    judged = _judged_runs(con)
    if run is not None and run not in judged:
        raise ConfigError(f"run '{run}' is not a jury-scored run of this store", where="--run",
                          fix=f"use one of: {', '.join(sorted(judged)) or 'none (judge a suite first)'}")
    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            named = {(r.get("run_id") or run or "").strip() for r in csv.DictReader(fh)}
    except OSError as exc:
        raise _fail(f"cannot read the ratings file ({exc.strerror})", path, "check the path") from None
    unknown = sorted(n for n in named if n not in judged)
    if unknown:
        raise _fail(f"the ratings file names run(s) {', '.join(unknown[:SHOWN])}, which are not jury-scored runs of "
                    "this store", path, f"use one of: {', '.join(sorted(judged)) or 'none (judge a suite first)'}")
    rubrics = {judged[n][0].name for n in named}
    if len(rubrics) != 1:
        raise _fail(f"the ratings file rates runs of different rubrics ({', '.join(sorted(rubrics))})", path,
                    "validate one benchmark's rubric per file")
    rubric = judged[next(iter(named))][0]
    known = {n: {r[0] for r in con.execute("SELECT instance_id FROM instances WHERE run_id = ?", [n]).fetchall()}
             for n in named}
    ratings = read_ratings(path, rubric, known, run)
    juries = {n: jury or judged[n][1] or "" for n in named}
    rows = validation_table(con, ratings, rubric, juries)
    return ValidationReport(rows, sorted(named), ratings.clinicians, rubric.name)
