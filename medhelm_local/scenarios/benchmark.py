"""A benchmark: a card (data) plus, for a published format, its reader hook. One path for all.

`BenchmarkSpec` is what the registry holds for a name: the checked card and where it came from.
`Benchmark` is a spec with its run-entry arguments applied: it streams instances from verified
local files, renders prompts, and scores answers with the card's metrics. Nothing here reaches
the network.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from medhelm_local.errors import ConfigError, DatasetCorruptError, RunEntryError
from medhelm_local.metrics.registry import Metric, Need, ScoringContext, check_metrics
from medhelm_local.metrics.scoring import score_answer
from medhelm_local.records import Instance, Prompt, Score, TaskType
from medhelm_local.scenarios.card import Card, CardArg, template_fields
from medhelm_local.scenarios.data_read import CARD_FILE, DATA_PATH, DATA_ROOT, DataRead, data_read, file_digests
from medhelm_local.scenarios.datafiles import DataRoot, published_checksums, sha256_file
from medhelm_local.scenarios.dataset_sources import published_source
from medhelm_local.scenarios.formats import get_format
from medhelm_local.scenarios.locate import data_path_files, data_root_files, own_file
from medhelm_local.scenarios.medhelm_config import INCORRECT_COLUMN
from medhelm_local.scenarios.perturbation import PERTURBATIONS, check_perturbation, perturb
from medhelm_local.scenarios.prompting import render
from medhelm_local.scenarios.readers import get_reader
from medhelm_local.scenarios.tabular import read_rows, row_instances
from medhelm_local.scenarios.unique_ids import IdTally

if TYPE_CHECKING:
    from medhelm_local.annotate.rubric import Rubric
    from medhelm_local.annotate.rubric_items import ItemGrader

# Run-entry arguments every benchmark takes, as in MedHELM's confs (e.g. num_output_tokens=4000
# for reasoning models).
COMMON_ARGS = {
    "num_output_tokens": CardArg(help="Answer length limit in tokens, replacing the card's max_tokens"),
    "perturbation": CardArg(help="Perturb each input (robustness): " + ", ".join(PERTURBATIONS),
                            choices=list(PERTURBATIONS)),
    "perturbation_seed": CardArg(help="Seed of the perturbation (a whole number; default 0)"),
    "jury_config_path": CardArg(help="MedHELM's jury file: its judges, mapped to local judge deployments "
                                     "(setting judge_map), rate this run"),
}
DUPLICATES_SHOWN = 5
# What a damaged file raises while read: a bad field, a broken CSV, a truncated gzip or Parquet file.
# RecursionError: JSON nested ~1,000 levels deep (json's C parser counts its depth and stops there; it never
# crashes); OverflowError: a number too large for a float.
_READ_ERRORS = (KeyError, ValueError, TypeError, IndexError, json.JSONDecodeError, UnicodeDecodeError, csv.Error,
                EOFError, OSError, RecursionError, OverflowError)


@dataclass(frozen=True)
class BenchmarkSpec:
    """A registered benchmark: its card, where the card is, and whether the package ships it."""

    card: Card
    path: Path
    builtin: bool = False
    medhelm_config: bool = False  # MedHELM's configurable-benchmark format
    # A configurable benchmark's jury: MedHELM's (deployment name, model name) of each judge of its jury_score.
    medhelm_judges: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """The run-entry name."""
        return self.card.name

    @property
    def display_name(self) -> str:
        """The name shown in tables."""
        return self.card.display_name or self.card.name

    @property
    def task_type(self) -> TaskType:
        """What kind of answer it expects."""
        return TaskType(self.card.task.type)

    @property
    def access(self) -> str:
        """public, gated or private."""
        return self.card.access

    @property
    def subcategory(self) -> str:
        """Its place in MedHELM's taxonomy."""
        return self.card.taxonomy.subcategory

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other run-entry names MedHELM uses for it."""
        return tuple(self.card.aliases)

    @property
    def main_metric(self) -> str:
        """The main metric with the default arguments."""
        return self.create().main_metric

    def summary(self) -> str:
        """One line saying what it measures."""
        return self.card.description.strip().splitlines()[0]

    @property
    def provenance(self) -> str:
        """Where the data is published: the card's word, else the shipped record of the public dataset."""
        if self.card.provenance:
            return self.card.provenance
        source = published_source(self.card.data.folder or "")
        if source is None:
            return "not recorded"
        # The note says what the repository line does not (whose file a copy is); it names the repository too.
        return source.note if source.repository.removeprefix("https://") in source.note else (
            f"{source.provenance} ({source.note})")

    @property
    def licence(self) -> str:
        """The data's licence as its publisher states it: the card's word, else the shipped record."""
        if self.card.licence:
            return self.card.licence
        source = published_source(self.card.data.folder or "")
        return f"{source.licence} ({source.licence_statement})" if source else "not recorded in the card"

    def create(self, args: Mapping[str, str] | None = None) -> Benchmark:
        """The benchmark with run-entry arguments applied (and checked)."""
        return Benchmark(self, args)

    @property
    def grader(self) -> Rubric | ItemGrader | None:
        """What the jury judges this benchmark's answers by (None: no jury metric): a rubric, or a grader of each
        instance's own rubric items (HealthBench); files are read once."""
        if self.card.rubric is None:
            return None
        from medhelm_local.annotate.rubric_items import load_grader  # graders load only for jury benchmarks

        return load_grader(self.card.rubric, self.path.parent, where=f"benchmark card {self.path}, field rubric")

    @property
    def rubric(self) -> Rubric | None:
        """The rubric the jury rates this benchmark's answers by (None: no jury metric, or per-item grading)."""
        from medhelm_local.annotate.rubric import Rubric

        grader = self.grader
        return grader if isinstance(grader, Rubric) else None

    @property
    def reader_name(self) -> str | None:
        """The reader hook for a published layout; None for a card with its own data file."""
        return self.card.data.reader


def _satisfied(needs: frozenset[Need], args: Mapping[str, str], available: frozenset[Need]) -> bool:
    # A judge is always satisfiable: without a jury the jury metric stays unjudged (pending), never dropped.
    have = {"reference", "options", "labels", "tolerance", "judge", *available}
    if "db" in args:
        have.add("database")
    return needs <= have


class Benchmark:
    """A benchmark ready to run: instances, prompts and scores from its card and arguments."""

    def __init__(self, spec: BenchmarkSpec, args: Mapping[str, str] | None = None,
                 available: frozenset[Need] = frozenset()) -> None:
        self.spec = spec
        self.card = spec.card
        self.args = self._checked_args(dict(args or {}))
        self.max_tokens = int(self.args["num_output_tokens"]) if "num_output_tokens" in self.args else None
        # MedHELM's max_length: the most tokens the prompt and its answer may take (besides the model's context).
        self.max_length = int(self.args["max_length"]) if "max_length" in self.args else None
        self.metrics = self._resolve_metrics(available)
        self.main_metric = self.metrics[0].name
        self.context = self._scoring_context()
        self._shots: list[Instance] | None = None

    @property
    def name(self) -> str:
        """The run-entry name."""
        return self.spec.name

    @property
    def display_name(self) -> str:
        """The name shown in tables."""
        return self.spec.display_name

    @property
    def task_type(self) -> TaskType:
        """What kind of answer it expects."""
        return self.spec.task_type

    @property
    def access(self) -> str:
        """public, gated or private."""
        return self.spec.access

    @property
    def subcategory(self) -> str:
        """Its place in MedHELM's taxonomy."""
        return self.spec.subcategory

    def _checked_args(self, args: dict[str, str]) -> dict[str, str]:
        declared = {**self.card.args, **COMMON_ARGS}
        unknown = sorted(set(args) - set(declared))
        where = f"run entry for {self.name}"
        if unknown:
            raise RunEntryError(f"{self.name} does not take the argument(s) {', '.join(unknown)}", where=where,
                                fix=f"remove them (it accepts: {', '.join(sorted(declared))})")
        for key, arg in self.card.args.items():
            if key not in args and arg.default is not None:
                args[key] = arg.default
            if key in args and arg.choices is not None and args[key] not in arg.choices:
                raise RunEntryError(f"{self.name} has no {key} '{args[key]}'", where=where,
                                    fix=f"use one of: {', '.join(arg.choices)}")
        check_perturbation(args, self.task_type, self.name, where)
        for key in ("num_output_tokens", "max_length"):
            value = args.get(key)
            if value is not None and (not value.isdigit() or not 0 < int(value) <= 100_000_000):
                raise RunEntryError(f"{key}={value} is not a positive whole number", where=where,
                                    fix=f"write e.g. {key}=4000")
        if self.spec.reader_name:
            check = get_reader(self.spec.reader_name, str(self.spec.path)).check_args
            if check is not None:
                check(args)
        return args

    def _resolve_metrics(self, available: frozenset[Need]) -> list[Metric]:
        preferences, also = self.card.metric_names
        where = f"benchmark card {self.spec.path}"
        mains = check_metrics(preferences, self.task_type, where=where, reader=self.spec.reader_name)
        others = check_metrics(also, self.task_type, where=where, reader=self.spec.reader_name)
        task = self.card.task
        for spec in [*mains, *others]:
            if "tolerance" in spec.needs and task.tolerance is None:
                raise ConfigError(f"metric '{spec.name}' needs task.tolerance (absolute and/or relative)", where=where,
                                  fix="add task.tolerance, e.g. tolerance: {relative: 0.05}")
            if "labels" in spec.needs and not task.labels:
                raise ConfigError(f"metric '{spec.name}' needs task.labels", where=where, fix="list the label set")
            if "judge" in spec.needs:
                self._check_rubric(spec, where)
        main = next((m for m in mains if _satisfied(m.needs, self.args, available)), mains[-1])
        rest = [m for m in [*mains, *others] if m is not main and _satisfied(m.needs, self.args, available)]
        return [main, *dict.fromkeys(rest)]

    def _check_rubric(self, spec: Metric, where: str) -> None:
        """A jury score needs a rubric on the metric's scale; another judged metric (HealthBench's), a grader of
        each instance's rubric items."""
        from medhelm_local.annotate.rubric_items import ItemGrader, shipped_graders
        from medhelm_local.metrics.jury import is_jury_metric, jury_metric_name

        if self.card.rubric is None:
            from medhelm_local.annotate.rubric import shipped

            raise ConfigError(f"metric '{spec.name}' is rated by a jury, which needs a rubric", where=where,
                              fix=f"add rubric: NAME (one of: {', '.join(shipped())}) or rubric: FILE.yaml")
        per_item = isinstance(self.spec.grader, ItemGrader)
        if per_item == is_jury_metric(spec.name):
            wanted = "a rubric (criteria on a scale)" if is_jury_metric(spec.name) else \
                f"a grader of each instance's rubric items ({', '.join(shipped_graders())})"
            raise ConfigError(f"metric '{spec.name}' is judged by {wanted}, and the card's rubric "
                              f"'{self.card.rubric}' is not one", where=where,
                              fix="name a rubric the metric can be judged by, or the metric that fits the rubric")
        rubric = self.spec.rubric
        if rubric is not None and (rubric.scale.min, rubric.scale.max) != (spec.lower, spec.upper):
            low, high = rubric.scale.min, rubric.scale.max
            raise ConfigError(f"the rubric's scale is {low}-{high}, and {spec.name} is on "
                              f"{spec.lower:g}-{spec.upper:g}", where=where,
                              fix=f"name the jury score on the rubric's scale, {jury_metric_name(low, high)}, or give "
                                  f"the rubric scale: {{min: {spec.lower:g}, max: {spec.upper:g}}}")

    @property
    def judged(self) -> bool:
        """True when a jury rates this benchmark (one of its metrics needs a judge)."""
        return any("judge" in m.needs for m in self.metrics)

    def _scoring_context(self) -> ScoringContext:
        """What the metrics need to know about this benchmark beyond each instance (one per benchmark:
        scorers cache per-run resources in it, such as an opened database)."""
        task = self.card.task
        tolerance = task.tolerance
        return ScoringContext(labels=tuple(task.labels or ()), synonyms=dict(task.synonyms),
                              lettered=self.card.lettered and self.task_type is TaskType.CLASSIFICATION,
                              tolerance_absolute=(tolerance.absolute or 0.0) if tolerance else 0.0,
                              tolerance_relative=(tolerance.relative or 0.0) if tolerance else 0.0,
                              args=dict(self.args))

    @property
    def not_comparable(self) -> str | None:
        """Why this run's scores cannot be set beside published MedHELM results (None: they can)."""
        return self.card.comparability(self.args)

    @property
    def truncation(self) -> str | None:
        """Which part of a long record is kept when a prompt does not fit (keep_start, keep_end), or None."""
        return self.card.prompt.truncate

    # Data.
    @property
    def data_files(self) -> tuple[str, ...]:
        """The files this benchmark reads (in the data root folder, or beside the card)."""
        data = self.card.data
        if data.file is not None:
            return (data.file,)
        extra = [name for key, arg in self.card.args.items() for name in arg.files.get(self.args.get(key, ""), [])]
        if data.files:
            return (*data.files, *extra)
        return (*sorted(published_checksums(data.folder or "") or {}), *extra)

    def _paths(self, data: DataRoot) -> dict[str, Path]:
        spec = self.card.data
        data_path = self.args.get("data_path")
        published_at = self.spec.provenance
        if spec.file is not None:
            path = (self.spec.path.parent / spec.file).resolve()
            if data_path or spec.format is not None:
                path = own_file(path, data_path)
            if spec.sha256 and not data_path and path.is_file() and sha256_file(path) != spec.sha256:
                raise DatasetCorruptError("the data file does not match the sha256 pinned in the card",
                                          where=str(path), fix="restore the file, or pin its new sha256 after "
                                          "checking it (`medhelm-local benchmarks validate CARD` prints it)")
            return {spec.file: path}
        if data_path:
            return data_path_files(data_path, spec, tuple(spec.files or ()), published_at)
        return data_root_files(data, spec, self.data_files, published_at)

    def _read(self, paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterable[Instance]:
        spec = self.card.data
        if spec.file is not None:
            path = paths[spec.file]
            if spec.format is not None:
                rows = get_format(spec.format, str(self.spec.path)).rows(path, args)
                return row_instances(self.card, rows, str(path))
            incorrect = INCORRECT_COLUMN if self.spec.medhelm_config else None
            return row_instances(self.card, read_rows(path), str(path), incorrect=incorrect)
        return get_reader(spec.reader or "", str(self.spec.path)).read(paths, args)

    def read(self, paths: Mapping[str, Path]) -> list[Instance]:
        """Every instance from already verified files (keyed by file name)."""
        return list(self._read(paths, self.args))

    def iter_instances(self, data: DataRoot) -> Iterator[Instance]:
        """Verify the files, then stream the instances; a malformed item or a repeated id is a clear error,
        raised once the stream ends (a run's plan reads it through before anything is sent)."""
        yield from self._instances(data, self._paths(data))

    def reading(self, data: DataRoot) -> tuple[DataRead, Iterator[Instance]]:
        """The files verified now, with the sha256 of each and whether they are a published release, and the
        stream of their instances (as `iter_instances`)."""
        paths = self._paths(data)
        spec = self.card.data
        if spec.file is None and not self.args.get("data_path"):
            # What `DataRoot.verify` has just checked each file against: its digest, without reading it again.
            expected, _ = data.expected(spec.folder or "")
            files, origin = {name: expected[name] for name in paths}, DATA_ROOT
        else:
            files, origin = {}, (DATA_PATH if self.args.get("data_path") else CARD_FILE)
            for name, path in paths.items():
                files.update(file_digests(name, path))
        few = self.card.prompt.few_shot
        if few is not None and few.file is not None:  # its examples are in every prompt
            files.update(file_digests(f"few_shot:{few.file}", (self.spec.path.parent / few.file).resolve()))
        return data_read(spec.folder or "", origin, files), self._instances(data, paths)

    def _instances(self, data: DataRoot, paths: Mapping[str, Path]) -> Iterator[Instance]:
        # The file, when there is one; else the dataset folder (which file an item came from is not known here).
        where = (str(next(iter(paths.values()))) if len(paths) == 1 else
                 str(next(iter(paths.values())).parent) if paths else str(data.root))
        self._prepare_shots(data)
        perturbation = self.args.get("perturbation")
        seed = int(self.args.get("perturbation_seed", "0"))

        def stream() -> Iterator[Instance]:
            for instance in self._read(paths, self.args):
                yield instance if perturbation is None else perturb(instance, perturbation, seed, self.task_type)

        tally = IdTally()
        count = 0
        try:
            for instance in stream():
                tally.add(instance.id)
                count += 1
                yield instance
            repeats = tally.repeats(lambda: (instance.id for instance in stream()))
        except _READ_ERRORS as exc:
            layout = "published" if self.spec.reader_name else "expected"
            raise DatasetCorruptError(
                f"{self.name}: the data does not have the {layout} layout ({type(exc).__name__}: {str(exc)[:80]})",
                where=where,
                fix=f"replace the files with the published ones ({self.spec.provenance})",
            ) from None
        if repeats:
            shown = ", ".join(sorted(set(repeats))[:DUPLICATES_SHOWN])
            raise DatasetCorruptError(f"{self.name}: {len(repeats)} instance id(s) appear more than once ({shown})",
                                      where=where, fix="give every row its own id (columns.id), or leave columns.id "
                                                       "out to number rows")
        if count == 0:
            raise DatasetCorruptError(f"{self.name}: the dataset holds no instances", where=where,
                                      fix=f"replace the files with the published ones ({self.spec.provenance})")

    def load(self, data: DataRoot) -> list[Instance]:
        """Every instance, checked (ids unique, at least one)."""
        return list(self.iter_instances(data))

    def _prepare_shots(self, data: DataRoot) -> None:
        few = self.card.prompt.few_shot
        if few is None or self._shots is not None:
            return
        if few.file is not None:
            path = (self.spec.path.parent / few.file).resolve()
            pool = list(row_instances(self.card, read_rows(path), str(path)))
        else:
            if few.split == self.args.get("split", "test"):
                raise DatasetCorruptError(f"{self.name}: few_shot.split is the evaluated split",
                                          where=str(self.spec.path),
                                          fix="draw examples from another split; never from the one evaluated")
            pool = list(self._read(self._paths(data), {**self.args, "split": few.split or ""}))
        if len(pool) < few.k:
            raise DatasetCorruptError(f"{self.name}: few_shot asks for {few.k} examples, the source holds {len(pool)}",
                                      where=few.file or f"split {few.split}", fix="lower few_shot.k")
        self._shots = random.Random(few.seed).sample(pool, few.k)

    @property
    def answer_tokens(self) -> int:
        """The most tokens an answer may have: the run entry's num_output_tokens, else the card's max_tokens."""
        return self.max_tokens if self.max_tokens is not None else self.card.prompt.max_tokens

    # Prompts and scores.
    def render(self, instance: Instance) -> Prompt:
        """The prompt for one instance as the card lays it out."""
        inline = "options" in template_fields(self.card.prompt.template)
        return render(self.card.prompt, self.task_type, instance, self._shots or (), options_inline=inline)

    def prompt(self, instance: Instance) -> Prompt:
        """The prompt with run-entry overrides (num_output_tokens) applied."""
        prompt = self.render(instance)
        return prompt if self.max_tokens is None else replace(prompt, max_tokens=self.max_tokens)

    def score(self, instance: Instance, text: str, ctx: ScoringContext | None = None,
              completion: str | None = None) -> list[Score]:
        """Every metric of this benchmark for one answer, the main metric first (`completion`: the reply as HELM's
        output processors leave it, where it differs)."""
        return score_answer(instance, text, self.metrics, ctx or self.context, completion)

