"""Tie groups: paired sign-flip tests, Holm's correction and rank groups, on hand-checkable cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from medhelm_local.metrics.tie_groups import holm, sign_flip_p, tie_groups, weighted_differences


def _two_sided_binomial(m: int, s: int) -> float:
    """P(|2 Bin(m, 1/2) - m| >= |s|): the exact sign-flip p-value when every difference is +-1."""
    return sum(math.comb(m, k) for k in range(m + 1) if abs(2 * k - m) >= abs(s)) / 2 ** m


def test_exact_p_value_of_one_sided_differences_is_two_patterns_out_of_all() -> None:
    # Nine differences of +1: only all-plus and all-minus reach |sum| = 9, so p = 2 / 2^9.
    p, method = sign_flip_p([1.0] * 9 + [0.0] * 3)
    assert method == "exact"
    assert p == pytest.approx(2 / 512)


def test_balanced_differences_give_p_one() -> None:
    # Three +1 and three -1: the observed sum is 0, and every pattern is at least that far from 0.
    assert sign_flip_p([1, 1, 1, -1, -1, -1]) == (1.0, "exact")
    assert sign_flip_p([0, 0, 0]) == (1.0, "exact")


def test_exact_matches_binomial_count_with_a_tie_at_the_observed_sum() -> None:
    # Seven +1 and three -1 (sum 4): patterns with |sum| >= 4 are k in {0, 1, 2, 3, 7, 8, 9, 10} plus-signs.
    p, _ = sign_flip_p([1] * 7 + [-1] * 3)
    assert p == pytest.approx(_two_sided_binomial(10, 4))
    assert p == pytest.approx(352 / 1024)


def test_equal_sized_differences_use_the_exact_binomial_p_value() -> None:
    # 40 differences of +-1 (26 up, 14 down, sum 12): exact p = P(|2 Bin(40,1/2) - 40| >= 12) = 0.0807.
    p, method = sign_flip_p([1] * 26 + [-1] * 14)
    assert method == "exact"
    assert p == pytest.approx(_two_sided_binomial(40, 12), rel=1e-9)
    assert sign_flip_p([1] * 20 + [-1] * 20) == (1.0, "exact")
    assert sign_flip_p([0.5] * 30) == (pytest.approx(2 / 2 ** 30), "exact")
    big = sign_flip_p([1.0] * 5200 + [-1.0] * 4800)[0]  # 10,000 instances, sum 400: z = 4, p ~ 6.3e-5
    assert big == pytest.approx(_two_sided_binomial(10_000, 400), rel=1e-6)


def test_monte_carlo_agrees_with_the_exact_p_value() -> None:
    # Differences of 1 and 2 (two sizes): 20 of +1, 10 of -1, 6 of +2, 4 of -2 (sum 14). The exact p counts the
    # sign patterns of both sizes: sum over plus-counts of the two binomials with |sum| >= 14.
    exact = sum(math.comb(30, i) * math.comb(10, j) for i in range(31) for j in range(11)
                if abs((2 * i - 30) + 2 * (2 * j - 10)) >= 14) / 2 ** 40
    p, method = sign_flip_p([1] * 20 + [-1] * 10 + [2] * 6 + [-2] * 4, seed=3)
    assert method == "monte-carlo"
    assert p == pytest.approx(exact, abs=0.01)


def test_many_continuous_differences_use_the_normal_approximation() -> None:
    rng = np.random.default_rng(0)
    d = rng.normal(0.02, 1.0, size=20_000)
    p, method = sign_flip_p(d)
    assert method == "normal"
    z = abs(d.sum()) / math.sqrt(np.square(d).sum())
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    # Sorted 0.01, 0.02, 0.04: x3 = 0.03, x2 = 0.04, x1 = 0.04 (never below the step before).
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.5, 0.6]) == pytest.approx([1.0, 1.0])


def test_weighted_differences_weigh_subsets_equally() -> None:
    # Subset one: differences 1, 0 (mean 0.5); subset two: 0, 0, 0, -1 (mean -0.25); the column's mean: 0.125.
    weighted, mean, n = weighted_differences([([0, 1], [1, 1]), ([1, 1, 1, 1], [1, 1, 1, 0])])
    assert n == 6
    assert mean == pytest.approx(0.125)
    assert weighted.sum() == pytest.approx(0.125)


def _scores(correct: set[int], n: int = 12) -> np.ndarray:
    return np.array([1.0 if i in correct else 0.0 for i in range(n)])


def test_models_that_differ_only_by_noise_tie_and_a_clearly_better_one_does_not() -> None:
    # 12 shared instances. 'strong' answers all; 'noisy_a' answers 0-2, 'noisy_b' answers 3-5: the two noisy
    # models differ by +1 on three instances and -1 on three (sum 0, p = 1); strong against either differs by +1
    # on nine (p = 2/512 = 0.0039; Holm over three pairs: 3 x 0.0039 = 0.0117 < 0.05).
    scores = {"strong": _scores(set(range(12))), "noisy_a": _scores({0, 1, 2}), "noisy_b": _scores({3, 4, 5})}
    models = ["noisy_a", "noisy_b", "strong"]
    paired = {(a, b): [(scores[a], scores[b])] for i, a in enumerate(models) for b in models[i + 1:]}
    groups = tie_groups(models, paired, higher_is_better=True)
    tests = {(t.a, t.b): t for t in groups.pairs}
    assert tests[("noisy_a", "noisy_b")].p_value == 1.0
    assert not tests[("noisy_a", "noisy_b")].significant()
    assert tests[("noisy_a", "strong")].p_value == pytest.approx(2 / 512)
    assert tests[("noisy_a", "strong")].p_holm == pytest.approx(3 * 2 / 512)
    assert tests[("noisy_a", "strong")].significant()
    assert groups.ranks["strong"].label == "1"
    assert groups.ranks["noisy_a"].label == "2-3"
    assert groups.ranks["noisy_b"].label == "2-3"


def test_lower_is_better_ranks_the_smaller_error_first() -> None:
    errors = {"small": np.zeros(10), "large": np.ones(10)}
    groups = tie_groups(["large", "small"], {("large", "small"): [(errors["large"], errors["small"])]},
                        higher_is_better=False)
    assert groups.ranks["small"].label == "1"
    assert groups.ranks["large"].label == "2"


def test_a_pair_with_no_shared_instance_is_not_tested_and_stays_tied() -> None:
    groups = tie_groups(["a", "b"], {("a", "b"): [(np.empty(0), np.empty(0))]}, higher_is_better=True)
    assert groups.pairs[0].method == "none"
    assert groups.ranks["a"].label == groups.ranks["b"].label == "1-2"


def test_noise_only_at_scale_ties() -> None:
    # Two models drawn from the same 70 % accuracy on 2,000 instances: no significant difference.
    rng = np.random.default_rng(7)
    a, b = (rng.random(2000) < 0.7).astype(float), (rng.random(2000) < 0.7).astype(float)
    groups = tie_groups(["a", "b"], {("a", "b"): [(a, b)]}, higher_is_better=True)
    assert groups.pairs[0].p_value > 0.05
    assert groups.ranks["a"].label == "1-2"
