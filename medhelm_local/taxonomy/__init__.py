"""MedHELM's clinician-validated taxonomy: 5 categories, 22 subcategories, and where each benchmark sits.

Shipped as package data (`medhelm_taxonomy.yaml`, the mapping from stanford-crfm/helm's MedHELM
run-entry confs and schema; see its `meta` block for sources and commits).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml


@dataclass(frozen=True)
class TaxonomyBenchmark:
    """A benchmark as MedHELM places it: access level and main metric."""

    name: str
    access: str
    main_metric: str
    display_name: str
    fork: bool = False  # added by MedHELM's maintained fork (PyPI medhelm), not in its paper


@dataclass(frozen=True)
class Subcategory:
    """One of the 22 subcategories, with MedHELM's benchmarks in it."""

    name: str
    category: str
    benchmarks: tuple[TaxonomyBenchmark, ...]


@dataclass(frozen=True)
class Taxonomy:
    """Categories in MedHELM's order, each with its subcategories."""

    categories: tuple[tuple[str, tuple[Subcategory, ...]], ...]

    @property
    def subcategories(self) -> dict[str, Subcategory]:
        """Every subcategory by name."""
        return {sub.name: sub for _, subs in self.categories for sub in subs}

    def placement(self, benchmark: str) -> Subcategory | None:
        """Where MedHELM places a benchmark (by run-entry name), if it does."""
        for sub in self.subcategories.values():
            if any(b.name == benchmark for b in sub.benchmarks):
                return sub
        return None


@lru_cache(maxsize=1)
def load_taxonomy() -> Taxonomy:
    """The shipped taxonomy (read once)."""
    text = resources.files(__package__).joinpath("medhelm_taxonomy.yaml").read_text("utf-8")
    data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml: read at every start
    categories = []
    for cat in data["categories"]:
        subs = tuple(
            Subcategory(sub["name"], cat["name"], tuple(
                TaxonomyBenchmark(b["name"], b["access"], b["main_metric"], b.get("display_name", b["name"]),
                                  "added_by" in b)
                for b in sub["benchmarks"]))
            for sub in cat["subcategories"])
        categories.append((cat["name"], subs))
    return Taxonomy(tuple(categories))
