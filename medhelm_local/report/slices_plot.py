"""A benchmark's slice plot as a plain SVG document: small multiples, one panel per slice key, each model's main
metric per slice value as a dot with its 95 % interval (a row per value, a colour per model), and the largest gap's
two values named under the panel.

Drawn by hand rather than by matplotlib, like the heat map (report/heatmap.py): a panel is dots, lines and text,
and matplotlib's import and drawing of one plot per sliced benchmark were most of what a report with slices spent
on its plots (docs/performance.md, 27 November). Colours are matplotlib's default cycle, text stays text, and
nothing in the file references anything outside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from medhelm_local.metrics.slices import SlicedMetric, SliceValue
from medhelm_local.report.heatmap import CHAR, svg_text

# matplotlib's default colour cycle ("tab10"), a colour per model
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
            "#17becf")
_PLOT_W = 190.0  # the width of a panel's axis
_LINE = 11.0  # a line of 7 px text under a panel or in the legend
_DOT_STEP = 7.0  # the height each model's dot takes within a value's row


def _ticks(low: float, high: float) -> list[float]:
    """About five round tick values covering low-high (steps of 1, 2 or 5 times a power of ten)."""
    raw = (high - low) / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(i * step, 10) for i in range(first, math.floor(high / step + 1e-9) + 1)]


def _span(panel: Sequence[tuple[str, SlicedMetric]]) -> tuple[float, float]:
    """The x range a panel shows: every mean and interval end, padded a little."""
    ends = [x for _, s in panel for v in s.values if v.mean is not None
            for x in (v.mean, v.ci_low, v.ci_high) if x is not None]
    low, high = (min(ends), max(ends)) if ends else (0.0, 1.0)
    pad = (high - low) * 0.05 or 0.05
    return low - pad, high + pad


def _dot(x: float, y: float, value: SliceValue, mean: float, model: str, colour: str, scale: float,
         low: float) -> list[str]:
    """One model's mean for one value: its interval as a capped line and the mean as a dot, with a tooltip."""
    def at(v: float) -> float:
        return x + (v - low) * scale

    shown = f"{mean:.3f}" + ("" if value.ci_low is None or value.ci_high is None
                                   else f" [{value.ci_low:.3f}, {value.ci_high:.3f}]")
    out = []
    if value.ci_low is not None and value.ci_high is not None:
        a, b = at(value.ci_low), at(value.ci_high)
        out += [f'<line x1="{a:.1f}" y1="{y:.1f}" x2="{b:.1f}" y2="{y:.1f}" stroke="{colour}" stroke-width="1.2"/>',
                *(f'<line x1="{e:.1f}" y1="{y - 2:.1f}" x2="{e:.1f}" y2="{y + 2:.1f}" stroke="{colour}" '
                  'stroke-width="1.2"/>' for e in (a, b))]
    out.append(f'<circle cx="{at(mean):.1f}" cy="{y:.1f}" r="2.6" fill="{colour}"><title>'
               f"{escape(f'{model}, {value.key} = {value.value}: {shown} over {value.n_scored} scored (n={value.n})')}"
               "</title></circle>")
    return out


def _panel(x: float, y: float, key: str, mine: Sequence[tuple[str, SlicedMetric]], colours: dict[str, str],
           label_w: float) -> tuple[list[str], float]:
    """One slice key's panel at (x, y): its SVG and its height."""
    names = sorted({v.value for _, s in mine for v in s.values})
    row_h = 6 + _DOT_STEP * max(1, len(mine))
    low, high = _span(mine)
    scale = _PLOT_W / (high - low)
    left, top = x + label_w, y + 16
    out = [svg_text(x, y + 10, f"by {key}")]
    out.append(f'<rect x="{left:.1f}" y="{top:.1f}" width="{_PLOT_W:.1f}" height="{row_h * len(names):.1f}" '
               'fill="none" stroke="#000000" stroke-width="0.8"/>')
    bottom = top + row_h * len(names)
    for tick in _ticks(low, high):
        tx = left + (tick - low) * scale
        out += [f'<line x1="{tx:.1f}" y1="{top:.1f}" x2="{tx:.1f}" y2="{bottom:.1f}" stroke="#b0b0b0" '
                'stroke-width="0.5" stroke-opacity="0.6"/>',
                svg_text(tx, bottom + 10, f"{tick:g}", 8, "middle")]
    for r, name in enumerate(names):
        out.append(svg_text(left - 4, top + row_h * (r + 0.5) + 3, name, 8, "end"))
    for m, (model, found) in enumerate(mine):
        offset = (m - (len(mine) - 1) / 2) * _DOT_STEP
        for value in found.values:
            if value.mean is not None:
                cy = top + row_h * (names.index(value.value) + 0.5) + offset
                out += _dot(left, cy, value, value.mean, model, colours[model], scale, low)
    gaps = [f"{model}: {s.gap.high} \u2212 {s.gap.low} = {s.gap.gap:.3f}" for model, s in mine if s.gap is not None]
    line_y = bottom + 24
    if gaps:
        out.append(svg_text(left + _PLOT_W / 2, line_y, "largest gap:", 7, "middle"))
        for i, text in enumerate(gaps):
            out.append(svg_text(left + _PLOT_W / 2, line_y + _LINE * (i + 1), text, 7, "middle"))
    return out, line_y + _LINE * len(gaps) + 8 - y


def slices_svg(title: str, sliced: Sequence[tuple[str, SlicedMetric]]) -> str:
    """Small multiples, one panel per slice key: each model's main metric per slice value with its 95 % interval
    (a row per value, a colour per model), the largest gap's two values named under the panel."""
    keys = list(dict.fromkeys(s.key for _, s in sliced))
    models = list(dict.fromkeys(m for m, _ in sliced))
    colours = {m: _COLOURS[i % len(_COLOURS)] for i, m in enumerate(models)}
    label_w = CHAR * 0.9 * max((len(v.value) for _, s in sliced for v in s.values), default=1) + 10
    gap_w = CHAR * 0.8 * max((len(m) + len(s.gap.high) + len(s.gap.low) + 12 for m, s in sliced
                              if s.gap is not None), default=0)
    panel_w = max(label_w + _PLOT_W, gap_w) + 20
    ncols = min(3, len(keys))
    body: list[str] = []
    y, height_of_row = 26.0, 0.0
    for i, key in enumerate(keys):
        column = i % ncols
        if column == 0 and i:
            y += height_of_row
            height_of_row = 0.0
        drawn, height = _panel(10 + column * panel_w, y, key, [(m, s) for m, s in sliced if s.key == key], colours,
                               label_w)
        body += drawn
        height_of_row = max(height_of_row, height)
    y += height_of_row
    width = max(10 + ncols * panel_w, CHAR * len(title) + 20)
    per_line = min(4, len(models))
    for i, model in enumerate(models):
        lx = 10 + (i % per_line) * (width - 20) / per_line
        ly = y + 4 + _LINE * (i // per_line)
        body += [f'<circle cx="{lx + 4:.1f}" cy="{ly:.1f}" r="2.6" fill="{colours[model]}"/>',
                 svg_text(lx + 10, ly + 3, model, 8)]
    height = y + 10 + _LINE * ((len(models) + per_line - 1) // per_line)
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}pt" height="{height:.1f}pt" '
                      f'viewBox="0 0 {width:.1f} {height:.1f}" version="1.1">',
                      f'<rect width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
                      svg_text(10, 16, title), *body, "</svg>"]) + "\n"
