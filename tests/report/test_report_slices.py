"""Slices in the report and the Python API, from a real encrypted store: the benchmark page's slice table gets a
small-multiples plot (a panel per slice key, each model's mean per value with its interval), and `open_suite`
gives the same figures as tables. Figures by hand: local/a is right on 8 of 10 F and 3 of 10 M instances, local/b
on 5 of 10 of each; by ward, instances alternate between two wards."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from support.report_store import FakeRun, write_store

import medhelm_local as mh
from medhelm_local.metrics.aggregate import bootstrap_ci
from medhelm_local.store.keys import Kek

A_RIGHT = set(range(8)) | {10, 11, 12}  # F: instances 0-9 (8 right), M: 10-19 (3 right)
B_RIGHT = set(range(5)) | set(range(10, 15))


def _slices(i: int) -> dict[str, str]:
    return {"sex": "F" if i < 10 else "M", "ward": "north" if i % 2 else "south"}


@pytest.fixture
def store(tmp_path: Path, kek: Kek) -> Path:
    path = tmp_path / "results" / "ward.duckdb"
    write_store(path, kek, "ward", [
        FakeRun("local/a", "pubmed_qa", 20, values=[float(i in A_RIGHT) for i in range(20)], slices=_slices),
        FakeRun("local/b", "pubmed_qa", 20, values=[float(i in B_RIGHT) for i in range(20)], slices=_slices),
        FakeRun("local/a", "medication_qa", 10, values=[0.5] * 10)])  # no slice keys: no plot for it
    return path


def test_the_benchmark_page_draws_its_slices_as_small_multiples(store: Path, kek_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = run_cli("report", "--store", str(store), "--out", str(out), env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    page = (out / "benchmarks" / "pubmed_qa.html").read_text()
    assert '<img src="../plots/slices-pubmed_qa.svg"' in page
    svg = (out / "plots" / "slices-pubmed_qa.svg").read_text()
    assert svg.startswith("<svg") and "http" not in svg.replace("http://www.w3.org", "")
    assert "by sex" in svg and "by ward" in svg and "local/a" in svg and "local/b" in svg
    assert "local/a: F − M = 0.500" in svg  # 8/10 - 3/10
    assert not (out / "plots" / "slices-medication_qa.svg").exists()
    assert "slices-" not in (out / "benchmarks" / "medication_qa.html").read_text()


def test_the_python_api_gives_each_slice_value_and_the_largest_gap(store: Path, kek_file: Path) -> None:
    settings = mh.load_settings(kek_file=kek_file, output_dir=store.parent)
    with mh.open_suite(store, settings) as suite:
        table = suite.slices(metric="exact_match").to_pylist()
        gaps = suite.slice_gaps().to_pylist()
        only_b = suite.slices(run_id="pubmed_qa-local_b-ward").to_pylist()
        none = suite.slices(run_id="medication_qa-local_a-ward")
    rows = {(r["run_id"], r["key"], r["value"]): r for r in table}
    f = rows[("pubmed_qa-local_a-ward", "sex", "F")]
    assert (f["mean"], f["n"], f["n_scored"], f["n_failed"], f["n_pending"]) == (pytest.approx(0.8), 10, 10, 0, 0)
    assert (f["ci_low"], f["ci_high"]) == pytest.approx(bootstrap_ci([1.0] * 8 + [0.0] * 2))
    assert rows[("pubmed_qa-local_a-ward", "sex", "M")]["mean"] == pytest.approx(0.3)
    # Wards alternate: local/a's north (odd) instances 1, 3, 5, 7, 11 of 10 right, south 0, 2, 4, 6, 10, 12 of 10.
    assert rows[("pubmed_qa-local_a-ward", "ward", "north")]["mean"] == pytest.approx(0.5)
    assert rows[("pubmed_qa-local_a-ward", "ward", "south")]["mean"] == pytest.approx(0.6)
    gap = next(g for g in gaps if g["run_id"] == "pubmed_qa-local_a-ward" and g["key"] == "sex")
    assert (gap["high"], gap["low"], gap["gap"]) == ("F", "M", pytest.approx(0.5))
    assert gap["ci_low"] < 0.5 < gap["ci_high"]
    assert {r["run_id"] for r in only_b} == {"pubmed_qa-local_b-ward"}
    assert none.num_rows == 0 and "mean" in none.column_names  # no slice keys: no rows, the same columns
