"""`judge validate`: does the jury agree with this hospital's clinicians? MedHELM's validation table, locally.

Clinicians rate some answers in a ratings file (`annotate.ratings_file`: this project's layout or
MedHELM's published one). The jury's ratings come from the suite's store, or from the file itself
(rater `jury`, or MedHELM's `llm_<criterion>` columns: then no store is needed, so a jury run
elsewhere, or MedHELM's own published table, can be checked anywhere). Per answer, a clinician's
composite is their mean over the columns they filled, and the jury's the mean over the same criteria
of the judges' mean ratings (over all the rubric's criteria when clinicians gave only `score`).

Two tables:

    MedHELM's table      per benchmark and pooled, MedHELM's four statistics
                         (`metrics.medhelm_agreement`): ICC3k on z-scores between the jury and the
                         clinicians' mean (the figure MedHELM reported), Spearman, quadratic-weighted
                         kappa, and the ICC3k-z of the two clinicians who overlap most
    single raters        pooled, this project's figures: the mean ICC(3,1) over pairs of single
                         raters (jury and each clinician, clinicians with each other, ROUGE-L and
                         each clinician when a store gives it), with a bootstrap interval, and
                         ICC(2,1) beside it; per criterion, jury vs clinicians

Nothing is written anywhere.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from medhelm_local.annotate.ratings_file import (
    OVERALL,
    SHOWN,
    AnswerKey,
    RatingsFile,
    fail,
    read_ratings_file,
    runs_named,
)
from medhelm_local.annotate.rubric import Rubric, load_rubric
from medhelm_local.errors import ConfigError
from medhelm_local.metrics.agreement import pairwise_icc
from medhelm_local.metrics.medhelm_agreement import Answer, MedhelmRow, medhelm_row
from medhelm_local.metrics.rouge import ROUGE_L

if TYPE_CHECKING:
    import pyarrow as pa

POOLED = "pooled"
ALL = "all"  # the benchmark of answers a file without a store names by no benchmark or run
DEFAULT_RUBRIC = "clinical_note"  # MedHELM's jury criteria (accuracy, completeness, clarity) on 1-5


@dataclass(frozen=True)
class Comparison:
    """One row of the single-rater table."""

    comparison: str
    pairs: int
    instances: int
    icc: float
    ci_low: float
    ci_high: float
    icc_absolute: float


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _composite(values: dict[str, float], criteria: Sequence[str]) -> float | None:
    """The mean over the criteria (all of them when none is named; `score` when only it is given)."""
    if criteria:
        return _mean([values[c] for c in criteria if c in values])
    if OVERALL in values:
        return values[OVERALL]
    return _mean([v for c, v in values.items() if c != OVERALL])


def _store_jury(con: duckdb.DuckDBPyConnection, keys: Sequence[AnswerKey], jury: dict[str, str],
                rubric: Rubric) -> tuple[dict[AnswerKey, dict[str, float]], dict[AnswerKey, float]]:
    """Per answer, the jury's mean rating per criterion (over the judges that rated it) and its ROUGE-L."""
    ratings: dict[AnswerKey, dict[str, float]] = {}
    rouge: dict[AnswerKey, float] = {}
    for key in keys:
        rows = con.execute("SELECT ratings_json FROM ratings WHERE run_id = ? AND instance_id = ? AND jury = ? AND ok",
                           [key.run_id, key.instance_id, jury.get(key.run_id)]).fetchall()
        parsed = [json.loads(r or "{}") for (r,) in rows]
        means = {c: m for c in rubric.criterion_names
                 if (m := _mean([float(p[c]["score"]) for p in parsed if c in p])) is not None}
        if means:
            ratings[key] = means
        found = con.execute("SELECT value FROM scores WHERE run_id = ? AND instance_id = ? AND metric = ?",
                            [key.run_id, key.instance_id, ROUGE_L]).fetchone()
        if found is not None and found[0] is not None:
            rouge[key] = float(found[0])
    return ratings, rouge


def _pairs_row(name: str, columns: dict[str, list[float | None]], pairs: list[tuple[str, str]]) -> Comparison:
    icc, low, high, used = pairwise_icc(columns, pairs, "ICC(3,1)")
    absolute = pairwise_icc(columns, pairs, "ICC(2,1)", samples=1)[0]
    return Comparison(name, len(pairs), used, icc, low, high, absolute)


def single_rater_table(ratings: RatingsFile, jury: dict[AnswerKey, dict[str, float]],
                       rouge: dict[AnswerKey, float], rubric: Rubric) -> list[Comparison]:
    """This project's table: mean pairwise ICC(3,1) (and ICC(2,1)) of single raters, pooled over every answer."""
    keys = sorted(ratings.clinicians)
    names = ratings.names
    criteria = ratings.criteria
    low, high = rubric.scale.min, rubric.scale.max

    def clinician(name: str, column: str | None) -> list[float | None]:
        given = [ratings.clinicians[k].get(name, {}) for k in keys]
        return [g.get(column) if column else _mean(list(g.values())) if g else None for g in given]

    overall = {f"clinician {c}": clinician(c, None) for c in names}
    columns = {**overall, "jury": [_composite(jury[k], criteria) if k in jury else None for k in keys],
               "rouge": [low + (high - low) * rouge[k] if k in rouge else None for k in keys]}
    table = [_pairs_row("jury vs clinicians", columns, [("jury", c) for c in overall])]
    if len(names) > 1:
        table.append(_pairs_row("clinician vs clinician", columns,
                                [(a, b) for i, a in enumerate(overall) for b in list(overall)[i + 1:]]))
    if rouge:
        table.append(_pairs_row(f"{ROUGE_L} vs clinicians", columns, [("rouge", c) for c in overall]))
    for criterion in criteria:
        per: dict[str, list[float | None]] = {f"clinician {c}": clinician(c, criterion) for c in names}
        per["jury"] = [jury[k].get(criterion) if k in jury else None for k in keys]
        table.append(_pairs_row(f"jury vs clinicians: {criterion}", per, [("jury", c) for c in per if c != "jury"]))
    return table


def medhelm_table(ratings: RatingsFile, jury: dict[AnswerKey, dict[str, float]], rubric: Rubric) -> list[MedhelmRow]:
    """MedHELM's table: its four statistics per benchmark, then pooled over them all (when there are several)."""
    criteria = ratings.criteria
    answers: dict[str, list[Answer]] = {}
    for key, by in sorted(ratings.clinicians.items()):
        composites = {name: c for name, values in by.items() if (c := _composite(values, criteria)) is not None}
        answers.setdefault(key.benchmark, []).append(
            Answer(key, composites, _composite(jury[key], criteria) if key in jury else None))
    scale = (rubric.scale.min, rubric.scale.max)
    rows = [medhelm_row(name, group, scale) for name, group in sorted(answers.items())]
    if len(rows) > 1:
        rows.append(medhelm_row(POOLED, [a for group in answers.values() for a in group], scale))
    return rows


@dataclass(frozen=True)
class ValidationReport:
    """Both tables, and what they were computed from."""

    medhelm: list[MedhelmRow]
    rows: list[Comparison]
    runs: list[str]
    clinicians: list[str]
    rubric: str
    jury_from: str  # store | file
    composite: list[str]  # the criteria averaged into a composite (empty: the overall `score`)

    def as_json(self) -> dict[str, Any]:
        """Plain data for --json (undefined figures as None)."""
        def clean(value: float) -> float | None:
            return None if value != value else value  # nan

        medhelm = [{"benchmark": r.name, "answers": r.answers, "clinicians": r.clinicians,
                    "icc3k_z": asdict(r.icc3k_z), "spearman": asdict(r.spearman),
                    "weighted_kappa": asdict(r.weighted_kappa), "clinicians_icc3k_z": asdict(r.clinicians_icc3k_z),
                    "clinician_pair": list(r.pair) if r.pair else None, "clinician_pair_answers": r.pair_answers}
                   for r in self.medhelm]
        single = [{"comparison": r.comparison, "pairs": r.pairs, "instances": r.instances, "icc_3_1": clean(r.icc),
                   "ci_low": clean(r.ci_low), "ci_high": clean(r.ci_high), "icc_2_1": clean(r.icc_absolute)}
                  for r in self.rows]
        return {"runs": self.runs, "clinicians": self.clinicians, "rubric": self.rubric, "jury_from": self.jury_from,
                "composite": self.composite or [OVERALL], "medhelm": medhelm, "icc_form": "ICC(3,1)",
                "comparisons": single}

    def medhelm_arrow(self) -> pa.Table:
        """MedHELM's table as Arrow, a row per benchmark (and `pooled`): `answers`, `clinicians`, each statistic
        with its interval (`icc3k_z`, `icc3k_z_low`, `icc3k_z_high`, ... `spearman`, `weighted_kappa`,
        `clinicians_icc3k_z`), `clinician_pair`, `clinician_pair_answers`; undefined figures null."""
        import pyarrow as pa

        rows = []
        for row in self.medhelm:
            flat: dict[str, Any] = {"benchmark": row.name, "answers": row.answers, "clinicians": row.clinicians}
            for name in _STATISTICS:
                estimate = getattr(row, name)
                flat |= {name: estimate.value, f"{name}_low": estimate.low, f"{name}_high": estimate.high}
            flat |= {"clinician_pair": list(row.pair) if row.pair else None, "clinician_pair_answers": row.pair_answers}
            rows.append(flat)
        return pa.Table.from_pylist(rows, schema=_medhelm_schema())

    def single_raters_arrow(self) -> pa.Table:
        """The single-rater table as Arrow, a row per comparison: `pairs`, `instances`, `icc_3_1` with `ci_low`,
        `ci_high`, and `icc_2_1`; undefined figures null."""
        import pyarrow as pa

        return pa.Table.from_pylist(self.as_json()["comparisons"], schema=_single_schema())


_STATISTICS = ("icc3k_z", "spearman", "weighted_kappa", "clinicians_icc3k_z")


def _medhelm_schema() -> pa.Schema:  # a function: pyarrow loads only when a table is asked for
    import pyarrow as pa

    figures = [(f"{name}{part}", pa.float64()) for name in _STATISTICS for part in ("", "_low", "_high")]
    return pa.schema([("benchmark", pa.string()), ("answers", pa.int64()), ("clinicians", pa.int64()), *figures,
                      ("clinician_pair", pa.list_(pa.string())), ("clinician_pair_answers", pa.int64())])


def _single_schema() -> pa.Schema:
    import pyarrow as pa

    return pa.schema([("comparison", pa.string()), ("pairs", pa.int64()), ("instances", pa.int64()),
                      ("icc_3_1", pa.float64()), ("ci_low", pa.float64()), ("ci_high", pa.float64()),
                      ("icc_2_1", pa.float64())])


def _only(ratings: RatingsFile, benchmarks: Sequence[str]) -> RatingsFile:
    """The ratings of the named benchmarks only (an unknown name is an error)."""
    if not benchmarks:
        return ratings
    present = sorted({k.benchmark for k in ratings.clinicians})
    unknown = [b for b in benchmarks if b not in present]
    if unknown:
        raise fail(f"the ratings file rates no answer of {', '.join(unknown)}", ratings.path,
                   f"name benchmarks it rates: {', '.join(present)}")
    keep = {k: v for k, v in ratings.clinicians.items() if k.benchmark in benchmarks}
    return RatingsFile(ratings.path, ratings.columns, keep, {k: v for k, v in ratings.jury.items() if k in keep},
                       ratings.jury_columns)


def _report(ratings: RatingsFile, jury: dict[AnswerKey, dict[str, float]], rouge: dict[AnswerKey, float],
            rubric: Rubric, jury_from: str) -> ValidationReport:
    if not any(k in jury for k in ratings.clinicians):
        raise fail("no answer the clinicians rated has a rating by the jury", ratings.path,
                   "judge the suite first (`medhelm-local judge SUITE`), or check the run and instance ids")
    return ValidationReport(medhelm_table(ratings, jury, rubric), single_rater_table(ratings, jury, rouge, rubric),
                            sorted({k.run_id for k in ratings.clinicians if k.run_id}), ratings.names, rubric.name,
                            jury_from, ratings.criteria)


def validate_file(path: Path, rubric_name: str | None, run: str | None, benchmarks: Sequence[str] = (),
                  rubric_where: str = "rubric") -> ValidationReport:
    """The validation tables from a ratings file that carries the jury's ratings too (no store); `rubric_where`: how
    the caller names the rubric argument in an error."""
    rubric = load_rubric(rubric_name or DEFAULT_RUBRIC, Path.cwd(), where=rubric_where)
    ratings = read_ratings_file(path, rubric, run, needs_run=False)
    ratings = _only(_named(ratings, {k.run_id: k.run_id or ALL for k in ratings.clinicians}), benchmarks)
    if not ratings.jury_columns:
        raise fail("the ratings file holds no ratings by the jury, and no suite was named", path,
                   "name the suite whose store holds the jury's ratings too, or "
                   "add the jury's ratings to the file (rater `jury`, or llm_<criterion> columns)")
    return _report(ratings, ratings.jury, {}, rubric, "file")


def validation_report(con: duckdb.DuckDBPyConnection, judged: Mapping[str, tuple[Rubric, str | None, str]],
                      path: Path, run: str | None, jury: str | None, benchmarks: Sequence[str] = (),
                      run_where: str = "run") -> ValidationReport:
    """Check the ratings file against the store, then compute both tables with the store's jury (`run`: the run the
    file rates when it has no run_id column; `run_where`: how the caller names that argument in an error)."""
    choices = ", ".join(sorted(judged)) or "none (judge a suite first)"
    if run is not None and run not in judged:
        raise ConfigError(f"run '{run}' is not a jury-scored run of this store", where=run_where,
                          fix=f"use one of: {choices}")
    named = runs_named(path, run)
    unknown = [n for n in named if n not in judged]
    if unknown:
        raise fail(f"the ratings file names run(s) {', '.join(unknown[:SHOWN]) or '(none)'}, which are not "
                   "jury-scored runs of this store", path,
                   f"give a run_id column (or name the run, {run_where}) from: {choices}")
    rubrics = sorted({judged[n][0].name for n in named})
    if len(rubrics) != 1:
        raise fail(f"the ratings file rates runs of different rubrics ({', '.join(rubrics)})", path,
                   "validate one benchmark's rubric per file")
    rubric = judged[named[0]][0]
    ratings = read_ratings_file(path, rubric, run, needs_run=True)
    if ratings.jury_columns:
        raise fail("the ratings file carries the jury's ratings, and a suite was named too", path,
                   "check the file's jury: leave out SUITE; check the store's: remove the rater `jury` rows and "
                   "llm_ columns")
    _check_ids(con, ratings, path)
    ratings = _named(ratings, {n: judged[n][2] for n in named})
    ratings = _only(ratings, benchmarks)
    juries = {n: jury or judged[n][1] or "" for n in named}
    store_jury, rouge = _store_jury(con, sorted(ratings.clinicians), juries, rubric)
    return _report(ratings, store_jury, rouge, rubric, "store")


def ratings_report(con: duckdb.DuckDBPyConnection, ratings: RatingsFile, benchmark_of: dict[str, str],
                   juries: dict[str, str], rubric: Rubric, benchmarks: Sequence[str] = ()) -> ValidationReport:
    """Both tables for clinicians' ratings gathered elsewhere (a rating campaign's, from the store), against the
    store's jury: `benchmark_of` and `juries` by run id."""
    ratings = _only(_named(ratings, benchmark_of), benchmarks)
    store_jury, rouge = _store_jury(con, sorted(ratings.clinicians), juries, rubric)
    return _report(ratings, store_jury, rouge, rubric, "store")


def campaign_ratings(con: duckdb.DuckDBPyConnection, campaign_id: str, run_id: str, rubric: Rubric,
                     where: Path) -> RatingsFile:
    """Every (not skipped) clinician's rating of a rating campaign in the store, as a ratings file reads."""
    ratings = RatingsFile(where, list(rubric.criterion_names))
    rows: list[Any] = con.execute("SELECT rater, instance_id, ratings_json FROM clinician_ratings WHERE "
                                  "campaign_id = ? AND NOT skipped ORDER BY rater, instance_id",
                                  [campaign_id]).fetchall()
    for rater, instance_id, given in rows:
        key = AnswerKey(run_id, "", instance_id)
        ratings.clinicians.setdefault(key, {})[rater] = {c: float(v) for c, v in json.loads(given).items()}
    return ratings


def jury_agreement(con: duckdb.DuckDBPyConnection, ratings: RatingsFile, benchmark_of: dict[str, str],
                   juries: dict[str, str], rubric: Rubric) -> MedhelmRow | None:
    """MedHELM's row alone, over every answer rated (pooled when several benchmarks): the agreement figure a report
    marks jury-scored columns with. None: no answer the clinicians rated has the jury's rating."""
    ratings = _named(ratings, benchmark_of)
    store_jury, _ = _store_jury(con, sorted(ratings.clinicians), juries, rubric)
    if not any(k in store_jury for k in ratings.clinicians):
        return None
    return medhelm_table(ratings, store_jury, rubric)[-1]


def template_answers(con: duckdb.DuckDBPyConnection, judged: Mapping[str, tuple[Rubric, str | None, str]],
                     runs: Sequence[str], where: str = "runs") -> tuple[Rubric, list[tuple[str, str]]]:
    """The rubric and the (run id, instance id) of every stored answer a clinician can rate, of the jury-scored
    runs named (default: all of them, which must share one rubric), in each run's instance order. `judged` is
    the store's jury-scored runs (run/jury_runs.py's `jury_scored_runs`); `where`: how the caller names `runs`."""
    choices = ", ".join(sorted(judged)) or "none"
    unknown = [r for r in runs if r not in judged]
    if unknown or not judged:
        raise ConfigError(f"{', '.join(unknown) or 'the store'} has no jury-scored run to rate", where=where,
                          fix=f"name runs of jury-scored benchmarks; this store's: {choices}")
    named = list(runs) or sorted(judged)
    rubrics = sorted({judged[n][0].name for n in named})
    if len(rubrics) != 1:
        raise ConfigError(f"the runs are rated on different rubrics ({', '.join(rubrics)})", where=where,
                          fix=f"write a template per rubric: name its runs ({where})")
    answers = [(run_id, row[0]) for run_id in named for row in con.execute(
        "SELECT c.instance_id FROM completions c JOIN instances i USING (run_id, instance_id) "
        "WHERE c.run_id = ? AND c.ok ORDER BY i.ordinal", [run_id]).fetchall()]
    if not answers:
        raise ConfigError("the runs have no answers yet, so there is nothing to rate", where=where,
                          fix="run the suite first (`medhelm-local run`)")
    return judged[named[0]][0], answers


def _check_ids(con: duckdb.DuckDBPyConnection, ratings: RatingsFile, path: Path) -> None:
    known: dict[str, set[str]] = {}
    bad = []
    for key in sorted(ratings.clinicians):
        if key.run_id not in known:
            known[key.run_id] = {r[0] for r in con.execute("SELECT instance_id FROM instances WHERE run_id = ?",
                                                           [key.run_id]).fetchall()}
        if key.instance_id not in known[key.run_id]:
            bad.append(key.instance_id)
    if bad:
        raise fail(f"{len(bad)} instance id(s) are not instances of their run: {', '.join(bad[:SHOWN])}", path,
                   "use the ids `medhelm-local show RUN_ID --instances N` prints")


def _named(ratings: RatingsFile, benchmark_of: dict[str, str]) -> RatingsFile:
    """Answers without a benchmark column take their run's benchmark (without a store: the run id, or `all`)."""
    def keyed(key: AnswerKey) -> AnswerKey:
        return key if key.benchmark else AnswerKey(key.run_id, benchmark_of[key.run_id], key.instance_id, key.model)

    return RatingsFile(ratings.path, ratings.columns, {keyed(k): v for k, v in ratings.clinicians.items()},
                       {keyed(k): v for k, v in ratings.jury.items()}, ratings.jury_columns)
