"""Benchmarks by their MedHELM run-entry name: the shipped cards and a hospital's own, one path.

Built-in benchmarks are the cards in `scenarios/benchmarks/NAME/card.yaml` (one folder per benchmark); a
hospital's cards (the `benchmark_cards` setting) register the same way. MedHELM's configurable benchmark
format loads as a card too.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from pathlib import Path

from medhelm_local.errors import ConfigError, RunEntryError, UnknownScenarioError
from medhelm_local.scenarios import benchmarks
from medhelm_local.scenarios.benchmark import Benchmark
from medhelm_local.scenarios.card import Card
from medhelm_local.scenarios.medhelm_config import card_from_medhelm, is_medhelm_config
from medhelm_local.scenarios.readers import get_reader
from medhelm_local.scenarios.spec import BenchmarkSpec
from medhelm_local.taxonomy import load_taxonomy
from medhelm_local.yaml_lines import LocatedYaml, load_located, validate_located

CARD_FIX = "see docs/benchmark-cards.md for every field a card takes"
CONFIGURABLE = "medhelm_configurable_benchmark"
_USER: dict[str, BenchmarkSpec] = {}


def load_spec(path: Path, builtin: bool = False) -> BenchmarkSpec:
    """Read and check one card file (ours, or MedHELM's configurable-benchmark YAML)."""
    doc = load_located(path, "benchmark card")
    if is_medhelm_config(doc.data):
        card, judges = card_from_medhelm(path, doc)
        spec = BenchmarkSpec(card, path, medhelm_config=True,
                             medhelm_judges=tuple((j.name, j.model_name) for j in judges))
        return _checked(spec, doc)
    card = validate_located(Card, doc, "benchmark card", CARD_FIX)
    known = load_taxonomy().subcategories
    if card.taxonomy.subcategory not in known and card.taxonomy.category is None:
        close = difflib.get_close_matches(card.taxonomy.subcategory, list(known), n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ConfigError(f"benchmark card field 'taxonomy.subcategory': '{card.taxonomy.subcategory}' is not one of "
                          "MedHELM's subcategories", where=f"{path}, line {doc.line_of(('taxonomy', 'subcategory'))}",
                          fix=f"{hint}`medhelm-local taxonomy` lists them; for a new one, also give taxonomy.category")
    if card.data.reader is not None:
        get_reader(card.data.reader, f"{path}, line {doc.line_of(('data', 'reader'))}")
    return _checked(BenchmarkSpec(card, path, builtin=builtin), doc)


def _checked(spec: BenchmarkSpec, doc: LocatedYaml) -> BenchmarkSpec:
    """The spec once its rubric loads and its metrics fit its task (errors name the file and line)."""
    path = spec.path
    if spec.card.rubric is not None:
        _ = spec.grader  # a rubric that does not load is an error naming the rubric file and line
    line = doc.line_of(("metrics",)) or doc.line_of(("metric",))
    try:
        spec.create()  # checks the metrics against the registry and the task
    except ConfigError as exc:
        raise ConfigError(exc.what, where=f"{path}, line {line}" if line else str(path), fix=exc.fix) from None
    except RunEntryError:
        pass  # an argument without a default (e.g. a database path) is checked per run entry
    return spec


@cache
def _builtin_file(path: Path) -> BenchmarkSpec:
    """One shipped card, read and checked once per process."""
    return load_spec(path, builtin=True)


@lru_cache(maxsize=1)
def _builtins() -> dict[str, BenchmarkSpec]:
    specs: dict[str, BenchmarkSpec] = {}
    for path in benchmarks.every(benchmarks.CARD):
        spec = _builtin_file(path)
        for name in (spec.name, *spec.aliases):
            if name in specs:
                raise ValueError(f"benchmark name {name!r} used by two shipped cards")
            specs[name] = spec
    return specs


def _named(name: str) -> BenchmarkSpec | None:
    """The benchmark called `name`: a hospital's card, else the shipped card in the folder of that name (each
    folder is named for its benchmark, a test holds it), else any shipped card with it as an alias.

    Reading one card rather than all 23 takes ~90 ms off every `run` (bench/throughput.py).
    """
    if name in _USER:
        return _USER[name]
    path = benchmarks.benchmark_file(name, benchmarks.CARD) if name.isidentifier() else None
    if path is not None and path.is_file():
        return _builtin_file(path)
    return _builtins().get(name)


def _all() -> dict[str, BenchmarkSpec]:
    return {**_builtins(), **_USER}


def names() -> list[str]:
    """All registered benchmark names (aliases not repeated), sorted."""
    return sorted(name for name, spec in _all().items() if spec.name == name)


def get(name: str) -> BenchmarkSpec:
    """The benchmark registered as `name`, or an error listing the known ones."""
    found = _named(name)
    if found is None:
        close = difflib.get_close_matches(name, names(), n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise UnknownScenarioError(f"no benchmark is called '{name}'", where="run entry",
                                   fix=f"{hint}use one of: {', '.join(names())}")
    return found


def create(name: str, args: Mapping[str, str] | None = None) -> Benchmark:
    """The named benchmark with its run-entry arguments checked.

    `medhelm_configurable_benchmark:config_path=X.yaml` (MedHELM's way to run a benchmark defined
    by files) loads that config as a card; its runs are named for the config's benchmark, and
    `NAME:config_path=X.yaml` (how a stored run names it) loads the same config, which must define NAME.
    """
    rest = dict(args or {})
    if name == CONFIGURABLE or ("config_path" in rest and _named(name) is None):
        config = rest.pop("config_path", None)
        if not config:
            raise RunEntryError(f"{CONFIGURABLE} needs config_path=FILE.yaml", where="run entry",
                                fix="add config_path=, the benchmark's YAML config")
        spec = load_spec(Path(config))
        if name != CONFIGURABLE and spec.name != name:
            raise RunEntryError(f"the config {config} defines the benchmark '{spec.name}', not '{name}'",
                                where="run entry", fix="name the config that defines it, or run it as "
                                                       f"{CONFIGURABLE}:config_path=...")
        taken = _named(spec.name)
        if taken is not None and taken.path != spec.path:
            raise ConfigError(f"the config's benchmark name '{spec.name}' is already a benchmark's", where=config,
                              fix="give the benchmark another name in the config (its name: field)")
        return spec.create(rest)
    return get(name).create(args)


def card_files(paths: Iterable[Path]) -> list[Path]:
    """Card files named directly, or every .yaml/.yml in a named folder."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        elif path.is_file():
            found.append(path)
        else:
            raise ConfigError("a benchmark card path does not exist", where=str(path),
                              fix="correct the benchmark_cards setting")
    return found


def register_cards(paths: Iterable[Path]) -> list[BenchmarkSpec]:
    """Register every card in the given files and folders (the `benchmark_cards` setting)."""
    registered = []
    for path in card_files(paths):
        spec = load_spec(path)
        existing = _all().get(spec.name)
        if existing is not None and existing.path != path:
            raise ConfigError(f"the card name '{spec.name}' is already used by another benchmark", where=str(path),
                              fix="give the card a different name")
        _USER[spec.name] = spec
        registered.append(spec)
    return registered
