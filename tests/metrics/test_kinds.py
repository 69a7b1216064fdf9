"""Aggregation kinds are registered as metrics are: a metric names one, the registry says how it is computed."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest

import medhelm_local.results.figures  # noqa: F401  (registers the run-level kinds)
from medhelm_local.errors import ConfigError
from medhelm_local.metrics.aggregate import ScoreRow, summarise
from medhelm_local.metrics.efficiency import LATENCY_P50
from medhelm_local.metrics.kinds import find_kind, kinds, per_instance_kind, run_level_kind
from medhelm_local.metrics.registry import TEXT_TASKS, Metric, all_metrics
from medhelm_local.records import Aggregate

BUILT_IN_PER_INSTANCE = ["mean", "macro_f1", "micro_f1", "jury"]
BUILT_IN_RUN_LEVEL = ["efficiency", "cost", "calibration", "agreement", "robustness"]


def _metric(name: str, aggregation: str) -> Metric:
    return Metric(name, name, "higher", 0.0, 1.0, TEXT_TASKS, frozenset(), aggregation, "a test", "a test", None)


def test_every_metric_names_a_registered_kind_and_the_built_in_kinds_keep_their_order() -> None:
    registered = {k.name: k for k in kinds()}
    unknown = {m.name: m.aggregation for m in all_metrics().values() if m.aggregation not in registered}
    assert not unknown, f"metrics of kinds nobody registered: {unknown}"
    per_instance = [k.name for k in kinds() if k.per_instance]
    run_level = [k.name for k in kinds() if not k.per_instance]
    assert per_instance[:4] == BUILT_IN_PER_INSTANCE and run_level[:5] == BUILT_IN_RUN_LEVEL
    assert all_metrics()["macro_f1"].per_instance and not all_metrics()[LATENCY_P50].per_instance


def test_a_new_per_instance_kind_is_used_by_the_metrics_that_name_it() -> None:
    @per_instance_kind("test_largest", "the largest scored value")
    def largest(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
        values = [r.value for r in rows if r.value is not None]
        return Aggregate(spec.name, n, len(values), n_failed_requests + len(rows) - len(values), max(values),
                         None, None)

    spec = _metric("test_largest_score", "test_largest")
    found = summarise(spec, 4, [ScoreRow(0.2), ScoreRow(0.9), ScoreRow(None)], 1)
    assert (found.mean, found.n_scored, found.n_failed) == (0.9, 2, 2)
    assert spec.per_instance and find_kind("test_largest") is not None


def test_a_kind_registered_twice_differently_is_refused() -> None:
    @run_level_kind("test_twice", "a run-level kind")
    def first(con: object, run: dict[str, object]) -> list[Aggregate]:
        return []

    with pytest.raises(ValueError, match="aggregation kind 'test_twice' registered twice"):
        per_instance_kind("test_twice", "another")(lambda spec, n, rows, failed: None)
    assert not _metric("test_run_level", "test_twice").per_instance


def test_a_metric_of_an_unknown_kind_is_a_clear_error_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError) as raised:
        summarise(_metric("test_unknown_kind", "median_of_medians"), 1, [ScoreRow(1.0)], 0)
    assert "'median_of_medians' is not a per-instance aggregation kind" in str(raised.value)
    assert "mean, macro_f1, micro_f1, jury" in (raised.value.fix or "")


def test_the_built_in_kinds_give_the_same_figures_as_before() -> None:
    """The mean counts failed scorers as failed; macro-F1 reads the labels each instance recorded."""
    mean = summarise(all_metrics()["exact_match"], 5, [ScoreRow(1.0), ScoreRow(0.0), ScoreRow(None)], 2)
    assert (mean.mean, mean.n_scored, mean.n_failed) == (0.5, 2, 3)
    rows = [ScoreRow(1.0, {"gold": "a", "read": "a"}), ScoreRow(0.0, {"gold": "b", "read": "a"}),
            ScoreRow(1.0, {"gold": "b", "read": "b"})]
    macro = summarise(all_metrics()["macro_f1"], 3, rows, 0)
    assert macro.mean == pytest.approx((2 / 3 + 2 / 3) / 2) and macro.detail is not None
    assert macro.detail["confusion"] == {"a": {"a": 1}, "b": {"a": 1, "b": 1}}


def test_listing_the_card_metrics_loads_no_run_level_module() -> None:
    """Asking whether a metric is per instance loads the per-instance kinds only, never results/ (a higher stage)."""
    script = ("import sys\nfrom medhelm_local.metrics.registry import usable\n"
              "from medhelm_local.records import TaskType\n"
              "print('exact_match' in usable(TaskType.MULTIPLE_CHOICE, None), "
              "'medhelm_local.results.figures' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"], done.stdout + done.stderr
