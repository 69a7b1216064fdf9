"""What is installed here: every benchmark with its taxonomy place, access level and data status."""

from __future__ import annotations

from dataclasses import dataclass

from medhelm_local.errors import DatasetMissingError, MedhelmError, ScenarioError
from medhelm_local.scenarios.datafiles import DataRoot
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
            spec.builtin))
    return rows
