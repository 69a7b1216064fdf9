"""What the benchmark registry holds for a name: a checked card, where it came from, and what can be said of it
without its data (its task, access level, taxonomy place, provenance, licence, grader). `create(args)` gives the
runnable `Benchmark` (scenarios/benchmark.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from medhelm_local.records import TaskType
from medhelm_local.scenarios.card import Card
from medhelm_local.scenarios.dataset_sources import published_source

if TYPE_CHECKING:
    from medhelm_local.annotate.rubric import Rubric
    from medhelm_local.annotate.rubric_items import ItemGrader
    from medhelm_local.scenarios.benchmark import Benchmark


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
        from medhelm_local.scenarios.benchmark import Benchmark  # a spec is read without running anything

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
