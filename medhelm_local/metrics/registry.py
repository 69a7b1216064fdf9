"""The metric registry: every metric declares what it measures before anything can name it.

A metric is a name, a direction (is higher better?), a range, the task types it applies to, what
it needs (a reference, the options, the label set, logprobs, a judge, a database), how its
values become a run's figure (a registered aggregation kind, metrics/kinds.py: the mean with a
bootstrap interval, macro-F1, micro-F1, ...) and which reference rule it follows. Benchmarks and
cards name metrics from here; an unknown metric, or one that cannot apply to the task, is an error
listing the valid ones. Win rates read the direction, normalised leaderboards read the range.

Built-in metrics register with the same decorator a hospital's own would:

    @metric("exact_match", title="Exact match", task_types=CHOICE_TASKS, needs=("options",),
            follows="medhelm-local (robust reading of the chosen option)")
    def exact_match(instance, answer, ctx): ...
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.kinds import find_kind
from medhelm_local.records import Instance, TaskType
from medhelm_local.registry import Registry

Direction = Literal["higher", "lower"]
Need = Literal["reference", "options", "labels", "tolerance", "logprobs", "judge", "database"]
# What a metric is about, for reports: each group gets its own columns and its own mean win rate (as
# HELM groups accuracy, calibration, robustness and efficiency); a cost metric makes the report draw
# cost against score. "agreement" (how far a jury's judges agree) is about the judges, not the model:
# its own columns, no win rate.
Group = Literal["quality", "calibration", "robustness", "efficiency", "cost", "agreement"]
GROUPS: tuple[Group, ...] = ("quality", "calibration", "robustness", "efficiency", "cost")

ALL_TASKS = frozenset(TaskType)
CHOICE_TASKS = frozenset({TaskType.MULTIPLE_CHOICE})
LABEL_TASKS = frozenset({TaskType.CLASSIFICATION})
NUMERIC_TASKS = frozenset({TaskType.CALCULATION})
TEXT_TASKS = frozenset({TaskType.GENERATION})


@dataclass(frozen=True)
class MetricValue:
    """What a scorer read from one answer: the value, the answer it read, and facts an aggregation needs."""

    value: float
    extracted: str | None = None
    detail: Mapping[str, Any] | None = None


@dataclass
class ScoringContext:
    """What a benchmark tells its metrics beyond the instance: its label set, tolerance, run-entry
    arguments, and a place for per-run resources (an opened database) that scorers may cache."""

    labels: tuple[str, ...] = ()
    synonyms: Mapping[str, str] = field(default_factory=dict)
    lettered: bool = False  # the prompt letters the labels, so "B" may name the second label
    tolerance_absolute: float = 0.0
    tolerance_relative: float = 0.0
    args: Mapping[str, str] = field(default_factory=dict)
    resources: dict[str, Any] = field(default_factory=dict)


class ScoringFailed(Exception):  # noqa: N818  (a scorer's way to say "not scorable", not a program error)
    """Raised by a scorer when an answer cannot be scored for a reason outside the model's control
    (the gold query of an EHRSQL question fails on the database); the instance is counted as failed
    for that metric with `reason`, never given a value."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


# Reads one answer; returns None when the metric does not apply to this instance.
Scorer = Callable[[Instance, str, ScoringContext], MetricValue | None]
S = TypeVar("S", bound=Callable[..., MetricValue | None])


@dataclass(frozen=True)
class Metric:
    """One registered metric."""

    name: str
    title: str
    direction: Direction
    lower: float
    upper: float
    task_types: frozenset[TaskType]
    needs: frozenset[Need]
    aggregation: str  # a registered aggregation kind's name (metrics/kinds.py)
    follows: str  # the rule it follows: a published reference, or this project's documented improvement
    description: str
    scorer: Scorer | None  # None for metrics another stage fills in (the jury) and run-level figures
    # Benchmark-specific metrics read fields only one reader gives its instances (MedCalc's limits,
    # MEDEC's error sentence): they apply only to benchmarks read by these readers. Empty: any.
    readers: frozenset[str] = frozenset()
    group: Group = "quality"
    unit: str = ""  # shown beside values and on plot axes ("s", "USD", "tokens/s"); "" for a score
    # A metric of the `jury` kind with its own way over a run (failures per judge, HealthBench's themes):
    # (metric, n instances, every score row, failed requests) -> Aggregate.
    aggregator: Callable[..., Any] | None = None
    # "completion": a published rule reproduced as its system scores (HELM's strict metrics): it reads the reply as
    # that system's output processors leave it (a chat template's open reasoning block kept), not the answer read
    # out of it.
    sees: Literal["answer", "completion"] = "answer"

    @property
    def per_instance(self) -> bool:
        """True for metrics with a value per instance (cards may name them); False for run-level figures."""
        kind = find_kind(self.aggregation)  # a run-level kind, or one not registered, is not per instance
        return kind is not None and kind.per_instance

    @property
    def bounded(self) -> bool:
        """True when the declared range is finite, so values can be normalised to 0-1."""
        return math.isfinite(self.lower) and math.isfinite(self.upper)

    @property
    def higher_is_better(self) -> bool:
        """True when a larger value is a better result."""
        return self.direction == "higher"

    def normalise(self, value: float) -> float:
        """The value on 0-1 by the declared range, 1 always best (for macro averages and heat maps)."""
        share = (value - self.lower) / (self.upper - self.lower)
        return share if self.higher_is_better else 1.0 - share

    def applies_to(self, task_type: TaskType) -> bool:
        """True when the metric can score this kind of task."""
        return task_type in self.task_types


# Every metric module of this package declares its metrics on import; the others hold shared code.
_METRICS = Registry[Metric]("metric", "medhelm_local.metrics", same=lambda a, b: a == b,
                            not_entries=frozenset({"registry", "aggregate", "kinds", "extract", "scoring", "slices",
                                                         "tie_groups"}))
# Families of metrics named by a pattern (the jury score on a rubric's declared scale, `jury_score_0_5`):
# each resolver registers and returns the metric a name denotes, or None.
_FAMILIES: list[Callable[[str], Metric | None]] = []


def add_family(resolver: Callable[[str], Metric | None]) -> None:
    """Register a resolver for metric names made by a pattern (declared on first use, in any process)."""
    if resolver not in _FAMILIES:
        _FAMILIES.append(resolver)


def _lookup(name: str) -> Metric | None:
    found = _METRICS.registered(name)
    if found is None:
        for resolver in _FAMILIES:
            found = resolver(name)
            if found is not None:
                break
    return found


def metric(name: str, *, title: str, follows: str, task_types: Iterable[TaskType],
           direction: Direction = "higher", value_range: tuple[float, float] = (0.0, 1.0),
           needs: Iterable[Need] = (), aggregation: str = "mean", readers: Iterable[str] = (),
           description: str | None = None, group: Group = "quality", unit: str = "",
           sees: Literal["answer", "completion"] = "answer") -> Callable[[S], S]:
    """Decorator: register `scorer` under `name` with its declaration."""

    def register(scorer: S) -> S:
        doc = description or (getattr(scorer, "__doc__", None) or title).strip().splitlines()[0]
        add(Metric(name, title, direction, value_range[0], value_range[1], frozenset(task_types),
                   frozenset(needs), aggregation, follows, doc, scorer, frozenset(readers), group, unit,
                   sees=sees))
        return scorer

    return register


def add(spec: Metric) -> Metric:
    """Register a metric declared without a scorer function of its own (e.g. a jury score)."""
    if not spec.lower < spec.upper:
        raise ValueError(f"metric {spec.name!r}: its range must run from low to high")
    return _METRICS.add(spec.name, spec)


class _Known(dict[str, Metric]):
    """The registered metrics by name; a name of a family (`jury_score_0_5`) is found too, though not listed."""

    def get(self, key: str, default: Any = None) -> Any:
        found = super().get(key)
        return found if found is not None else (_lookup(key) or default)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or (isinstance(key, str) and _lookup(key) is not None)

    def __missing__(self, key: str) -> Metric:
        found = _lookup(key)
        if found is None:
            raise KeyError(key)
        return found


def all_metrics() -> dict[str, Metric]:
    """Every registered metric by name (a family's metrics, named by their pattern, are found by `get`)."""
    return _Known(_METRICS.all())


def names(task_type: TaskType | None = None) -> list[str]:
    """Metric names, optionally only those that apply to a task type."""
    return [m.name for m in all_metrics().values() if task_type is None or m.applies_to(task_type)]


def find(name: str) -> Metric | None:
    """The metric `name` (a family's included), or None: registered already, else declared by the module of that
    name, else by any metric module. A run then imports the modules of its own metrics and no others; a name no
    module declares imports them all before it is found unknown."""
    found = _lookup(name)
    if found is None:
        _METRICS.find(name)  # the metric's own module (exact_match.py declares exact_match), if there is one
        found = _lookup(name)
    if found is None:
        _METRICS.load_all()
        found = _lookup(name)
    return found


def get(name: str, *, where: str = "metric name") -> Metric:
    """The metric registered as `name`, or an error listing the registered ones."""
    found = find(name)
    if found is None:
        close = difflib.get_close_matches(name, names(), n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ConfigError(f"there is no metric called '{name}'", where=where,
                          fix=f"{hint}use one of: {', '.join(names())}")
    return found


def usable(task_type: TaskType, reader: str | None) -> list[str]:
    """Metrics a benchmark of this task type, read by this reader (None: a card's own file), can name."""
    return [m.name for m in all_metrics().values()
            if m.per_instance and m.applies_to(task_type) and (not m.readers or reader in m.readers)]


def check_metrics(metric_names: Iterable[str], task_type: TaskType, *, where: str,
                  reader: str | None = None) -> list[Metric]:
    """The named metrics, after checking each exists and can score this benchmark."""
    checked = []
    for name in metric_names:
        spec = get(name, where=where)
        if not spec.per_instance:
            raise ConfigError(f"'{name}' is a run-level figure, computed for every run it applies to; a card names "
                              "metrics scored per instance", where=where,
                              fix=f"remove it; use one of: {', '.join(usable(task_type, reader))}")
        fits = spec.applies_to(task_type) and (not spec.readers or reader in spec.readers)
        if not fits:
            why = (f"it reads fields only the {', '.join(sorted(spec.readers))} data has" if spec.applies_to(task_type)
                   else f"it applies to {', '.join(sorted(t.value for t in spec.task_types))} tasks")
            raise ConfigError(f"metric '{name}' cannot score this {task_type.value} benchmark ({why})", where=where,
                              fix=f"use one of: {', '.join(usable(task_type, reader))}")
        checked.append(spec)
    return checked
