"""The read model on hand-computed cases: cells over subsets, macro averages by the taxonomy with each metric's
declared range and direction, metric groups (cost, efficiency) found from the registry, unknown metrics."""

from __future__ import annotations

import json
import math
from datetime import datetime

import pytest

from medhelm_local.metrics import registry
from medhelm_local.records import TaskType
from medhelm_local.report.build import build_report
from medhelm_local.report.read_model import MetricSummary, RunInfo


def _register(name: str, direction: str, low: float, high: float, group: str = "quality", unit: str = "") -> None:
    registry.add(registry.Metric(name, name.replace("_", " "), direction, low, high,  # type: ignore[arg-type]
                                 frozenset(TaskType), frozenset(), "mean", "a test", "a test", None, frozenset(),
                                 group, unit))  # type: ignore[arg-type]


_register("test_jury_score", "higher", 1.0, 5.0)
_register("test_error_rate", "lower", 0.0, 1.0)
_register("test_cost_usd", "lower", 0.0, math.inf, "cost", "USD")
_register("test_latency_s", "lower", 0.0, math.inf, "efficiency", "s")

PLACES = {"pubmed_qa": ("Medical Research Assistance", "Conducting Literature Research"),
          "med_qa": ("Clinical Decision Support", "Providing Clinical Knowledge Support"),
          "medcalc_bench": ("Clinical Decision Support", "Supporting Diagnostic Decisions"),
          "medication_qa": ("Patient Communication and Education", "Providing Patient Education Resources")}
MAIN = {"pubmed_qa": "exact_match", "med_qa": "exact_match", "medcalc_bench": "test_error_rate",
        "medication_qa": "test_jury_score"}


def _run(model: str, benchmark: str, args: dict[str, str] | None = None) -> RunInfo:
    key = f"{benchmark}-{model}-{'-'.join((args or {}).values())}"
    category, subcategory = PLACES[benchmark]
    return RunInfo(key, key, "s.duckdb", "s", model, "d", benchmark, benchmark.upper(), "multiple_choice", category,
                   subcategory, "public", MAIN[benchmark], f"{benchmark}:model={model}", args or {}, 100, 98, 2,
                   datetime(2026, 1, 1))


def _m(metric: str, value: float | None, half: float = 0.1) -> MetricSummary:
    low = None if value is None else value - half
    return MetricSummary(value, low, None if value is None else value + half, 100, 95, 5, metric=metric)


def _suite() -> tuple[list[RunInfo], dict[str, dict[str, MetricSummary]]]:
    values = {("M1", "pubmed_qa", ""): 0.8, ("M2", "pubmed_qa", ""): 0.6,
              ("M1", "med_qa", "a"): 0.5, ("M1", "med_qa", "b"): 0.7, ("M2", "med_qa", "a"): 0.4,
              ("M1", "medcalc_bench", ""): 0.2, ("M2", "medcalc_bench", ""): 0.4,
              ("M1", "medication_qa", ""): 4.0, ("M2", "medication_qa", ""): 2.0}
    runs, metrics = [], {}
    for (model, benchmark, split), value in values.items():
        run = _run(model, benchmark, {"split": split} if split else None)
        runs.append(run)
        metrics[run.key] = {MAIN[benchmark]: _m(MAIN[benchmark], value),
                            "test_cost_usd": _m("test_cost_usd", 2.0 if model == "M1" else 1.0),
                            "test_latency_s": _m("test_latency_s", 0.5 if model == "M1" else 0.7),
                            "not_registered_x": _m("not_registered_x", 3.0)}
    return runs, metrics


def test_macro_averages_normalise_by_declared_range_then_average_subcategories_then_categories() -> None:
    runs, metrics = _suite()
    report = build_report(runs, metrics)
    rows = {r.model: r for r in report.leaderboard.rows}
    # Normalised: error rate 0.2 -> 0.8 (lower is better); jury 4 on 1-5 -> 0.75; med_qa's subsets average 0.6.
    assert rows["M1"].categories["Clinical Decision Support"] == pytest.approx((0.8 + 0.6) / 2)
    assert rows["M2"].categories["Clinical Decision Support"] == pytest.approx((0.6 + 0.4) / 2)
    assert rows["M1"].categories["Patient Communication and Education"] == pytest.approx(0.75)
    assert rows["M2"].categories["Patient Communication and Education"] == pytest.approx(0.25)
    assert rows["M1"].categories["Clinical Note Generation"] is None
    assert rows["M1"].macro == pytest.approx((0.7 + 0.8 + 0.75) / 3)
    assert rows["M2"].macro == pytest.approx((0.5 + 0.6 + 0.25) / 3)
    heat = {(r.name, m): v for r in report.taxonomy for m, v in r.values.items()}
    assert heat[("Supporting Diagnostic Decisions", "M1")] == pytest.approx(0.8)
    assert heat[("Providing Clinical Knowledge Support", "M1")] == pytest.approx(0.6)
    assert heat[("Planning Treatments", "M1")] is None
    assert sum(1 for r in report.taxonomy if r.level == "subcategory") == 22


def test_win_rates_per_group_follow_each_metrics_direction() -> None:
    runs, metrics = _suite()
    report = build_report(runs, metrics)
    rows = {r.model: r for r in report.leaderboard.rows}
    assert [r.model for r in report.leaderboard.rows] == ["M1", "M2"]
    assert (rows["M1"].win_rate.value, rows["M1"].win_rate.columns) == (1.0, 4)
    assert rows["M2"].win_rate.value == 0.0
    # Cost and latency: lower is better, so M2 wins on cost and M1 on latency.
    assert rows["M2"].group_win_rates["cost"].value == 1.0 and rows["M1"].group_win_rates["cost"].value == 0.0
    assert rows["M1"].group_win_rates["efficiency"].value == 1.0
    assert report.groups == ("quality", "efficiency", "cost")
    assert {(p.model, p.cost) for p in report.cost} == {("M1", 2.0), ("M2", 1.0)}


def test_a_cell_averages_its_subsets_equally_and_combines_their_intervals() -> None:
    runs, metrics = _suite()
    report = build_report(runs, metrics)
    cell = report.cells[("med_qa.exact_match", "M1")]
    half = math.sqrt(0.1 ** 2 + 0.1 ** 2) / 2
    assert cell.value == pytest.approx(0.6) and cell.interval == "combined"
    assert (cell.ci_low, cell.ci_high) == pytest.approx((0.6 - half, 0.6 + half))
    assert (cell.n, cell.n_scored, cell.n_failed, len(cell.runs)) == (200, 190, 10, 2)


def test_a_metric_the_registry_does_not_know_is_shown_and_never_ranked() -> None:
    runs, metrics = _suite()
    report = build_report(runs, metrics)
    unknown = report.column("pubmed_qa.not_registered_x")
    assert unknown is not None and unknown.direction is None and not unknown.main
    assert unknown.key not in {c.key for c in report.leaderboard.columns}


def test_a_model_whose_every_instance_failed_has_no_value_and_is_not_ranked_last() -> None:
    runs, metrics = _suite()
    runs.append(_run("M3", "pubmed_qa"))
    metrics[runs[-1].key] = {"exact_match": MetricSummary(None, None, None, 100, 0, 100, metric="exact_match")}
    report = build_report(runs, metrics)
    m3 = next(r for r in report.leaderboard.rows if r.model == "M3")
    assert m3.win_rate.value is None and m3.macro is None
    assert report.cells[("pubmed_qa.exact_match", "M3")].n_failed == 100


def test_a_baseline_that_is_not_a_model_is_a_clear_error() -> None:
    runs, metrics = _suite()
    with pytest.raises(Exception, match="the baseline 'M9' has no runs") as caught:
        build_report(runs, metrics, baseline="M9")
    assert "M1, M2" in str(caught.value)


def test_a_cost_metric_brings_a_cost_against_score_plot_drawn_offline() -> None:
    from medhelm_local.report.site import build_site

    runs, metrics = _suite()
    report = build_report(runs, metrics)
    files: dict[str, str] = {}
    build_site(report, {}, files.__setitem__)
    svg = files["plots/cost.svg"]
    assert svg.startswith("<svg") and "test cost usd, mean per run (USD)" in svg and "M1" in svg
    assert "plots/cost.svg" in files["index.html"] and "Cost against score" in files["index.html"]
    assert "<svg" in files["plots/heatmap.svg"] and "http://" not in svg.replace('xmlns="http://www.w3.org/2000/svg"',
                                                                                 "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "")
    without = build_report(runs, {k: {m: s for m, s in v.items() if m != "test_cost_usd"} for k, v in metrics.items()})
    files = {}
    build_site(without, {}, files.__setitem__)
    assert "plots/cost.svg" not in files and "Cost against score" not in files["index.html"]


# MedHELM's category score as its heat-map code computes it (som-shahlab/medhelm, src/medhelm/plots/1_heatmap.py):
# a column whose values pass 1 is a jury score and becomes (x - 1) / 4; a category is the plain mean of its
# benchmarks' columns. Re-stated here from reading it, to check the report against on a hand-computed case.
def _medhelm_categories(scores: dict[str, float], places: dict[str, str]) -> dict[str, float]:
    normalised = {b: (v - 1.0) / 4.0 if v > 1 else v for b, v in scores.items()}
    by_category: dict[str, list[float]] = {}
    for benchmark, value in normalised.items():
        by_category.setdefault(places[benchmark], []).append(value)
    return {c: sum(v) / len(v) for c, v in by_category.items()}


def test_category_scores_are_given_both_as_macro_averages_and_as_medhelm_computes_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PLACES, "head_qa", ("Clinical Decision Support", "Providing Clinical Knowledge Support"))
    monkeypatch.setitem(MAIN, "head_qa", "exact_match")
    # Clinical Decision Support holds one benchmark in one subcategory and two in another: the two ways differ.
    values = {"medcalc_bench": 0.2, "med_qa": 0.6, "head_qa": 0.9, "medication_qa": 4.0}
    runs, metrics = [], {}
    for benchmark, value in values.items():
        run = _run("M1", benchmark)
        runs.append(run)
        metrics[run.key] = {MAIN[benchmark]: _m(MAIN[benchmark], value)}

    report = build_report(runs, metrics)

    row = report.leaderboard.rows[0]
    cds, pce = "Clinical Decision Support", "Patient Communication and Education"
    # By hand: error rate 0.2 -> 0.8 (lower is better); jury 4 on 1-5 -> 0.75.
    assert row.categories[cds] == pytest.approx((0.8 + (0.6 + 0.9) / 2) / 2)  # 0.775: subcategories weigh the same
    assert row.categories_medhelm[cds] == pytest.approx((0.8 + 0.6 + 0.9) / 3)  # 0.7667: benchmarks weigh the same
    assert row.categories[pce] == row.categories_medhelm[pce] == pytest.approx(0.75)
    assert row.categories_medhelm["Clinical Note Generation"] is None
    assert row.macro == pytest.approx((0.775 + 0.75) / 2)
    assert row.medhelm == pytest.approx(((0.8 + 0.6 + 0.9) / 3 + 0.75) / 2)
    # The same as MedHELM's own method, on the values as MedHELM has them (accuracy, not an error rate).
    medhelm = _medhelm_categories({"medcalc_bench": 0.8, "med_qa": 0.6, "head_qa": 0.9, "medication_qa": 4.0},
                                  {b: PLACES[b][0] for b in values})
    assert row.categories_medhelm == pytest.approx({**dict.fromkeys(row.categories_medhelm), **medhelm})
    # The taxonomy carries both rows per category, each named by its level.
    levels = [(r.level, r.name) for r in report.taxonomy if r.name == cds]
    assert levels == [("category", cds), ("category_medhelm", cds)]
    assert report.leaderboard.overall_label[0] == "Macro average"


def test_every_format_says_which_category_score_it_shows() -> None:
    from medhelm_local.report.formats import render_text

    runs, metrics = _suite()
    report = build_report(runs, metrics)

    markdown = render_text(report, "md")
    assert "Clinical Decision Support (macro)" in markdown and "Clinical Decision Support (MedHELM)" in markdown
    assert "(MedHELM: mean of benchmarks)" in markdown and "the plain mean of its benchmarks" in markdown
    latex = render_text(report, "latex")
    assert "Macro & MedHELM" in latex and "plain mean of each category's" in latex
    data = json.loads(render_text(report, "json"))
    first = data["leaderboard"]["rows"][0]
    assert {"categories", "categories_medhelm", "macro", "medhelm"} <= set(first)
    assert data["leaderboard"]["overall"] == "macro"
    assert {r["level"] for r in data["taxonomy"]} == {"category", "category_medhelm", "subcategory"}
