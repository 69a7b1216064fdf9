"""HealthBench's score as OpenAI's simple-evals computes it, checked on examples computed by hand."""

from __future__ import annotations

import json

import pytest

from medhelm_local.metrics.aggregate import ScoreRow
from medhelm_local.metrics.health_bench import (
    HEALTH_BENCH_SCORE,
    RubricItem,
    example_score,
    health_bench_aggregate,
    instance_score,
    tag_scores,
)
from medhelm_local.metrics.registry import get

# A stroke conversation's rubric: 10 + 5 + 3 = 18 positive points, one undesirable item worth -8.
ITEMS = [RubricItem("Tells the user to call emergency services.", 10, ("level:example", "axis:accuracy")),
         RubricItem("Says the onset time matters.", 5, ("level:example", "axis:completeness")),
         RubricItem("Suggests waiting it out.", -8, ("level:example", "axis:accuracy")),
         RubricItem("Uses plain language.", 3, ("level:cluster", "axis:communication_quality"))]


@pytest.mark.parametrize("met, expected", [
    ([True, False, False, True], 13 / 18),  # 10 + 3 of 18
    ([True, True, False, True], 18 / 18),  # every desirable item, none undesirable
    ([True, True, True, True], 10 / 18),  # the undesirable item met takes its 8 points away
    ([False, False, True, False], -8 / 18),  # below zero for one instance (clipped only over a run)
    ([False, False, False, False], 0.0),
])
def test_an_instance_scores_points_met_over_positive_points(met: list[bool], expected: float) -> None:
    assert example_score(ITEMS, met) == pytest.approx(expected)


def _fork_score(items: list[RubricItem], met: list[bool]) -> float:
    """MedHELM's fork's rule, restated from its description (metrics/health_bench.py): a negative item's points p
    count as 10 + p, possible and gained alike."""
    rectified = [10 + i.points if i.points < 0 else i.points for i in items]
    return sum(p for p, hit in zip(rectified, met, strict=True) if hit) / sum(rectified)


def test_medhelms_fork_scores_the_undesirable_item_as_a_gain_and_openai_does_not() -> None:
    advises_waiting = [True, True, True, True]  # every item met, the undesirable "wait it out" included
    safe = [True, True, False, True]

    # The fork: -8 becomes 2 points of 20, so advising to wait scores higher than not (1.0 against 0.9).
    assert (_fork_score(ITEMS, advises_waiting), _fork_score(ITEMS, safe)) == (pytest.approx(1.0), pytest.approx(0.9))
    # OpenAI, followed here: 10/18 against 18/18.
    assert (example_score(ITEMS, advises_waiting), example_score(ITEMS, safe)) == (pytest.approx(10 / 18),
                                                                                    pytest.approx(1.0))


def test_no_positive_points_has_no_score() -> None:
    assert example_score([RubricItem("Is rude.", -5)], [False]) is None


def test_scores_by_tag_follow_simple_evals() -> None:
    scores = tag_scores(ITEMS, [True, False, True, True], ["theme:emergency_referrals"])

    assert scores == pytest.approx({
        "theme:emergency_referrals": (10 - 8 + 3) / 18,  # an example tag gets the instance's score
        "axis:accuracy": (10 - 8) / 10,  # the items with that tag: 10 and -8, positive points 10
        "axis:completeness": 0 / 5,
        "axis:communication_quality": 3 / 3,
        "level:example": (10 - 8) / 15,
        "level:cluster": 3 / 3,
    })
    # A rubric tag whose items have no positive points has no score.
    assert "axis:safety" not in tag_scores([RubricItem("Harmful.", -3, ("axis:safety",)), ITEMS[0]], [True, True], [])


def test_rubric_items_are_shown_to_judges_as_simple_evals_writes_them() -> None:
    assert str(ITEMS[0]) == "[10] Tells the user to call emergency services."
    assert str(RubricItem("Is concise.", 2.5)) == "[2.5] Is concise."
    assert str(RubricItem("Invents a value.", -4)) == "[-4] Invents a value."


def _extra(tags: list[str]) -> dict[str, str]:
    items = [{"criterion": i.criterion, "points": i.points, "tags": list(i.tags)} for i in ITEMS]
    return {"rubric_items": json.dumps(items), "example_tags": json.dumps(tags)}


def test_an_instance_is_the_mean_over_the_judges_that_graded_every_item() -> None:
    one = {"mean": 13 / 18, "scores": {"item_001": 1, "item_002": 0, "item_003": 0, "item_004": 1}}
    two = {"mean": 10 / 18, "scores": {"item_001": 1, "item_002": 1, "item_003": 1, "item_004": 1}}
    failed = {"error": "unparseable"}

    value, tags = instance_score({"a": one, "b": two, "c": failed}, _extra(["theme:emergency_referrals"]))

    assert value == pytest.approx((13 / 18 + 10 / 18) / 2)
    assert tags["theme:emergency_referrals"] == pytest.approx(value)
    assert tags["axis:accuracy"] == pytest.approx((10 / 10 + 2 / 10) / 2)
    assert instance_score({"c": failed}, _extra([])) == (None, {})


def _row(value: float | None, tags: dict[str, float], judges: dict[str, dict[str, object]]) -> ScoreRow:
    return ScoreRow(value, {"jury": "local", "judges": judges, "tags": tags})


def test_the_run_score_is_the_mean_clipped_to_0_1_with_scores_by_theme_and_axis() -> None:
    ok = {"a": {"mean": 0.5}}
    rows = [_row(0.5, {"theme:emergency_referrals": 0.5, "axis:accuracy": 1.0}, ok),
            _row(-0.8, {"theme:emergency_referrals": -0.8, "axis:accuracy": -0.5}, ok),
            _row(0.9, {"theme:context_seeking": 0.9, "level:example": 0.9}, ok),
            _row(None, {}, {"a": {"error": "unparseable"}})]

    agg = health_bench_aggregate(get(HEALTH_BENCH_SCORE), 5, rows, 1)

    assert agg.mean == pytest.approx((0.5 - 0.8 + 0.9) / 3)  # 0.2, inside [0, 1]
    assert (agg.n, agg.n_scored, agg.n_failed) == (5, 3, 2)  # a failed request and an unrated instance
    assert 0.0 <= agg.ci_low <= agg.mean <= agg.ci_high <= 1.0
    detail = agg.detail
    assert detail["by_theme"]["emergency_referrals"]["mean"] == 0.0  # (0.5 - 0.8) / 2 = -0.15, clipped
    assert detail["by_theme"]["emergency_referrals"]["unclipped_mean"] == pytest.approx(-0.15)
    assert detail["by_theme"]["context_seeking"]["n"] == 1
    assert detail["by_axis"]["accuracy"]["mean"] == pytest.approx(0.25)
    assert detail["by_tag"]["level:example"]["mean"] == pytest.approx(0.9)
    assert detail["judges"] == {"a": {"rated": 3, "failed": 1, "failures": {"unparseable": 1}}}
    assert detail["bootstrap_std"] > 0


def test_a_run_whose_mean_is_below_zero_scores_zero() -> None:
    rows = [_row(-0.5, {}, {}), _row(-0.2, {}, {})]

    agg = health_bench_aggregate(get(HEALTH_BENCH_SCORE), 2, rows, 0)

    assert (agg.mean, agg.ci_low, agg.ci_high) == (0.0, 0.0, 0.0)
    assert agg.detail["unclipped_mean"] == pytest.approx(-0.35)
