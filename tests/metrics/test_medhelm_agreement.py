"""MedHELM's validation statistics against its reference method: vectors computed with pingouin, scipy and
scikit-learn by tests/support/medhelm_validation_reference.py on made-up ratings in MedHELM's published layout."""

from __future__ import annotations

import csv
import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli

from medhelm_local.metrics.medhelm_agreement import (
    Answer,
    Estimate,
    f_quantile,
    icc3k_z,
    medhelm_row,
    most_overlapping_pair,
    spearman,
    weighted_kappa,
)

VECTORS = Path(__file__).parent / "data" / "medhelm_validation.json"
REFERENCE = REPO / "tests" / "support" / "medhelm_validation_reference.py"
PINGOUIN = REPO / ".cache" / "pingouin-venv" / "bin" / "python"
CRITERIA = ("accuracy", "completeness", "clarity")
GROUPS = {"aci_bench": {"aci_bench"}, "medi_qa": {"medi_qa"}, "mtsamples_replicate": {"mtsamples_replicate"},
          "aci_bench+medi_qa": {"aci_bench", "medi_qa"}, "all": {"aci_bench", "medi_qa", "mtsamples_replicate"}}


@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(VECTORS.read_text())
    return found


def _answers(rows: list[dict[str, Any]], datasets: set[str]) -> list[Answer]:
    """Per answer (dataset, instance, model): each clinician's composite and the jury's."""
    by: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        if row["dataset_name"] not in datasets:
            continue
        key = (row["dataset_name"], row["instance_id"], row["model_key"])
        entry = by.setdefault(key, {"clinicians": {}, "jury": math.fsum(row[f"llm_{c}"] for c in CRITERIA) / 3})
        entry["clinicians"][row["username"]] = math.fsum(row[c] for c in CRITERIA) / 3
    return [Answer(k, v["clinicians"], v["jury"]) for k, v in sorted(by.items())]


def _close(found: Estimate | dict[str, Any], expected: list[float]) -> None:
    values = [found.value, found.low, found.high] if isinstance(found, Estimate) else [
        found["value"], found["low"], found["high"]]
    assert values == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("group", list(GROUPS))
def test_the_four_statistics_match_medhelms_method_per_benchmark_and_pooled(vectors: dict[str, Any],
                                                                            group: str) -> None:
    expected = vectors["statistics"][group]

    row = medhelm_row(group, _answers(vectors["rows"], GROUPS[group]), (1, 5))

    assert row.answers == expected["answers"]
    _close(row.icc3k_z, expected["icc3k_z"])
    _close(row.spearman, expected["spearman"])
    _close(row.weighted_kappa, expected["weighted_kappa"])  # the same bootstrap draws as the reference
    _close(row.clinicians_icc3k_z, expected["clinicians_icc3k_z"])
    assert list(row.pair or ()) == expected["pair"]


def test_the_f_quantile_matches_scipy(vectors: dict[str, Any]) -> None:
    for p, d1, d2, reference in vectors["f_quantiles"]:
        assert f_quantile(p, d1, d2) == pytest.approx(reference, rel=1e-11)


def _medhelm_csv(rows: list[dict[str, Any]], path: Path) -> Path:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_judge_validate_reads_medhelms_published_layout_as_it_is_and_prints_its_table(
        tmp_path: Path, vectors: dict[str, Any]) -> None:
    ratings = _medhelm_csv(vectors["rows"], tmp_path / "output.csv")

    done = run_cli("judge", "validate", "--ratings", str(ratings), "--json")

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["jury_from"] == "file" and report["composite"] == list(CRITERIA)
    rows = {r["benchmark"]: r for r in report["medhelm"]}
    assert list(rows) == ["aci_bench", "medi_qa", "mtsamples_replicate", "pooled"]
    for name, group in (("aci_bench", "aci_bench"), ("mtsamples_replicate", "mtsamples_replicate"), ("pooled", "all")):
        expected = vectors["statistics"][group]
        for statistic in ("icc3k_z", "spearman", "weighted_kappa", "clinicians_icc3k_z"):
            _close(rows[name][statistic], expected[statistic])
        assert rows[name]["clinician_pair"] == expected["pair"] and rows[name]["answers"] == expected["answers"]
    # The single-rater table is still there, beside it.
    assert report["icc_form"] == "ICC(3,1)" and report["comparisons"][0]["comparison"] == "jury vs clinicians"

    headline = run_cli("judge", "validate", "--ratings", str(ratings), "--benchmark", "aci_bench", "--benchmark",
                       "medi_qa", "--json")
    pooled = json.loads(headline.stdout)["medhelm"][-1]
    assert pooled["benchmark"] == "pooled"
    _close(pooled["icc3k_z"], vectors["statistics"]["aci_bench+medi_qa"]["icc3k_z"])

    table = run_cli("judge", "validate", "--ratings", str(ratings))
    text = " ".join(table.stdout.split())
    assert table.returncode == 0 and "ICC3k-z is the figure MedHELM reported" in text
    assert f"{vectors['statistics']['all']['icc3k_z'][0]:.3f}" in text and "ICC(3,1)" in text


def test_the_jury_may_be_a_rater_named_jury_in_this_projects_layout(tmp_path: Path, vectors: dict[str, Any]) -> None:
    rows, seen = [], set()
    for row in vectors["rows"]:
        if row["dataset_name"] != "aci_bench":
            continue
        rows.append({"clinician": row["username"], "instance_id": row["instance_id"],
                     **{c: row[c] for c in CRITERIA}})
        if row["instance_id"] not in seen:
            seen.add(row["instance_id"])
            rows.append({"clinician": "jury", "instance_id": row["instance_id"],
                         **{c: row[f"llm_{c}"] for c in CRITERIA}})

    done = run_cli("judge", "validate", "--ratings", str(_medhelm_csv(rows, tmp_path / "r.csv")), "--json")

    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["medhelm"]
    assert row["benchmark"] == "all"  # no benchmark column and no store: one group
    _close(row["icc3k_z"], vectors["statistics"]["aci_bench"]["icc3k_z"])


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: rows[0].__setitem__("llm_accuracy", "6"), "llm_accuracy = '6' is off the rubric's scale"),
    (lambda rows: rows[1].__setitem__("llm_clarity", "1.0"), "the jury's ratings of id101 differ from those on line 2"),
    (lambda rows: rows[1].__setitem__("username", rows[0]["username"]), "rates id101 twice"),
    (lambda rows: [r.pop(f"llm_{c}") for r in rows for c in CRITERIA],
     "holds no ratings by the jury, and no suite was named"),
    (lambda rows: [r.pop("llm_accuracy") for r in rows], "gives the jury's ratings without llm_accuracy"),
    (lambda rows: [r.__setitem__("empathy", "3") for r in rows], "unknown: empathy"),
])
def test_a_bad_medhelm_layout_file_is_a_clear_error(tmp_path: Path, vectors: dict[str, Any], edit: Any,
                                                    message: str) -> None:
    rows = [{k: str(v) for k, v in r.items()} for r in vectors["rows"]]
    edit(rows)

    done = run_cli("judge", "validate", "--ratings", str(_medhelm_csv(rows, tmp_path / "bad.csv")))

    assert done.returncode == 2, done.stdout
    assert message in " ".join(done.stderr.split()) and "Traceback" not in done.stderr


def test_undefined_statistics_are_no_number_never_a_made_up_one() -> None:
    assert icc3k_z([3.0, 3.0, 3.0], [1.0, 2.0, 4.0]).value is None  # a rater whose values never vary
    assert spearman([1.0, 2.0], [2.0, 1.0]).low is None  # too few answers for an interval
    assert weighted_kappa([4.0] * 5, [4.0] * 5, (1, 5)).value is None  # one point on both sides
    assert most_overlapping_pair({"a": {1}, "b": {2}}) is None
    assert most_overlapping_pair({"b": {1, 2}, "c": {1, 2}, "a": {1, 2}}) == ("a", "b")  # ties: name order


def test_the_vectors_are_what_the_reference_method_computes_today() -> None:
    """Regenerate the vectors in the pingouin environment (`make pingouin`) and compare: they stay reproducible."""
    if not PINGOUIN.exists():
        pytest.fail("pingouin's environment is not built: run `make pingouin` (or `make test`)")
    done = subprocess.run([str(PINGOUIN), str(REFERENCE)], capture_output=True, text=True, check=True, timeout=600)
    fresh, committed = json.loads(done.stdout), json.loads(VECTORS.read_text())
    assert fresh["rows"] == committed["rows"]
    for group, stats in committed["statistics"].items():
        for name, value in stats.items():
            exact = name in ("pair", "answers")
            assert fresh["statistics"][group][name] == (value if exact else pytest.approx(value, abs=1e-12))
