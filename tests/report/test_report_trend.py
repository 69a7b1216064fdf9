"""`report --trend` over three suites of the same models and benchmark, from real encrypted stores: each model's
main metric per suite, the change between suites with its interval (paired on shared instances, two-sample
otherwise), flagged when larger than its interval, and a model build swap flagged whatever the scores did."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import datetime
from pathlib import Path

import pytest
from conftest import run_cli
from support.trend_stores import SUITES, N, write_suites

from medhelm_local.report.read_model import MetricSummary, RunInfo
from medhelm_local.report.trend import PAIRED, TWO_SAMPLE, SuitePoint, build_trend
from medhelm_local.store.keys import Kek


@pytest.fixture
def results(tmp_path: Path, kek: Kek) -> Path:
    folder = tmp_path / "results"
    write_suites(folder, kek)
    return folder


def _report(results: Path, kek_file: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli("report", "--output", str(results), *args, env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout, done.stderr


def test_trend_json_flags_a_real_change_and_a_build_swap_but_not_noise(results: Path, kek_file: Path) -> None:
    code, out, err = _report(results, kek_file, "--trend", *SUITES, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    # The report itself is of the last suite only (its runs, not three months averaged together).
    assert {r["suite"] for r in data["runs"]} == {"mar"}
    trend = data["trend"]
    assert trend["suites"] == ["jan", "feb", "mar"] and "paired bootstrap" in trend["change_test"]
    lines = {line["model"]: line for line in trend["lines"]}
    steady, swapped = lines["local/steady"], lines["local/swapped"]
    assert [p["value"] for p in steady["points"]] == [0.5, 0.5, 0.9]
    assert [p["builds"] for p in swapped["points"]] == [["swap-v1"], ["swap-v2"], ["swap-v2"]]
    jan_feb, feb_mar = steady["steps"]
    # jan -> feb: the same 20 instances right, every paired difference 0: an interval of [0, 0], nothing flagged.
    assert (jan_feb["difference"], jan_feb["ci_low"], jan_feb["ci_high"]) == (0.0, 0.0, 0.0)
    assert jan_feb["test"] == PAIRED and jan_feb["n_pairs"] == N and not jan_feb["flagged"]
    # feb -> mar: 16 of 40 differences are +1, the rest 0: mean 0.4, standard error sqrt(0.4 * 0.6 / 40) = 0.0775,
    # so the bootstrap's 95 % interval is about 0.4 +/- 0.15 and excludes 0: flagged, better (higher is better).
    assert feb_mar["difference"] == pytest.approx(0.4)
    assert feb_mar["ci_low"] == pytest.approx(0.4 - 1.96 * math.sqrt(0.24 / N), abs=0.04)
    assert feb_mar["ci_high"] == pytest.approx(0.4 + 1.96 * math.sqrt(0.24 / N), abs=0.04)
    assert feb_mar["flagged"] and feb_mar["verdict"] == "better" and not feb_mar["build_changed"]
    swap, noise = swapped["steps"]
    # The build swap shows though the score did not move.
    assert swap["build_changed"] and not swap["flagged"] and swap["difference"] == 0.0
    assert (swap["builds_from"], swap["builds_to"]) == (["swap-v1"], ["swap-v2"])
    # feb -> mar: 2 up, 2 down: a paired mean of 0 whose interval holds 0 on both sides.
    assert noise["difference"] == 0.0 and noise["ci_low"] < 0 < noise["ci_high"] and not noise["flagged"]
    assert not noise["build_changed"]
    assert trend["build_changes"] == [{"model": "local/swapped", "suite_from": "jan", "suite_to": "feb",
                                       "builds_from": ["swap-v1"], "builds_to": ["swap-v2"],
                                       "benchmarks": ["PubMedQA"]}]


def test_trend_markdown_names_each_change_and_the_swap(results: Path, kek_file: Path) -> None:
    code, out, err = _report(results, kek_file, "--trend", *SUITES, "--format", "md")
    assert code == 0, err
    assert "## Trend across suites (jan → feb → mar)" in out
    row = next(line for line in out.splitlines() if line.startswith("| PubMedQA | local/steady"))
    assert "0.500" in row and "0.900" in row and "feb → mar: 0.400" in row and "(paired) **better**" in row
    swapped = next(line for line in out.splitlines() if line.startswith("| PubMedQA | local/swapped"))
    assert "**build changed** (swap-v1 → swap-v2)" in swapped


def test_trend_html_page_with_its_plot(results: Path, kek_file: Path, tmp_path: Path) -> None:
    folder = tmp_path / "site"
    code, _, err = _report(results, kek_file, "--trend", *SUITES, "--out", str(folder))
    assert code == 0, err
    page = " ".join((folder / "trend.html").read_text().split())
    assert 'href="trend.html">Trend</a>' in (folder / "index.html").read_text()
    assert "jan</strong> → <strong>feb</strong> → <strong>mar" in page
    assert "1 change(s) larger than their interval; 1 model build change(s)" in page
    assert "build changed: swap-v1 → swap-v2" in page and '<span class="flag better">better</span>' in page
    assert 'href="trend.csv">trend.csv</a>' in page and (folder / "trend.csv").read_text().startswith("benchmark,")
    assert (folder / "report.csv").read_text().startswith("model,external,benchmark,")
    svg = (folder / "plots" / "trend.svg").read_text()
    assert svg.startswith("<svg") and "http" not in svg.replace("http://www.w3.org", "")
    assert "PubMedQA" in svg and "local/swapped" in svg


def test_trend_needs_two_suites(results: Path, kek_file: Path) -> None:
    code, _, err = _report(results, kek_file, "--trend", "jan", "--format", "json")
    assert code != 0 and "a trend needs two suites or more" in err and "--trend" in err


def _run(suite: str) -> RunInfo:
    key = f"medication_qa-m-{suite}"
    return RunInfo(key, key, f"{suite}.duckdb", suite, "m", "d", "medication_qa", "MedicationQA", "generation",
                   "c", "s", "public", "rouge_l", "medication_qa:model=m", {}, 100, 100, 0, datetime(2026, 1, 1))


def test_without_shared_instances_the_change_is_a_two_sample_interval() -> None:
    # No per-instance scores to pair: the two runs' intervals, half-widths 0.1 and 0.05 in quadrature (0.1118).
    points = [SuitePoint(s, [_run(s)], {_run(s).key: {"rouge_l": MetricSummary(v, v - h, v + h, 100, 100, 0,
                                                                               metric="rouge_l")}})
              for s, v, h in (("jan", 0.6, 0.1), ("feb", 0.9, 0.05), ("mar", 0.95, 0.05))]
    line, = build_trend(points, None).lines
    first, second = line.steps
    half = math.hypot(0.1, 0.05)
    assert first.test == TWO_SAMPLE and first.difference == pytest.approx(0.3)
    assert (first.ci_low, first.ci_high) == (pytest.approx(0.3 - half), pytest.approx(0.3 + half))
    assert first.flagged and line.verdict(first) == "better"
    assert second.difference == pytest.approx(0.05) and not second.flagged  # 0.05 +/- 0.0707 holds 0
    assert not first.build_changed  # no build reported: nothing to compare, nothing claimed


def _rows(text: str) -> dict[tuple[str, str, str], dict[str, str]]:
    return {(r["benchmark"], r["model"], r["suite"]): r for r in csv.DictReader(io.StringIO(text, newline=""))}


def test_trend_csv_reads_back_a_row_per_model_benchmark_and_suite(results: Path, kek_file: Path,
                                                                   tmp_path: Path) -> None:
    target = tmp_path / "trend.csv"
    code, _, err = _report(results, kek_file, "--trend", *SUITES, "--format", "csv", "--out", str(target))
    assert code == 0, err
    rows = _rows(target.read_text(encoding="utf-8"))
    assert set(rows) == {("pubmed_qa", m, s) for m in ("local/steady", "local/swapped") for s in SUITES}
    steady = [rows[("pubmed_qa", "local/steady", s)] for s in SUITES]
    assert [float(r["value"]) for r in steady] == [0.5, 0.5, 0.9]
    assert [r["suite_index"] for r in steady] == ["0", "1", "2"]
    assert steady[0]["change_from"] == "" and steady[0]["difference"] == "" and steady[0]["flagged"] == ""
    # feb -> mar, as the JSON test computes it: +0.4 on 40 paired instances, flagged, better.
    mar = steady[2]
    assert mar["change_from"] == "feb" and float(mar["difference"]) == pytest.approx(0.4)
    assert float(mar["difference_ci_low"]) > 0 and mar["change_test"] == PAIRED and mar["n_pairs"] == str(N)
    assert (mar["flagged"], mar["verdict"], mar["build_changed"]) == ("True", "better", "False")
    feb = rows[("pubmed_qa", "local/swapped", "feb")]
    assert (feb["builds"], feb["build_changed"], feb["flagged"]) == ("swap-v2", "True", "False")
    assert rows[("pubmed_qa", "local/swapped", "jan")]["builds"] == "swap-v1"
    # The same numbers as the JSON report gives.
    code, out, err = _report(results, kek_file, "--trend", *SUITES, "--format", "json")
    line = next(x for x in json.loads(out)["trend"]["lines"] if x["model"] == "local/steady")
    assert float(mar["difference_ci_high"]) == line["steps"][1]["ci_high"]
    assert float(steady[1]["ci_low"]) == line["points"][1]["ci_low"]


def test_trend_latex_adds_a_table_of_the_suites(results: Path, kek_file: Path) -> None:
    code, out, err = _report(results, kek_file, "--trend", *SUITES, "--format", "latex")
    assert code == 0, err
    assert out.count(r"\begin{tabular}") == 2 and out.count(r"\end{table}") == 2
    assert r"Benchmark & Model & jan & feb & mar \\" in out
    steady = next(x for x in out.splitlines() if x.startswith(r"PubMedQA & local/steady"))
    assert "0.500" in steady and r"0.900" in steady and r"$^\dagger$\,better" in steady
    swapped = next(x for x in out.splitlines() if x.startswith(r"PubMedQA & local/swapped"))
    assert swapped.count(r"$^\ddagger$") == 1 and r"$^\dagger$" not in swapped.replace(r"$^\ddagger$", "")


def test_without_trend_the_csv_is_the_cells(results: Path, kek_file: Path) -> None:
    code, out, err = _report(results, kek_file, "mar", "--format", "csv")
    assert code == 0, err
    assert out.startswith("model,external,benchmark,") and "suite_index" not in out
