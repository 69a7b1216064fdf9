"""A benchmark: a card (data) plus, for a published format, its reader hook. One path for all.

`BenchmarkSpec` (scenarios/spec.py) is what the registry holds for a name: the checked card and where it came
from. `Benchmark` is a spec with its run-entry arguments applied: it streams instances from verified
local files, renders prompts, and scores answers with the card's metrics. Nothing here reaches
the network.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path

from medhelm_local.errors import DatasetCorruptError
from medhelm_local.metrics.registry import Need, ScoringContext
from medhelm_local.metrics.scoring import score_answer
from medhelm_local.records import Instance, Prompt, Score, TaskType
from medhelm_local.scenarios.card import template_fields
from medhelm_local.scenarios.data_read import CARD_FILE, DATA_PATH, DATA_ROOT, DataRead, data_read, file_digests
from medhelm_local.scenarios.datafiles import DataRoot, published_checksums, sha256_file
from medhelm_local.scenarios.entry_checks import checked_args, resolved_metrics
from medhelm_local.scenarios.formats import get_format
from medhelm_local.scenarios.locate import data_path_files, data_root_files, own_file
from medhelm_local.scenarios.medhelm_config import INCORRECT_COLUMN
from medhelm_local.scenarios.perturbation import perturb
from medhelm_local.scenarios.prompting import render
from medhelm_local.scenarios.readers import get_reader
from medhelm_local.scenarios.spec import BenchmarkSpec
from medhelm_local.scenarios.tabular import read_rows, row_instances
from medhelm_local.scenarios.unique_ids import IdTally

DUPLICATES_SHOWN = 5
# What a damaged file raises while read: a bad field, a broken CSV, a truncated gzip or Parquet file.
# RecursionError: JSON nested ~1,000 levels deep (json's C parser counts its depth and stops there; it never
# crashes); OverflowError: a number too large for a float.
_READ_ERRORS = (KeyError, ValueError, TypeError, IndexError, json.JSONDecodeError, UnicodeDecodeError, csv.Error,
                EOFError, OSError, RecursionError, OverflowError)


class Benchmark:
    """A benchmark ready to run: instances, prompts and scores from its card and arguments."""

    def __init__(self, spec: BenchmarkSpec, args: Mapping[str, str] | None = None,
                 available: frozenset[Need] = frozenset()) -> None:
        self.spec = spec
        self.card = spec.card
        self.args = checked_args(spec, dict(args or {}))
        self.max_tokens = int(self.args["num_output_tokens"]) if "num_output_tokens" in self.args else None
        # MedHELM's max_length: the most tokens the prompt and its answer may take (besides the model's context).
        self.max_length = int(self.args["max_length"]) if "max_length" in self.args else None
        self.metrics = resolved_metrics(spec, self.args, available)
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

