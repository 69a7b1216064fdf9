"""Slices in the report and the Python API, from a real encrypted store: the benchmark page's slice table gets a
small-multiples plot (a panel per slice key, each model's mean per value with its interval), and `open_suite`
gives the same figures as tables. Figures by hand: local/a is right on 8 of 10 F and 3 of 10 M instances, local/b
on 5 of 10 of each; by ward, instances alternate between two wards."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import run_cli
from support.fresh_python import run_python
from support.report_store import FakeRun, write_store

import medhelm_local as mh
from medhelm_local.metrics.aggregate import bootstrap_ci
from medhelm_local.store.keys import Kek

A_RIGHT = set(range(8)) | {10, 11, 12}  # F: instances 0-9 (8 right), M: 10-19 (3 right)
B_RIGHT = set(range(5)) | set(range(10, 15))
SVG = "{http://www.w3.org/2000/svg}"


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


def test_the_slice_plot_is_plain_svg_with_a_dot_per_model_and_value_and_never_imports_matplotlib() -> None:
    # In a fresh interpreter: the plot is drawn by hand (as the heat map is), so a report with slices on every
    # benchmark does not pay for matplotlib's import and drawing.
    script = (
        "import sys\n"
        "from medhelm_local.metrics.slices import SliceGap, SlicedMetric, SliceValue\n"
        "from medhelm_local.report.slices_plot import slices_svg\n"
        "values = (SliceValue('ward', 'north <&>', 10, 10, 0, 0.8, 0.5, 1.0), SliceValue('ward', 'south', 10, 9, 1, "
        "0.3, 0.1, 0.6), SliceValue('ward', 'east', 2, 0, 2, None, None, None))\n"
        "gap = SliceGap('ward', 'north <&>', 'south', 0.5, 0.1, 0.8)\n"
        "sliced = [(m, SlicedMetric('exact_match', 'ward', values, gap)) for m in ('local/a', 'local/b')]\n"
        "print(slices_svg('MedQA: exact_match per slice value', sliced))\n"
        "print('matplotlib' in sys.modules)\n")
    printed = run_python(script)
    svg, imported = printed.rsplit("\n", 2)[:2]
    assert imported == "False"
    root = ElementTree.fromstring(svg)  # well-formed: the value's <, > and & are escaped
    tips = [t.text for c in root.iter(f"{SVG}circle") if (t := c.find(f"{SVG}title")) is not None]
    assert sorted(tips) == sorted(f"{m}, ward = {v}: {shown}" for m in ("local/a", "local/b") for v, shown in (
        ("north <&>", "0.800 [0.500, 1.000] over 10 scored (n=10)"),
        ("south", "0.300 [0.100, 0.600] over 9 scored (n=10)")))
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "by ward" in texts and "east" in texts and "local/b: north <&> \u2212 south = 0.500" in texts
