"""Published results beside local ones: HELM-format run folders (run_spec.json + stats.json) written here as
`helm-run` lays them out, read as external runs, matched to the local metrics that follow HELM's rules."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from support.report_store import FakeRun, write_store

from medhelm_local.errors import ConfigError
from medhelm_local.report.formats import to_markdown
from medhelm_local.report.helm_runs import read_external, run_folders
from medhelm_local.report.inputs import open_sources
from medhelm_local.report.pages import Links
from medhelm_local.report.site import top_page
from medhelm_local.store.keys import Kek


def _stat(name: str, mean: float, count: int, split: str = "test", **extra: Any) -> dict[str, Any]:
    variance = mean * (1 - mean) if mean <= 1 else 25.0  # 0/1 values, or a count (tokens)
    values = {"count": count, "sum": mean * count, "sum_squared": (variance + mean ** 2) * count, "min": 0.0,
              "max": max(1.0, mean), "mean": mean, "variance": variance, "stddev": math.sqrt(variance)}
    return {"name": {"name": name, "split": split, **extra}, **values}


def write_helm_run(folder: Path, benchmark: str, model: str, stats: list[dict[str, Any]]) -> Path:
    """One run folder as helm-run writes it: <benchmark>:model=<org_name>/ with run_spec.json and stats.json."""
    run = folder / f"{benchmark}:model={model.replace('/', '_')}"
    run.mkdir(parents=True)
    spec = {"name": f"{benchmark}:model={model.replace('/', '_')}",
            "scenario_spec": {"class_name": f"helm.benchmark.scenarios.{benchmark}_scenario.Scenario", "args": {}},
            "adapter_spec": {"method": "multiple_choice_joint", "model": model, "model_deployment": model,
                             "max_eval_instances": 1000},
            "metric_specs": [], "groups": [benchmark]}
    (run / "run_spec.json").write_text(json.dumps(spec))
    (run / "stats.json").write_text(json.dumps(stats))
    return run


def _release(root: Path) -> Path:
    runs = root / "benchmark_output" / "runs" / "v2.0.0"
    write_helm_run(runs, "pubmed_qa", "openai/gpt-4o", [
        _stat("exact_match", 0.8, 1000), _stat("exact_match", 0.7, 1000, perturbation={"name": "typos"}),
        _stat("exact_match", 0.1, 5, split="train"), _stat("num_prompt_tokens", 300.0, 1000)])
    write_helm_run(runs, "pubmed_qa", "meta/llama-3.1-70b", [_stat("exact_match", 0.6, 1000)])
    write_helm_run(runs, "medcalc_bench", "openai/gpt-4o", [_stat("medcalc_bench_accuracy", 0.35, 1047)])
    return root / "benchmark_output"


def test_run_folders_are_found_below_a_release_and_read_with_helms_metrics_matched(tmp_path: Path) -> None:
    found = read_external([_release(tmp_path)])
    assert len(run_folders(tmp_path)) == 3
    by_model = {(r.model, r.benchmark): r for r in found.runs}
    gpt = by_model[("openai/gpt-4o · published", "pubmed_qa")]
    assert gpt.external and gpt.main_metric == "helm_exact_match" and gpt.category == "Medical Research Assistance"
    metrics = found.metrics[gpt.key]
    # The test split without perturbation: 0.8 (not the typos run's 0.7 nor the train split's 0.1).
    assert metrics["helm_exact_match"].value == pytest.approx(0.8)
    half = 1.96 * math.sqrt(0.8 * 0.2 / 1000)
    assert (metrics["helm_exact_match"].ci_low, metrics["helm_exact_match"].ci_high) == pytest.approx(
        (0.8 - half, 0.8 + half))
    assert metrics["helm_exact_match"].n_failed is None  # stats.json does not say
    assert "num_prompt_tokens" in metrics  # kept under its own name, never ranked
    medcalc = by_model[("openai/gpt-4o · published", "medcalc_bench")]
    assert medcalc.main_metric == "helm_medcalc_bench_accuracy" and medcalc.display_name == "MedCalc-Bench"


def test_published_rows_stand_beside_local_ones_on_the_same_rule(tmp_path: Path, kek: Kek) -> None:
    write_store(tmp_path / "s.duckdb", kek, "s", [FakeRun("local/qwen", "pubmed_qa", 200, accuracy=0.7, seed=3)])
    sources = open_sources([tmp_path / "s.duckdb"], kek, helm_runs=[_release(tmp_path / "helm")])
    try:
        report = sources.report()
    finally:
        sources.close()
    assert report.models == ["local/qwen"]  # the leaderboard is local models only
    published = report.published
    assert published is not None
    assert [c.key for c in published.columns] == ["medcalc_bench.helm_medcalc_bench_accuracy",
                                                  "pubmed_qa.helm_exact_match"]
    rows = {r.model: r for r in published.rows}
    assert set(rows) == {"local/qwen", "openai/gpt-4o · published", "meta/llama-3.1-70b · published"}
    assert rows["openai/gpt-4o · published"].external and not rows["local/qwen"].external
    local = report.cells[("pubmed_qa.helm_exact_match", "local/qwen")]
    assert local.value is not None and 0.55 < local.value < 0.85
    # On PubMedQA gpt-4o (0.8) beats both; medcalc has one model, so it is not ranked.
    assert rows["openai/gpt-4o · published"].win_rate.value == 1.0
    assert rows["openai/gpt-4o · published"].win_rate.columns == 1


def test_a_benchmark_whose_local_runs_do_not_compare_with_medhelms_is_marked_with_the_reason(
        tmp_path: Path, kek: Kek) -> None:
    # Runs stored before the reason was recorded: the card's word on the arguments each ran with.
    write_store(tmp_path / "s.duckdb", kek, "s", [
        FakeRun("local/qwen", "mtsamples_replicate", 50, seed=3), FakeRun("local/qwen", "pubmed_qa", 50, seed=4)])
    runs = tmp_path / "helm" / "benchmark_output" / "runs" / "v2.0.0"
    write_helm_run(runs, "mtsamples_replicate", "openai/gpt-4o", [_stat("mtsamples_replicate_accuracy", 3.9, 427),
                                                                  _stat("rouge_l", 0.2, 427)])
    write_helm_run(runs, "pubmed_qa", "openai/gpt-4o", [_stat("exact_match", 0.8, 1000)])
    sources = open_sources([tmp_path / "s.duckdb"], kek, helm_runs=[tmp_path / "helm"])
    try:
        report = sources.report()
    finally:
        sources.close()

    published = report.published
    assert published is not None
    marked = {c.benchmark: (c.display_name, c.not_comparable) for c in published.columns}
    assert marked["mtsamples_replicate"][0] == "MTSamples †"
    assert "169 of its 427" in (marked["mtsamples_replicate"][1] or "")
    assert marked["pubmed_qa"] == ("PubMedQA", None)
    text = to_markdown(report)
    assert "† MTSamples: not comparable with published MedHELM results. MedHELM's loader leaves the reference" in text
    assert "PubMedQA: not comparable" not in text
    page = top_page(report, "published", Links("static"))
    assert "Not comparable with published MedHELM results" in page and "MTSamples †" in page
    assert "169 of its 427" in page


def _stats_with(text: str) -> Any:
    """Damage: stats.json holding one exact_match statistic whose values are `text` (JSON members)."""
    return lambda run: (run / "stats.json").write_text(
        '[{"name": {"name": "exact_match", "split": "test"}, ' + text + "}]")


@pytest.mark.parametrize(("damage", "words"), [
    (lambda run: (run / "stats.json").unlink(), "stats.json does not exist"),
    (lambda run: (run / "stats.json").write_text("{not json"), r"is not valid JSON \(.*\). Where: .*, line 1"),
    (_stats_with('"count": "abc", "mean": 0.5'), "has count 'abc', not a finite number"),
    (_stats_with('"count": 3, "mean": "x"'), "has mean 'x', not a finite number"),
    (_stats_with('"count": 1e400, "mean": 0.5'), "holds the number 1e400, which is not a finite number"),
    (_stats_with('"count": 2.5, "mean": 0.5'), "has count 2.5, not a whole number"),
    (_stats_with('"count": -4, "mean": 0.5'), "has count -4, not a whole number"),
    (_stats_with('"count": 3, "mean": NaN'), "holds the number NaN"),
    (_stats_with('"count": 3, "sum": true'), "has sum 'True', not a finite number"),
    (_stats_with('"count": 3, "mean": 0.5, "variance": [1]'), r"has variance '\[1\]', not a finite number"),
    (_stats_with('"count": ' + "9" * 5000), "holds a number of 5000 digits"),
    (lambda run: (run / "stats.json").write_text("[" * 3000 + "]" * 3000), "nests more than 100 levels deep"),
    (lambda run: (run / "stats.json").write_text("[" * 100_000 + "]" * 100_000), "nests more than 100 levels deep"),
    (lambda run: (run / "stats.json").write_bytes(b"\xff\xfe[\x00]\x00"), "is not UTF-8 text"),
    (lambda run: (run / "stats.json").write_text("{}"), "not a list of statistics"),
    (lambda run: (run / "run_spec.json").write_text("{}"), "no run name or no adapter_spec.model"),
])
def test_a_damaged_run_folder_is_a_clear_error_naming_the_file(tmp_path: Path, damage: Any, words: str) -> None:
    run = write_helm_run(tmp_path, "pubmed_qa", "openai/gpt-4o", [_stat("exact_match", 0.8, 10)])
    damage(run)
    with pytest.raises(ConfigError, match=words) as caught:
        read_external([tmp_path])
    assert str(run) in caught.value.message


def test_a_folder_without_runs_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no HELM run folders"):
        read_external([tmp_path])
    with pytest.raises(ConfigError, match="does not exist"):
        read_external([tmp_path / "missing"])
