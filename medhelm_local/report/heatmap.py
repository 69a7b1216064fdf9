"""The taxonomy heat map as a plain SVG document: categories and subcategories (rows) by models (columns), each
cell coloured by its normalised score (0-1) on the viridis scale, a cell without a value light grey.

Drawn by hand rather than by matplotlib: the heat map is a grid of rectangles and text, and matplotlib's import
and drawing were most of the time a large report spent on its plots (docs/performance.md, 27 November). The
cells take the colours matplotlib's viridis gives the same values (its 256-colour table, below), text stays text
(browsers draw it with a local font), and nothing in the file references anything outside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from medhelm_local.report.read_model import CATEGORY, CATEGORY_MEDHELM, SUBCATEGORY, TaxonomyRow

# viridis (Stefan van der Walt and Nathaniel Smith, CC0), the 256 colours of matplotlib's table as hex triples.
_VIRIDIS = (
    "44015444025645045745055946075a46085c460a5d460b5e470d60470e6147106347116447136548146748166848176948186a481a6c"
    "481b6d481c6e481d6f481f70482071482173482374482475482576482677482878482979472a7a472c7a472d7b472e7c472f7d46307e"
    "46327e46337f463480453581453781453882443983443a83443b84433d84433e85423f85424086424186414287414487404588404688"
    "3f47883f48893e49893e4a893e4c8a3d4d8a3d4e8a3c4f8a3c508b3b518b3b528b3a538b3a548c39558c39568c38588c38598c375a8c"
    "375b8d365c8d365d8d355e8d355f8d34608d34618d33628d33638d32648e32658e31668e31678e31688e30698e306a8e2f6b8e2f6c8e"
    "2e6d8e2e6e8e2e6f8e2d708e2d718e2c718e2c728e2c738e2b748e2b758e2a768e2a778e2a788e29798e297a8e297b8e287c8e287d8e"
    "277e8e277f8e27808e26818e26828e26828e25838e25848e25858e24868e24878e23888e23898e238a8d228b8d228c8d228d8d218e8d"
    "218f8d21908d21918c20928c20928c20938c1f948c1f958b1f968b1f978b1f988b1f998a1f9a8a1e9b8a1e9c891e9d891f9e891f9f88"
    "1fa0881fa1881fa1871fa28720a38620a48621a58521a68522a78522a88423a98324aa8325ab8225ac8226ad8127ad8128ae8029af7f"
    "2ab07f2cb17e2db27d2eb37c2fb47c31b57b32b67a34b67935b77937b87838b9773aba763bbb753dbc743fbc7340bd7242be7144bf70"
    "46c06f48c16e4ac16d4cc26c4ec36b50c46a52c56954c56856c66758c7655ac8645cc8635ec96260ca6063cb5f65cb5e67cc5c69cd5b"
    "6ccd5a6ece5870cf5773d05675d05477d1537ad1517cd2507fd34e81d34d84d44b86d54989d5488bd6468ed64590d74393d74195d840"
    "98d83e9bd93c9dd93ba0da39a2da37a5db36a8db34aadc32addc30b0dd2fb2dd2db5de2bb8de29bade28bddf26c0df25c2df23c5e021"
    "c8e020cae11fcde11dd0e11cd2e21bd5e21ad8e219dae319dde318dfe318e2e418e5e419e7e419eae51aece51befe51cf1e51df4e61e"
    "f6e620f8e621fbe723fde725"
)
_MISSING = "#eeeeee"
_FONT = "font-family:'DejaVu Sans',sans-serif"
CHAR = 5.2  # the width of a character of DejaVu Sans at 9 pt, near enough to size the margins
CELL_W, CELL_H = 48.4, 18.9


def colour(value: float | None) -> str:
    """The cell colour of a normalised score, as matplotlib's viridis maps it (256 bins, clipped to 0-1)."""
    if value is None or math.isnan(value):
        return _MISSING
    index = min(255, max(0, int(min(1.0, max(0.0, value)) * 256)))
    return "#" + _VIRIDIS[6 * index:6 * index + 6]


def label(row: TaxonomyRow) -> str:
    """A row's label: a category's two rows say which average they are; subcategories are indented."""
    if row.level == CATEGORY:
        return f"{row.name} (macro average)"
    if row.level == CATEGORY_MEDHELM:
        return f"{row.name} (MedHELM)"
    return "\u2003" + row.name


def svg_text(x: float, y: float, text: str, size: float = 9, anchor: str = "start", extra: str = "") -> str:
    """One <text> element, escaped, in the plots' font (the slice plot draws with it too)."""
    return (f'<text x="{x:.1f}" y="{y:.1f}" style="{_FONT};font-size:{size}px" text-anchor="{anchor}"{extra}>'
            f"{escape(text)}</text>")


def heatmap_svg(rows: Sequence[TaxonomyRow], models: Sequence[str]) -> str:
    """The heat map of `rows` by `models` as one <svg> element."""
    labels = [label(r) for r in rows]
    left = CHAR * max((len(t) for t in labels), default=0) + 16
    top = 30.0
    grid_w, grid_h = CELL_W * len(models), CELL_H * len(rows)
    # Model names run down and to the left at 30 degrees under their columns.
    bottom = CHAR * max((len(m) for m in models), default=0) * 0.5 + 24
    bar_x = left + grid_w + 14
    width, height = bar_x + 80, top + grid_h + bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.1f}pt" height="{height:.1f}pt" '
           f'viewBox="0 0 {width:.1f} {height:.1f}" version="1.1">',
           f'<rect width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
           svg_text(left, 16, "Categories (macro average; MedHELM: mean of benchmarks) and subcategories", 10)]
    for r, row in enumerate(rows):
        y = top + r * CELL_H
        weight = "normal" if row.level == SUBCATEGORY else "bold"
        out.append(svg_text(left - 6, y + CELL_H / 2 + 3, labels[r], anchor="end", extra=f' font-weight="{weight}"'))
        for c, model in enumerate(models):
            value = row.values.get(model)
            shown = "no value" if value is None else f"{value:.3f}"
            out.append(f'<rect x="{left + c * CELL_W:.2f}" y="{y:.2f}" width="{CELL_W:.2f}" height="{CELL_H:.2f}" '
                       f'fill="{colour(value)}" stroke="#ffffff" stroke-width="0.5">'
                       f"<title>{escape(f'{labels[r].strip()} / {model}: {shown}')}</title></rect>")
    for c, model in enumerate(models):
        x, y = left + (c + 0.5) * CELL_W, top + grid_h + 12
        out.append(svg_text(x, y, model, anchor="end", extra=f' transform="rotate(-30 {x:.1f} {y:.1f})"'))
    out.extend(_colour_bar(bar_x, top + grid_h / 4, max(grid_h / 2, 60.0)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _colour_bar(x: float, y: float, height: float) -> list[str]:
    """The scale: 0 at the bottom, 1 at the top, as a vertical gradient through viridis, ticked every 0.2."""
    stops = "".join(f'<stop offset="{i / 16:.4f}" stop-color="{colour(i / 16)}"/>' for i in range(17))
    out = [f'<defs><linearGradient id="scale" x1="0" y1="1" x2="0" y2="0">{stops}</linearGradient></defs>',
           f'<rect x="{x:.1f}" y="{y:.1f}" width="10" height="{height:.1f}" fill="url(#scale)"/>']
    for i in range(6):
        tick_y = y + height - height * i / 5
        out.append(f'<line x1="{x + 10:.1f}" y1="{tick_y:.1f}" x2="{x + 13:.1f}" y2="{tick_y:.1f}" stroke="#000000" '
                   'stroke-width="0.8"/>')
        out.append(svg_text(x + 15, tick_y + 3, f"{i / 5:.1f}"))
    middle = y + height / 2
    out.append(svg_text(x + 40, middle, "normalised score (1 best)", anchor="middle",
                     extra=f' transform="rotate(-90 {x + 40:.1f} {middle:.1f})"'))
    return out
