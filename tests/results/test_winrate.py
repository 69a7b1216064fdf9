"""Mean win rate against HELM's published behaviour and hand-made cases.

HELM's own unit tests of `compute_aggregate_row_win_rates` (stanford-crfm/helm,
src/helm/benchmark/presentation/test_summarize.py) give tables of five models and their expected mean win
rates; each case below is one of those tables, restated as data (models A-E, columns with a direction).
"""

from __future__ import annotations

import pytest

from medhelm_local.results.winrate import column_win_rates, mean_win_rates

MODELS = ["A", "B", "C", "D", "E"]
Col = tuple[list[float | None], str | None]

# (name, columns as (values for A..E, direction), expected mean win rates for A..E)
HELM_CASES: list[tuple[str, list[Col], list[float | None]]] = [
    ("one scenario", [([1, 2, 3, 4, 5], "higher")], [0, 0.25, 0.5, 0.75, 1]),
    ("two scenarios", [([1, 2, 3, 4, 5], "higher"), ([3, 1, 2, 5, 4], "higher")], [0.25, 0.125, 0.375, 0.875, 0.875]),
    ("incomplete values", [([1, 2, 3, 4, 5], "higher"), ([3, 1, None, None, None], "higher")],
     [0.5, 0.125, 0.5, 0.75, 1]),
    ("a column with one value is skipped",
     [([1, 2, 3, 4, 5], "higher"), ([None] * 5, "higher"), ([None, 1, None, None, None], "higher")],
     [0, 0.25, 0.5, 0.75, 1]),
    ("a column without a direction is skipped", [([1, 2, 3, 4, 5], "higher"), ([3, 1, 2, 5, 4], None)],
     [0, 0.25, 0.5, 0.75, 1]),
    ("no values at all", [([None] * 5, "higher")], [None] * 5),
    ("ties count half", [([1, 1, 1, 4, 5], "higher")], [0.25, 0.25, 0.25, 0.75, 1.0]),
    ("lower is better", [([1, 2, 3, 4, 5], "lower")], [1, 0.75, 0.5, 0.25, 0]),
]


def _columns(columns: list[Col]) -> list[tuple[dict[str, float | None], str | None]]:
    return [(dict(zip(MODELS, values, strict=True)), direction) for values, direction in columns]


@pytest.mark.parametrize(("name", "columns", "expected"), HELM_CASES, ids=[c[0] for c in HELM_CASES])
def test_mean_win_rates_match_helms_published_cases(name: str, columns: list[Col],
                                                    expected: list[float | None]) -> None:
    rates = mean_win_rates(MODELS, _columns(columns))
    assert [rates[m].value for m in MODELS] == pytest.approx(expected)


def test_the_number_of_columns_counted_is_reported_per_model() -> None:
    rates = mean_win_rates(MODELS, _columns([([1, 2, 3, 4, 5], "higher"), ([3, 1, None, None, None], "higher")]))
    assert [rates[m].columns for m in MODELS] == [2, 2, 1, 1, 1]


def test_ties_and_missing_cells_together_by_hand() -> None:
    # Column 1: A and B tie at the top, C last. Column 2: only A and C, C wins. Column 3: lower is better,
    # B alone with D (B better). A: (0.5 + 1)/2 in col 1 -> 0.75; col 2 -> 0: mean 0.375.
    columns = _columns([([0.9, 0.9, 0.1, None, None], "higher"), ([0.2, None, 0.8, None, None], "higher"),
                        ([None, 3.0, None, 7.0, None], "lower")])
    rates = mean_win_rates(MODELS, columns)
    assert rates["A"].value == pytest.approx((0.75 + 0.0) / 2)
    assert rates["B"].value == pytest.approx((0.75 + 1.0) / 2)
    assert rates["C"].value == pytest.approx((0.0 + 1.0) / 2)
    assert rates["D"].value == pytest.approx(0.0) and rates["D"].columns == 1
    assert rates["E"].value is None and rates["E"].columns == 0


def test_one_column_counts_each_other_model_once() -> None:
    assert column_win_rates({"A": 2.0, "B": 2.0, "C": None}, True) == {"A": 0.5, "B": 0.5}
    assert column_win_rates({"A": 2.0, "B": None}, True) == {}
