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
    # MedHELM's 41: 27 built in (23 of its paper and the 4 its maintained fork added), 14 private formats.
    assert ("MedHELM's 41 benchmarks (37 in its paper, 4 added by its maintained fork; `medhelm-local taxonomy` places "
            "each): 27 installed here (3 runnable now), 14 private ones whose formats ship") in " ".join(
        run_cli("benchmarks", "list", "--data-root", str(data_root)).stdout.split())


def test_the_open_ended_benchmarks_show_the_jury_as_main_metric_with_rouge_l_second(tmp_path: Path) -> None:
    open_ended = ["aci_bench", "mtsamples_replicate", "mtsamples_procedures", "medication_qa", "medi_qa"]
    rows = {r["name"]: r for r in json.loads(run_cli("benchmarks", "list", "--data-root", str(tmp_path),
                                                      "--json").stdout)}
    for name in open_ended:
        assert rows[name]["main_metric"] == "jury_score", name
        assert rows[name]["metrics"] == ["jury_score", "rouge_l"], name
    table = run_cli("benchmarks", "list", "--data-root", str(tmp_path)).stdout
    assert all(line.split("│")[5].strip() == "jury_score" for line in table.splitlines()
               if any(f"│ {name} " in line for name in open_ended))
    shown = run_cli("benchmarks", "show", "medi_qa", "--data-root", str(tmp_path)).stdout
    assert "jury_score (main" in shown and "rouge_l" in shown


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
    text = " ".join(run_cli("taxonomy", "--data-root", str(data_root)).stdout.split())
    assert "pubmed_qa (public, runnable)" in text
    assert "ehrshot (gated, runnable when data is present)" in text
    assert "(private, format shipped" in text


def test_taxonomy_places_every_medhelm_benchmark_as_runnable_here(tmp_path: Path) -> None:
    tree = json.loads(run_cli("taxonomy", "--data-root", str(tmp_path / "empty"), "--json").stdout)
    status = {b["name"]: (b["access"], b["status"]) for c in tree for s in c["subcategories"]
              for b in s["medhelm_benchmarks"]}

    assert len(status) == 41  # MedHELM's paper's 37 and the 4 its maintained fork added
    assert {name: status[name] for name in ("sct_bench", "medxpert_qa_text", "health_bench",
                                            "health_bench_professional")} == {
        name: ("public", "runnable when data is present") for name in ("sct_bench", "medxpert_qa_text", "health_bench",
                                                                      "health_bench_professional")}
    assert {access for access, state in status.values() if state == "runnable when data is present"} == {
        "public", "gated"}
    assert all(state.startswith("format shipped") for access, state in status.values() if access == "private")
    assert not [name for name, (_, state) in status.items() if state == "not installed"]


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


def test_gated_benchmarks_list_with_their_access_and_main_metric_and_run_once_imported(
        gated_root: Path, tmp_path: Path) -> None:
    rows = {r["name"]: r for r in json.loads(run_cli("benchmarks", "list", "--data-root", str(gated_root),
                                                     "--json").stdout)}

    gated = {n: (r["access"], r["main_metric"], r["instances"]) for n, r in rows.items() if r["access"] == "gated"}
    assert gated == {"dischargeme": ("gated", "jury_score", 4), "ehrshot": ("gated", "exact_match", 4),
                     "medalign": ("gated", "jury_score", 3), "mimic_bhc": ("gated", "jury_score", 3),
                     "mimic_rrs": ("gated", "jury_score", 3),
                     "mimiciv_billing_code": ("gated", "mimiciv_billing_code_micro_f1", 3),
                     "n2c2_ct_matching": ("gated", "exact_match", 3)}
    assert rows["med_dialog"]["runnable"] and rows["med_mcqa"]["instances"] == 3


def test_benchmarks_show_says_how_long_records_are_fitted_to_the_model() -> None:
    shown = " ".join(run_cli("benchmarks", "show", "ehrshot").stdout.split())
    plain = " ".join(run_cli("benchmarks", "show", "pubmed_qa").stdout.split())

    assert "inputs when the prompt and its answer do not fit the model's context (or max_length=100000 tokens" in shown
    assert "counted with the model's own tokenizer through the server's /tokenize" in shown
    assert "keeping its end (the most recent part)" in shown
    assert "inputs sent whole" in plain


def test_every_private_example_card_validates_beside_its_file(tmp_path: Path) -> None:
    from support.private_cards import PRIVATE_FILES, private_cards

    folder = private_cards(tmp_path / "cards")
    for name in PRIVATE_FILES:
        result = run_cli("benchmarks", "validate", str(folder / f"{name}.yaml"), "--show", "1")
        assert result.returncode == 0, f"{name}: {result.stderr[-500:]}"
        text = " ".join(result.stdout.split())
        assert f"benchmark {name}" in text and "access private" in text
        assert "private data: its prompts and answers are treated as sensitive on export" in text


def test_benchmarks_show_says_whether_scores_compare_with_published_medhelm_results(tmp_path: Path) -> None:
    replicate = " ".join(run_cli("benchmarks", "show", "mtsamples_replicate", "--data-root", str(tmp_path))
                         .stdout.split())
    race = " ".join(run_cli("benchmarks", "show", "race_based_med", "--data-root", str(tmp_path)).stdout.split())
    plain = run_cli("benchmarks", "show", "pubmed_qa", "--data-root", str(tmp_path), "--json")

    assert ("MedHELM NOT comparable with published MedHELM results (comparable with helm_compat=true): MedHELM's "
            "loader leaves the reference") in replicate
    assert "comparable with published MedHELM results with parse=medhelm (the default); otherwise not" in race
    assert json.loads(plain.stdout)["comparable"] == "comparable with published MedHELM results"
