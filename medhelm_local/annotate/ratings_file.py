"""Clinicians' ratings files for `judge validate`: this project's layout and MedHELM's published one.

One row per (rater, answer), in a CSV file:

    rater         `clinician` (or MedHELM's `username`); a rater named `jury` gives the jury's ratings
    answer        `instance_id`, and `run_id` (or `--run`) when the answers are in a store; the
                  benchmark from `benchmark` (or MedHELM's `dataset_name`), else the run's; MedHELM's
                  `model_key` tells apart two models' answers to one instance
    ratings       a column per rubric criterion rated and/or `score` (an overall rating), on the
                  rubric's scale; the jury's as `llm_<criterion>` (MedHELM's columns) or `llm_score`
    ignored       MedHELM's `specialty`, `team`, `entry_id`, `user_label`, `question`, `answer`

A row with no rater and no rating (a row of `judge validate --template`'s file left unfilled) is
skipped.

So MedHELM's `medhelm_human_annotation.csv` and `output.csv` (`username, ..., instance_id,
dataset_name, model_key, ..., accuracy, completeness, clarity, llm_accuracy, ...`) are read as they
are. The whole file is checked before anything is computed: an unknown column, a value off the
scale, a clinician rating one answer twice, or two rows that disagree on the jury's rating of one
answer is an error naming the line.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path

from medhelm_local.annotate.rubric import Rubric
from medhelm_local.errors import ConfigError
from medhelm_local.safe_parse import Limits, decode, read_bounded

OVERALL = "score"
JURY = "jury"
JURY_PREFIX = "llm_"
RATERS = ("clinician", "username")
BENCHMARKS = ("benchmark", "dataset_name")
MODEL = "model_key"
IGNORED = ("specialty", "team", "entry_id", "user_label", "question", "answer")
SHOWN = 5


@dataclass(frozen=True, order=True)
class AnswerKey:
    """One rated answer: the run (empty without a store), the benchmark, the instance and the model (if named)."""

    run_id: str
    benchmark: str
    instance_id: str
    model: str = ""


@dataclass
class RatingsFile:
    """What a ratings file says: per answer, each clinician's ratings and the jury's (when the file has them)."""

    path: Path
    columns: list[str]  # the rating columns clinicians filled: rubric criteria, then `score`
    clinicians: dict[AnswerKey, dict[str, dict[str, float]]] = field(default_factory=dict)
    jury: dict[AnswerKey, dict[str, float]] = field(default_factory=dict)
    jury_columns: bool = False  # the file has columns or rows for the jury

    @property
    def criteria(self) -> list[str]:
        """The rubric criteria the clinicians rated (the composite's parts)."""
        return [c for c in self.columns if c != OVERALL]

    @property
    def names(self) -> list[str]:
        """Every clinician named."""
        return sorted({c for by in self.clinicians.values() for c in by})


def fail(what: str, path: Path, fix: str) -> ConfigError:
    """An error about the ratings file."""
    return ConfigError(what, where=str(path), fix=fix)


def _rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header, and each row with the line it ends on (a quoted cell may span lines), its cells stripped."""
    text = decode(read_bounded(path, "ratings file", limits=Limits(max_bytes=64 << 20)), str(path), "ratings file")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        lines = [(reader.line_num, row) for row in reader]
        header = [h.strip() for h in reader.fieldnames or []]
    except csv.Error as exc:
        raise fail(f"the ratings file is not a readable CSV file ({exc})", path,
                   "save it as CSV (UTF-8), one header line then one row per rating") from None
    if not lines:
        raise fail("the ratings file holds no rows", path, "write a header line and one row per clinician rating")
    for line, row in lines:
        if None in row:  # more cells than the header names: they would be dropped without a word
            raise fail(f"line {line} has {len(row[None])} cell(s) more than the header's {len(header)} columns",
                       path, "quote cells that hold a comma, or remove the extra cells")
    return header, [(line, {(k or "").strip(): (v or "").strip() for k, v in row.items()}) for line, row in lines]


def _header(header: list[str], rubric: Rubric, path: Path, needs_run: bool) -> tuple[str, str | None, list[str]]:
    """The rater column, the benchmark column (if any) and the clinicians' rating columns; unknown ones refused."""
    scored = [c for c in (*rubric.criterion_names, OVERALL) if c in header]
    jury_cols = [JURY_PREFIX + c for c in (*rubric.criterion_names, OVERALL)]
    rater = next((c for c in RATERS if c in header), None)
    benchmark = next((c for c in BENCHMARKS if c in header), None)
    known = {*RATERS, *BENCHMARKS, MODEL, *IGNORED, "run_id", "instance_id", *scored, *jury_cols}
    unknown = [h for h in header if h not in known]
    missing = [k for k in ("instance_id", *(["run_id"] if needs_run else [])) if k not in header]
    if unknown or missing or rater is None or not scored:
        raise fail(f"the ratings file's columns are not the expected ones (unknown: {', '.join(unknown) or 'none'}"
                   f"; missing: {', '.join([*missing, *([] if rater else ['clinician'])]) or 'none'}"
                   f"{'' if scored else '; no rating column'})", path,
                   f"use clinician (or username), instance_id{', run_id' if needs_run else ''}, then {OVERALL} and/or "
                   f"the rubric's criteria ({', '.join(rubric.criterion_names)}); the jury's as llm_<criterion>")
    return rater, benchmark, scored


def _value(text: str, column: str, line: int, rubric: Rubric, path: Path) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    low, high = rubric.scale.min, rubric.scale.max
    if not low <= value <= high:
        raise fail(f"line {line}: {column} = {text!r} is off the rubric's scale ({low}-{high})", path,
                   f"give whole or decimal points from {low} to {high}")
    return value


def write_template(path: Path, rubric: Rubric, answers: list[tuple[str, str]], clinicians: list[str]) -> int:
    """Write the ratings file to fill in: a row per (clinician, run id, instance id), a blank cell per rubric
    criterion; a new file only (never over one that may hold ratings). Returns the rows written."""
    if path.exists():
        raise fail("a file already exists there, and it may hold ratings", path, "give a new file name")
    header = ["clinician", "run_id", "instance_id", *rubric.criterion_names]
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("x", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            rows = [[who, run_id, instance_id, *([""] * len(rubric.criterion_names))]
                    for who in clinicians or [""] for run_id, instance_id in answers]
            writer.writerows(rows)
        partial.rename(path)  # the file appears whole, or not at all
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise fail(f"the template cannot be written ({exc.strerror or exc})", path,
                   "choose a folder you may write to, and a name not in use") from None
    return len(rows)


def runs_named(path: Path, default_run: str | None) -> list[str]:
    """The run ids a ratings file names (its run_id column, else the default)."""
    _, rows = _rows(path)
    return sorted({row.get("run_id") or default_run or "" for _, row in rows})


def read_ratings_file(path: Path, rubric: Rubric, default_run: str | None, needs_run: bool) -> RatingsFile:
    """Read and check a ratings file against the rubric's criteria and scale (ids are checked by the caller)."""
    header, rows = _rows(path)
    rater_col, benchmark_col, scored = _header(header, rubric, path, needs_run and not default_run)
    jury_cols = [c for c in header if c.startswith(JURY_PREFIX)]
    lacking = [JURY_PREFIX + c for c in scored if JURY_PREFIX + c not in jury_cols]
    if jury_cols and lacking:
        raise fail(f"the ratings file gives the jury's ratings without {', '.join(lacking)}", path,
                   "give the jury's rating of every column the clinicians rated (composites of different criteria "
                   "cannot be compared)")
    found = RatingsFile(path, scored, jury_columns=bool(jury_cols))
    jury_lines: dict[AnswerKey, int] = {}
    for line, row in rows:
        if not row.get(rater_col) and not any(row.get(c) for c in (*scored, *jury_cols)):
            continue  # a template row nobody filled in: no rater, no rating
        run_id = row.get("run_id") or default_run or ""
        instance_id, rater = row.get("instance_id", ""), row.get(rater_col, "")
        if not instance_id:
            raise fail(f"line {line}: the instance_id cell is empty", path,
                       "give the id of the answer rated, as `medhelm-local show RUN_ID --instances N` prints it")
        if not rater:
            raise fail(f"line {line}: the {rater_col} cell is empty", path, "name who rated each answer (an id is "
                                                                             "enough)")
        key = AnswerKey(run_id, row.get(benchmark_col or "", "") if benchmark_col else "", instance_id,
                        row.get(MODEL, ""))
        values = {c: v for c in scored if (v := _value(row.get(c, ""), c, line, rubric, path)) is not None}
        jury = {c.removeprefix(JURY_PREFIX): v for c in jury_cols
                if (v := _value(row.get(c, ""), c, line, rubric, path)) is not None}
        if rater == JURY:
            found.jury_columns = True
            jury, values = {**jury, **values}, {}
        if jury:
            before = found.jury.get(key)
            if before is not None and (set(before) != set(jury) or
                                       any(abs(before[c] - jury[c]) > 1e-9 for c in jury)):
                raise fail(f"line {line}: the jury's ratings of {instance_id} differ from those on line "
                           f"{jury_lines[key]}", path, "give the jury's ratings of one answer once, or the same on "
                                                       "every row")
            found.jury[key], jury_lines[key] = jury, jury_lines.get(key, line)
        by = found.clinicians.setdefault(key, {})
        if rater != JURY and rater in by:
            raise fail(f"line {line}: {rater} rates {instance_id} twice", path, "keep one row per rater and answer")
        if values:
            by[rater] = values
    return found
