"""What is installed here: every benchmark with its taxonomy place, access level and data status."""

from __future__ import annotations

from dataclasses import dataclass

from medhelm_local.errors import DatasetMissingError, MedhelmError, ScenarioError
from medhelm_local.scenarios.benchmark import Benchmark
from medhelm_local.scenarios.card import Card
from medhelm_local.scenarios.datafiles import DataRoot
from medhelm_local.scenarios.formats import format_for
from medhelm_local.scenarios.long_inputs import how_inputs_fit
from medhelm_local.scenarios.registry import get, names
from medhelm_local.taxonomy import Taxonomy, load_taxonomy


@dataclass(frozen=True)
class BenchmarkStatus:
    """One installed benchmark and whether it can run with the data present."""

    name: str
    display_name: str
    task_type: str
    access: str
    category: str
    subcategory: str
    main_metric: str
    metrics: list[str]
    instances: int | None
    data: str  # "present", "missing" or "invalid"
    problem: str | None
    description: str
    provenance: str
    licence: str
    citation: str
    notes: str
    args: dict[str, str]
    builtin: bool
    inputs: str  # how prompts are fitted to the model's context
    comparable: str  # whether its scores can be set beside published MedHELM results, and when not, why

    @property
    def runnable(self) -> bool:
        """True when its data is present and verified."""
        return self.data == "present"


def benchmark_status(data_root: DataRoot, taxonomy: Taxonomy | None = None) -> list[BenchmarkStatus]:
    """Every registered benchmark, loaded once to count instances and check its files."""
    taxonomy = taxonomy or load_taxonomy()
    subcategories = taxonomy.subcategories
    rows = []
    for name in names():
        spec = get(name)
        card = spec.card
        sub = subcategories.get(spec.subcategory)
        instances: int | None = None
        problem: str | None = None
        bench = spec.create()
        try:
            instances = sum(1 for _ in bench.iter_instances(data_root))
            data = "present"
        except DatasetMissingError as exc:
            data, problem = "missing", exc.what
        except ScenarioError as exc:
            data, problem = "invalid", exc.what
        except MedhelmError as exc:  # a card whose file cannot be read at all
            data, problem = "invalid", exc.what
        category = sub.category if sub else card.taxonomy.category or "?"
        rows.append(BenchmarkStatus(
            name, spec.display_name, spec.task_type.value, spec.access, category, spec.subcategory,
            bench.main_metric, [m.name for m in bench.metrics], instances, data, problem, spec.summary(),
            spec.provenance, spec.licence, card.citation or "",
            " ".join((card.notes or "").split()),
            {k: a.help + (f" (one of {', '.join(a.choices)})" if a.choices else "") for k, a in card.args.items()},
            spec.builtin, how_inputs_fit(bench.truncation, bench.max_length), comparability(card, bench)))
    return rows


def comparability(card: Card, bench: Benchmark) -> str:
    """Whether a run with the default arguments compares with published MedHELM results; when some arguments
    make it incomparable (or comparable), which and why."""
    found = card.not_comparable
    if found is None:
        return "comparable with published MedHELM results"
    unless = ", ".join(f"{k}={v}" for k, v in found.unless.items())
    if bench.not_comparable is not None:
        tail = f" (comparable with {unless})" if unless else ""
        return f"NOT comparable with published MedHELM results{tail}: {found.reason}"
    return f"comparable with published MedHELM results with {unless} (the default); otherwise not: {found.reason}"


RUNNABLE = "runnable"
WHEN_PRESENT = "runnable when data is present"
FORMAT_SHIPPED = "format shipped: runnable when a card points at the hospital's file"
NOT_INSTALLED = "not installed"


def medhelm_status(taxonomy: Taxonomy, installed: list[BenchmarkStatus]) -> dict[str, str]:
    """Where each of MedHELM's benchmarks stands here: runnable, runnable when its data is present (or its
    data is invalid), a private benchmark whose format ships (a card pointing at the hospital's file runs
    it), or not installed."""
    rows = {name: r for r in installed for name in (r.name, *get(r.name).aliases)}
    status = {}
    for sub in taxonomy.subcategories.values():
        for b in sub.benchmarks:
            row = rows.get(b.name)
            if row is not None:
                status[b.name] = RUNNABLE if row.runnable else WHEN_PRESENT if row.data == "missing" else \
                    f"data {row.data}"
            else:
                status[b.name] = FORMAT_SHIPPED if format_for(b.name) else NOT_INSTALLED
    return status
