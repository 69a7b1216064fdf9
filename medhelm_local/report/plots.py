"""Plots drawn offline by matplotlib to SVG: cost against score and trends across suites (the taxonomy heat map and
the slice plots, rectangles, dots and lines, are drawn without matplotlib: report/heatmap.py, report/slices_plot.py).

matplotlib is set up before it is imported: no pyplot and no display (a Figure on the SVG canvas),
only the fonts it ships (`MPL_IGNORE_SYSTEM_FONTS`: it never runs `fc-list` or reads system fonts,
so the egress guard has nothing to refuse and every machine draws the same figure), and its config
and font cache in a folder of our own under the temporary directory, never in the user's home.
Text stays text in the SVG (`svg.fonttype: none`, browsers draw it with a local font), cells are
vector shapes, and nothing in a file references anything outside it.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from medhelm_local.report.read_model import CostPoint
from medhelm_local.report.trend import Trend


def _config_dir() -> Path:
    """A private folder for matplotlib's config and font cache (created 0700, ours, not a link)."""
    folder = Path(tempfile.gettempdir()) / f"medhelm-local-matplotlib-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = folder.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077:
            return folder
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="medhelm-local-matplotlib-"))


def _figure(width: float, height: float, layout: Literal["constrained"] | None = "constrained") -> Any:
    """A matplotlib Figure drawn by the SVG backend; pyplot (and its GUI machinery) is never imported."""
    os.environ["MPLCONFIGDIR"] = str(_config_dir())
    os.environ["MPL_IGNORE_SYSTEM_FONTS"] = "1"
    import matplotlib

    matplotlib.use("Agg", force=True)
    matplotlib.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "medhelm-local", "font.family": "DejaVu Sans",
                                "font.size": 9, "axes.titlesize": 10})
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout=layout)
    FigureCanvasSVG(figure)
    return figure


def _svg(figure: Any) -> str:
    """The figure as one <svg> element: no date (reproducible), no RDF metadata, no DOCTYPE pointing at a DTD."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def cost_svg(points: Sequence[CostPoint], metric_title: str, unit: str) -> str:
    """Each model's mean cost per run against its macro average (subcategory-weighted)."""
    figure = _figure(6.0, 4.0)
    axes = figure.add_subplot()
    axes.scatter([p.cost for p in points], [p.score for p in points], color="#1f77b4")
    for point in points:
        axes.annotate(point.model, (point.cost, point.score), textcoords="offset points", xytext=(4, 4), fontsize=8)
    axes.set_xlabel(f"{metric_title}, mean per run" + (f" ({unit})" if unit else ""))
    axes.set_ylabel("macro average (subcategory-weighted; 1 best)")
    axes.set_ylim(0, 1.05)
    axes.grid(alpha=0.3)
    axes.set_title("Cost against score")
    return _svg(figure)


def trend_svg(trend: Trend) -> str:
    """Small multiples, one panel per benchmark: each model's main metric per suite with its 95 % interval; a
    change larger than its interval ringed in red, a model build change marked with a black diamond."""
    benchmarks = trend.benchmarks
    ncols = min(3, len(benchmarks))
    nrows = (len(benchmarks) + ncols - 1) // ncols
    width = max(3.2 * ncols, 0.9 * len(trend.suites) * ncols)
    figure = _figure(width, 2.6 * nrows + 0.8)
    axes = figure.subplots(nrows, ncols, squeeze=False)
    x = list(range(len(trend.suites)))
    models = sorted({line.model for line in trend.lines})
    colours = {m: f"C{i % 10}" for i, m in enumerate(models)}
    for panel, benchmark in zip(axes.flat, benchmarks, strict=False):
        lines = trend.of(benchmark)
        for line in lines:
            shown = [(i, p, p.value) for i, p in enumerate(line.points) if p is not None and p.value is not None]
            xs, ys = [i for i, _, _ in shown], [v for _, _, v in shown]
            errors = [[v - p.ci_low if p.ci_low is not None else 0.0 for _, p, v in shown],
                      [p.ci_high - v if p.ci_high is not None else 0.0 for _, p, v in shown]]
            errors = [[max(0.0, e) for e in side] for side in errors]
            panel.errorbar(xs, ys, yerr=errors, color=colours[line.model], marker="o", markersize=4, capsize=3,
                           linewidth=1.2, label=line.model)
            at = {p.suite: (i, v) for i, p, v in shown}
            for step in line.steps:
                if step.suite_to not in at:
                    continue
                if step.flagged:
                    panel.scatter(*at[step.suite_to], s=140, facecolors="none", edgecolors="#d62728", linewidths=1.6,
                                  zorder=3)
                if step.build_changed:
                    panel.scatter(*at[step.suite_to], s=40, marker="D", facecolors="none", edgecolors="black",
                                  linewidths=1.2, zorder=4)
        first = lines[0]
        panel.set_title(f"{first.display_name} · {first.metric_title}", loc="left", fontsize=9)
        panel.set_xticks(x, labels=list(trend.suites), rotation=20, ha="right")
        panel.set_xlim(-0.3, len(x) - 0.7)
        panel.grid(alpha=0.3)
    for panel in list(axes.flat)[len(benchmarks):]:
        panel.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=min(4, len(labels)), fontsize=8, frameon=False)
    return _svg(figure)
