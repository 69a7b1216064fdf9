"""The taxonomy heat map, drawn without matplotlib: every cell coloured as matplotlib's viridis colours its value,
a cell without a value grey, labels escaped, nothing referenced outside the file; and a report whose only plot is
the heat map never imports matplotlib."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from support.fresh_python import run_python

from medhelm_local.report.heatmap import colour, heatmap_svg
from medhelm_local.report.read_model import CATEGORY, CATEGORY_MEDHELM, SUBCATEGORY, TaxonomyRow

SVG = "{http://www.w3.org/2000/svg}"
MODELS = ("local/a", "local/<b>")


def _rows() -> list[TaxonomyRow]:
    return [TaxonomyRow(CATEGORY, "Clinical Decision Support", "CDS", {"local/a": 0.0, "local/<b>": 1.0}, ("x",)),
            TaxonomyRow(CATEGORY_MEDHELM, "Clinical Decision Support", "CDS", {"local/a": 0.5, "local/<b>": None},
                        ("x",)),
            TaxonomyRow(SUBCATEGORY, "Notes & <Letters>", "CDS", {"local/a": 0.123, "local/<b>": 0.999}, ("x",))]


def test_cells_take_matplotlibs_viridis_colours_and_a_missing_value_is_grey() -> None:
    colormaps = pytest.importorskip("matplotlib").colormaps
    to_hex = pytest.importorskip("matplotlib.colors").to_hex
    for value in (0.0, 0.001, 0.1234, 0.25, 0.5, 0.5001, 0.75, 0.999, 1.0, -0.2, 1.3):
        assert colour(value) == to_hex(colormaps["viridis"](min(1.0, max(0.0, value)))), value
    assert colour(None) == colour(float("nan")) == "#eeeeee"


def test_the_svg_has_a_cell_per_row_and_model_with_its_value_and_escaped_labels() -> None:
    text = heatmap_svg(_rows(), MODELS)
    root = ElementTree.fromstring(text)  # well-formed: the labels' <, > and & are escaped
    cells = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    titles = {r.find(f"{SVG}title").text: r.get("fill") for r in cells}  # type: ignore[union-attr]
    assert len(cells) == 6
    assert titles["Clinical Decision Support (macro average) / local/a: 0.000"] == colour(0.0)
    assert titles["Clinical Decision Support (macro average) / local/<b>: 1.000"] == colour(1.0)
    assert titles["Clinical Decision Support (MedHELM) / local/<b>: no value"] == "#eeeeee"
    assert titles["Notes & <Letters> / local/a: 0.123"] == colour(0.123)
    labels = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert "local/<b>" in labels and "\u2003Notes & <Letters>" in labels
    bold = [t.text for t in root.iter(f"{SVG}text") if t.get("font-weight") == "bold"]
    assert bold == ["Clinical Decision Support (macro average)", "Clinical Decision Support (MedHELM)"]
    assert not re.search(r"(href|url\()\s*=?\s*[\"']?(https?:|//|file:)", text)  # nothing outside the file
    assert re.findall(r"url\(#(\w+)\)", text) == ["scale"]


def test_a_report_whose_only_plot_is_the_heat_map_never_imports_matplotlib(tmp_path: Path) -> None:
    # The report's tests' suite (no cost metric, no trend, no slices) written in a fresh interpreter.
    script = (
        "import sys\n"
        "sys.path.insert(0, 'tests/report')\n"
        "from test_report_build import _suite\n"
        "from medhelm_local.report.build import build_report\n"
        "from medhelm_local.report.site import build_site\n"
        "runs, metrics = _suite()\n"
        "metrics = {k: {m: s for m, s in v.items() if m != 'test_cost_usd'} for k, v in metrics.items()}\n"
        "files = {}\n"
        "build_site(build_report(runs, metrics), {}, files.__setitem__)\n"
        "assert sorted(n for n in files if n.startswith('plots/')) == ['plots/heatmap.svg'], sorted(files)\n"
        "print('matplotlib' in sys.modules)\n")
    assert run_python(script).strip() == "False"
