"""Aggregation kinds: how a metric's values become a run's figure, registered as metrics are.

A metric names its kind (`aggregation="macro_f1"`); the kind says how the run's figure is made. A
per-instance kind combines the stored per-instance scores (`over_scores`: the mean, macro-F1, micro-F1,
the jury's); a run-level kind reads a finished run's stored rows (`over_run`: efficiency, cost,
calibration, agreement, robustness) and may give several metrics' figures at once. Per-instance kinds
are declared in metrics/aggregate.py; run-level ones in results/figures.py, which owns reading a
run's rows. A hospital's own kind registers with the same decorators:

    @per_instance_kind("median", "the median over scored instances")
    def median(spec, n_instances, rows, n_failed_requests): ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from medhelm_local.errors import ConfigError
from medhelm_local.registry import Registry

if TYPE_CHECKING:
    from medhelm_local.metrics.aggregate import ScoreRow
    from medhelm_local.metrics.registry import Metric
    from medhelm_local.records import Aggregate

# (metric, instances in the run, every stored score row of the metric, failed requests) -> the run's aggregate
OverScores = Callable[["Metric", int, "Sequence[ScoreRow]", int], "Aggregate"]
# (a store's connection, the run as results/figures.py's `read_run` gives it) -> the figures it can compute
OverRun = Callable[[Any, "dict[str, Any]"], "list[Aggregate]"]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class AggregationKind:
    """One registered way from a metric's values to a run's figure."""

    name: str
    description: str
    over_scores: OverScores | None = None  # per-instance kinds
    over_run: OverRun | None = None  # run-level kinds

    @property
    def per_instance(self) -> bool:
        """True when the metric has a value per instance (cards may name it); False for a run-level figure."""
        return self.over_scores is not None


_KINDS = Registry[AggregationKind]("aggregation kind", None)


def _add(kind: AggregationKind) -> AggregationKind:
    if (kind.over_scores is None) == (kind.over_run is None):
        raise ValueError(f"aggregation kind {kind.name!r}: give exactly one of over_scores, over_run")
    return _KINDS.add(kind.name, kind)


def per_instance_kind(name: str, description: str) -> Callable[[F], F]:
    """Decorator: register `how(metric, n_instances, rows, n_failed_requests) -> Aggregate` as kind `name`."""

    def register(how: F) -> F:
        _add(AggregationKind(name, description, over_scores=how))
        return how

    return register


def run_level_kind(name: str, description: str) -> Callable[[F], F]:
    """Decorator: register `how(con, run) -> [Aggregate]` as kind `name`, computed when a run finishes."""

    def register(how: F) -> F:
        _add(AggregationKind(name, description, over_run=how))
        return how

    return register


def _builtins() -> None:
    # The per-instance kinds: here, since a metric's declaration asks whether its kind is one. The run-level ones
    # register when results/figures.py is imported, which is where they are computed.
    import medhelm_local.metrics.aggregate  # noqa: F401


def find_kind(name: str) -> AggregationKind | None:
    """The kind `name`, or None (a run-level kind is known once results/figures.py is imported)."""
    found = _KINDS.registered(name)
    if found is None:
        _builtins()
        found = _KINDS.registered(name)
    return found


def per_instance(name: str) -> AggregationKind:
    """The per-instance kind `name`; an error naming the known ones otherwise."""
    found = find_kind(name)
    if found is None or found.over_scores is None:
        known = ", ".join(k.name for k in kinds() if k.per_instance)
        raise ConfigError(f"'{name}' is not a per-instance aggregation kind", where="metric declaration",
                          fix=f"declare the metric with one of: {known}")
    return found


def kinds() -> list[AggregationKind]:
    """Every kind registered so far, in the order registered (run-level ones once results/figures.py is loaded)."""
    _builtins()
    return _KINDS.in_order()
