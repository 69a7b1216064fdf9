"""Paired comparisons on real stores: instances matched by id, failures unpaired, a seeded paired bootstrap
that agrees with a plain resampling of the differences."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from support.report_store import FakeRun, write_store

from medhelm_local.report.inputs import open_sources
from medhelm_local.results.paired import bootstrap_means, pair, paired_difference
from medhelm_local.store.keys import Kek


def _plain_bootstrap(differences: np.ndarray, samples: int = 4000, seed: int = 99) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = differences[rng.integers(0, differences.size, size=(samples, differences.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def test_two_models_are_compared_on_the_instances_both_scored(tmp_path: Path, kek: Kek) -> None:
    rng = random.Random(5)
    base = [float(rng.random() < 0.7) for _ in range(400)]
    other = [float(rng.random() < 0.5) for _ in range(400)]
    # The baseline's last 10 requests failed and 5 more were unscorable; the other model's last 20 failed.
    write_store(tmp_path / "s.duckdb", kek, "s", [
        FakeRun("local/base", "pubmed_qa", 400, values=base, failed=10, unscored=5),
        FakeRun("local/other", "pubmed_qa", 400, values=other, failed=20)])
    sources = open_sources([tmp_path / "s.duckdb"], kek)
    try:
        report = sources.report(baseline="local/base")
    finally:
        sources.close()
    [comparison] = report.comparisons
    pairs = 400 - 20  # the other model's failures cover the baseline's
    differences = np.array(other[:pairs]) - np.array(base[:pairs])
    assert comparison.model == "local/other" and comparison.baseline == "local/base"
    assert comparison.n_pairs == pairs and comparison.n_unpaired == (400 - 15) - pairs
    assert comparison.difference == pytest.approx(differences.mean())
    low, high = _plain_bootstrap(differences)
    assert comparison.ci_low == pytest.approx(low, abs=0.012) and comparison.ci_high == pytest.approx(high, abs=0.012)
    assert comparison.ci_high < 0  # 0.5 against 0.7: clearly worse


def test_pairing_uses_instance_ids_not_positions() -> None:
    paired = pair(np.array([3, 1, 2]), np.array([0.3, 0.1, 0.2]), np.array([2, 4, 3]), np.array([2.0, 4.0, 3.0]))
    assert sorted(zip(paired.a.tolist(), paired.b.tolist(), strict=True)) == [(0.2, 2.0), (0.3, 3.0)]
    assert paired.unpaired == 2


def test_subsets_are_weighted_equally_and_resampled_within_themselves() -> None:
    small = pair(np.arange(10), np.zeros(10), np.arange(10), np.ones(10))  # difference 1 on 10 instances
    large = pair(np.arange(1000), np.zeros(1000), np.arange(1000), np.zeros(1000))  # difference 0 on 1000
    difference, low, high, pairs, unpaired = paired_difference([small, large])
    assert difference == pytest.approx(0.5) and (low, high) == (0.5, 0.5) and (pairs, unpaired) == (1010, 0)


def test_resampling_counts_of_few_values_matches_resampling_instances() -> None:
    rng = np.random.default_rng(3)
    few = rng.choice([-1.0, 0.0, 1.0], size=500, p=[0.2, 0.5, 0.3])
    counted = bootstrap_means(few, samples=4000, seed=1)
    drawn = few[rng.integers(0, few.size, size=(4000, few.size))].mean(axis=1)
    assert counted.mean() == pytest.approx(drawn.mean(), abs=0.005)
    assert counted.std() == pytest.approx(drawn.std(), rel=0.08)
    assert np.array_equal(bootstrap_means(few, seed=7), bootstrap_means(few, seed=7))  # seeded
