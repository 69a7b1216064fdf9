"""Published results beside local ones: HELM-format run folders (`run_spec.json` + `stats.json`, as
`helm-run` writes them and MedHELM releases publish them), read from disk as external runs.

Only what the folder holds is read: the run's name (benchmark and arguments), its model, and its
`test` statistics without perturbation (`valid` when a run has no test split). HELM computes its
metrics by HELM's rules, so each statistic is matched to the local metric that follows the same rule:
`helm_<name>` when that is registered (HELM's `exact_match` is `helm_exact_match` here), else `<name>`
itself (`rouge_l`); anything else is kept under its own name, shown but never ranked. A run's main
metric is MedHELM's main metric for its benchmark (the shipped taxonomy), matched the same way.
Intervals are the normal approximation from the statistic's variance and count (stats.json has no
bootstrap). The counts of failed instances are not in stats.json and are shown as unknown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.registry import all_metrics
from medhelm_local.report.read_model import MetricSummary, RunInfo, slug
from medhelm_local.report.stores import UNPLACED
from medhelm_local.safe_parse import Limits, load_json
from medhelm_local.taxonomy import load_taxonomy

PUBLISHED = "published"
_MAX_DEPTH = 4
_LIMITS = Limits(max_bytes=256 << 20)  # stats.json of a large run is tens of MB


@dataclass(frozen=True)
class ExternalRuns:
    """External runs and their metrics, as read from HELM-format folders."""

    runs: list[RunInfo]
    metrics: dict[str, dict[str, MetricSummary]]
    sources: list[str]


def local_metric(helm_name: str) -> str:
    """The local metric that follows HELM's rule for a HELM statistic's name."""
    registered = all_metrics()
    if f"helm_{helm_name}" in registered:
        return f"helm_{helm_name}"
    return helm_name


def external_model(model: str) -> str:
    """How an external model is named in a report (never the same as a local model's name)."""
    return f"{model} · {PUBLISHED}"


def run_folders(root: Path) -> list[Path]:
    """`root` if it is a HELM run folder, else every run folder below it (a suite or release folder)."""
    if not root.is_dir():
        raise ConfigError("the HELM results folder does not exist or is not a folder", where=str(root),
                          fix="give a folder holding HELM run folders (each with run_spec.json and stats.json)")
    found: list[Path] = []

    def walk(folder: Path, depth: int) -> None:
        if (folder / "run_spec.json").is_file():
            found.append(folder)
            return
        if depth < _MAX_DEPTH:
            for child in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
                walk(child, depth + 1)

    walk(root, 0)
    if not found:
        raise ConfigError("no HELM run folders (with run_spec.json) were found here", where=str(root),
                          fix="give the runs folder of a HELM suite or release, e.g. benchmark_output/runs/v2.0.0")
    return found


def _load(path: Path) -> Any:
    return load_json(path, f"HELM {path.name}", limits=_LIMITS,
                     if_missing="copy the whole run folder (run_spec.json and stats.json) as helm-run wrote it")


def _entry_args(name: str) -> tuple[str, dict[str, str]]:
    """(benchmark, arguments) from a HELM run name such as `medcalc_bench:model=openai_gpt-4o`."""
    benchmark, _, rest = name.partition(":")
    args = {}
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        if key not in ("model", "model_deployment"):
            args[key.strip()] = value.strip()
    return benchmark.strip(), args


def _number(stat: dict[str, Any], key: str, where: Path) -> float | None:
    """A statistic's field as a finite number (None when absent); anything else is a ConfigError."""
    value = stat.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        name = stat["name"]["name"]
        raise ConfigError(f"statistic '{name[:60]}' has {key} {str(value)[:40]!r}, not a finite number",
                          where=str(where), fix="give stats.json as helm-run wrote it; it may be damaged")
    return float(value)


def _summary(metric: str, stat: dict[str, Any], where: Path) -> MetricSummary:
    raw_count = _number(stat, "count", where) or 0.0
    if raw_count < 0 or raw_count != int(raw_count):
        raise ConfigError(f"statistic '{stat['name']['name'][:60]}' has count {raw_count:g}, not a whole number "
                          "of instances", where=str(where), fix="give stats.json as helm-run wrote it")
    count = int(raw_count)
    mean = _number(stat, "mean", where)
    if mean is None and count:
        mean = (_number(stat, "sum", where) or 0.0) / count
    low = high = None
    variance = _number(stat, "variance", where)
    if mean is not None and count > 1 and variance is not None:
        half = 1.96 * math.sqrt(max(variance, 0.0) / count)
        low, high = mean - half, mean + half
        spec = all_metrics().get(metric)
        if spec is not None and spec.bounded:
            low, high = max(low, spec.lower), min(high, spec.upper)
    return MetricSummary(mean, low, high, count, count, None, "normal", metric=metric)


def _test_stats(stats: Any, where: Path) -> dict[str, dict[str, Any]]:
    if not isinstance(stats, list):
        raise ConfigError("stats.json is not a list of statistics", where=str(where),
                          fix="give stats.json as helm-run writes it")
    by_split: dict[str, dict[str, dict[str, Any]]] = {}
    for stat in stats:
        name = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(name, dict) or not isinstance(name.get("name"), str):
            continue
        if name.get("perturbation") or name.get("sub_split"):
            continue
        by_split.setdefault(str(name.get("split")), {})[name["name"]] = stat
    return by_split.get("test") or by_split.get("valid") or {}


def read_run(folder: Path) -> tuple[RunInfo, dict[str, MetricSummary]]:
    """One HELM run folder as an external run and its metrics."""
    spec = _load(folder / "run_spec.json")
    stats = _test_stats(_load(folder / "stats.json"), folder / "stats.json")
    adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    if not isinstance(adapter, dict) or not isinstance(spec.get("name"), str) or not adapter.get("model"):
        raise ConfigError("run_spec.json has no run name or no adapter_spec.model", where=str(folder / "run_spec.json"),
                          fix="give run_spec.json as helm-run writes it")
    benchmark, args = _entry_args(spec["name"])
    metrics: dict[str, MetricSummary] = {}
    for helm_name, stat in stats.items():
        metric = local_metric(helm_name)
        metrics.setdefault(metric, _summary(metric, stat, folder / "stats.json"))
    taxonomy = load_taxonomy()
    place = taxonomy.placement(benchmark)
    placed = next((b for b in place.benchmarks if b.name == benchmark), None) if place else None
    main = local_metric(placed.main_metric) if placed else next(iter(metrics), "")
    run = RunInfo(
        key=f"helm:{slug(folder.name)}", run_id=folder.name, source=str(folder), suite=folder.parent.name,
        model=external_model(str(adapter["model"])), deployment="", benchmark=benchmark,
        display_name=placed.display_name if placed else benchmark, task_type="",
        category=place.category if place else UNPLACED, subcategory=place.name if place else UNPLACED,
        access="public", main_metric=main, run_entry=spec["name"], args=args,
        n_instances=metrics[main].n if main in metrics else None, n_completed=None, n_failed=None, external=True)
    return run, metrics


def read_external(roots: list[Path]) -> ExternalRuns:
    """Every HELM run below each of `roots`; runs with the same folder name get distinct keys."""
    runs: list[RunInfo] = []
    metrics: dict[str, dict[str, MetricSummary]] = {}
    for root in roots:
        for folder in run_folders(root):
            run, found = read_run(folder)
            key, n = run.key, 2
            while key in metrics:
                key, n = f"{run.key}-{n}", n + 1
            if key != run.key:
                run = replace(run, key=key)
            runs.append(run)
            metrics[key] = found
    return ExternalRuns(runs, metrics, [str(r) for r in roots])
