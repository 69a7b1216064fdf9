"""`benchmarks list` and `taxonomy` tell a user what can run here and where it sits in MedHELM."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def test_benchmarks_list_reports_counts_and_missing_data(data_root: Path, tmp_path: Path) -> None:
    result = run_cli("benchmarks", "list", "--data-root", str(data_root), "--json")
    assert result.returncode == 0, result.stderr
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["pubmed_qa"]["instances"] == 50 and rows["pubmed_qa"]["runnable"]
    assert rows["pubmed_qa"]["subcategory"] == "Conducting Literature Research"
    assert rows["pubmed_qa"]["category"] == "Medical Research Assistance"
    assert rows["medcalc_bench"]["task_type"] == "calculation" and rows["medcalc_bench"]["access"] == "public"

    empty = run_cli("benchmarks", "list", "--data-root", str(tmp_path / "empty"), "--json")
    assert all(r["data"] == "missing" and r["instances"] is None for r in json.loads(empty.stdout))
    table = run_cli("benchmarks", "list", "--data-root", str(tmp_path / "empty"))
    assert "missing" in table.stdout and "medhelm-local data import" in table.stdout


def test_a_changed_file_shows_as_invalid(data_root: Path) -> None:
    path = data_root / "medcalc_bench" / "test_data.csv"
    path.write_bytes(path.read_bytes()[:-10])
    rows = {r["name"]: r for r in json.loads(run_cli("benchmarks", "list", "--data-root", str(data_root),
                                                      "--json").stdout)}
    assert rows["medcalc_bench"]["data"] == "invalid" and "sha256" in rows["medcalc_bench"]["problem"]


def test_taxonomy_shows_every_subcategory_with_installed_and_runnable_benchmarks(data_root: Path) -> None:
    result = run_cli("taxonomy", "--data-root", str(data_root), "--json")
    assert result.returncode == 0, result.stderr
    tree = json.loads(result.stdout)
    assert len(tree) == 5 and sum(len(c["subcategories"]) for c in tree) == 22
    subs = {s["name"]: s for c in tree for s in c["subcategories"]}
    assert subs["Conducting Literature Research"]["installed"] == [
        {"name": "pubmed_qa", "access": "public", "runnable": True}]
    assert any(b["access"] == "private" for b in subs["Supporting Diagnostic Decisions"]["medhelm_benchmarks"])
    text = run_cli("taxonomy", "--data-root", str(data_root)).stdout
    assert "pubmed_qa (public, runnable)" in text and "(private, not installed)" in text


def test_every_builtin_benchmark_has_a_complete_card() -> None:
    from medhelm_local.scenarios import get, names

    for name in names():
        cls = get(name)
        assert cls.summary() and cls.provenance != "not recorded", name
        assert not cls.licence.startswith("not recorded"), f"{name} has no licence recorded"
        assert cls.card.citation, f"{name} has no citation"


def test_benchmarks_show_prints_the_card(data_root: Path) -> None:
    result = run_cli("benchmarks", "show", "medcalc_bench", "--data-root", str(data_root))
    assert result.returncode == 0, result.stderr
    for fragment in ("CC BY-SA 4.0", "Khandekar", "Supporting Diagnostic Decisions", "medcalc_bench_accuracy",
                     "present, 50 instances", "github.com/ncbi-nlp/MedCalc-Bench"):
        assert fragment in result.stdout
    missing = run_cli("benchmarks", "show", "no_such_benchmark")
    assert missing.returncode == 2 and "no benchmark is called" in missing.stderr
