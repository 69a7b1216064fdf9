"""A report as data for scripts and papers: JSON (everything), CSV (one row per cell), Markdown, LaTeX.

The numbers are the read model's, formatted by the same helpers the HTML pages use. Names in a report
(models, benchmarks' display names from cards) are text someone else chose, so each format escapes them:
CSV text cells follow OWASP's CSV-injection rule (see `csv_text`), Markdown cells carry no HTML or
Markdown markup (see `md_text`), LaTeX cells no commands.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict
from datetime import datetime
from typing import Any

from medhelm_local.report.read_model import (
    CATEGORY,
    CATEGORY_MEDHELM,
    NOT_COMPARABLE_MARK,
    SUBCATEGORY,
    Board,
    Column,
    Report,
)
from medhelm_local.report.trend import Trend

# How a trend's changes are tested, as every format states it (report.trend).
TREND_TEST = ("a change is flagged when the 95 % interval of the difference excludes 0: a paired bootstrap (1,000 "
              "resamples) on the instances both suites scored, else the two intervals' half-widths added in "
              "quadrature; one test per step at 5 %, uncorrected")

FORMATS = ("html", "json", "csv", "md", "latex")


def number(value: float | None, unit: str = "", digits: int = 3) -> str:
    """A value as shown: three decimals, its unit, or an en dash when there is none."""
    if value is None:
        return "–"
    shown = f"{value:.{digits}f}"
    return f"{shown} {unit}" if unit else shown


def interval(low: float | None, high: float | None, digits: int = 3) -> str:
    """A 95 % interval as shown, or "" when there is none."""
    if low is None or high is None:
        return ""
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat() + ("" if value.tzinfo else "Z")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _column(report: Report, column: Column) -> dict[str, Any]:
    mark = report.jury_marks.get(column.key)
    return asdict(column) | {"key": column.key, "jury_validation": mark.as_json() if mark is not None else None}


def _board(report: Report, board: Board) -> dict[str, Any]:
    return {"columns": [c.key for c in board.columns], "overall": board.overall,
            "overall_is": board.overall_label[1], "rows": [
        asdict(row) | {"cells": {c.key: asdict(report.cells[(c.key, row.model)]) | {
            "rank_group": report.rank_group(c.key, row.model)} for c in board.columns
                                 if (c.key, row.model) in report.cells}} for row in board.rows]}


def _trend(trend: Trend) -> dict[str, Any]:
    return {"suites": list(trend.suites), "change_test": TREND_TEST, "lines": [
        asdict(line) | {"steps": [asdict(step) | {"flagged": step.flagged, "verdict": line.verdict(step),
                                                  "build_changed": step.build_changed} for step in line.steps]}
        for line in trend.lines], "build_changes": [asdict(change) for change in trend.model_build_changes]}


def report_dict(report: Report) -> dict[str, Any]:
    """The whole read model as plain data (what `--format json` prints)."""
    data: dict[str, Any] = _plain({
        "format": "medhelm-local-report/1",
        "generated_at": report.generated_at,
        "stores": [asdict(s) for s in report.stores],
        "external_sources": list(report.external_sources),
        "metric_groups": list(report.groups),
        "columns": [_column(report, c) for c in report.columns],
        "leaderboard": _board(report, report.leaderboard),
        "taxonomy": [asdict(r) for r in report.taxonomy],
        "baseline": report.baseline,
        "comparisons": [asdict(c) for c in report.comparisons],
        "slices": {key: [{"metric": s.metric, "key": s.key, "values": [asdict(v) for v in s.values],
                          "largest_gap": asdict(s.gap) if s.gap else None} for s in found]
                   for key, found in report.slices.items()},
        "tie_groups": {key: {"correction": groups.correction, "ranks": {m: asdict(r) | {"label": r.label}
                                                                        for m, r in groups.ranks.items()},
                             "pairs": [asdict(p) for p in groups.pairs]} for key, groups in report.ties.items()},
        "trend": _trend(report.trend) if report.trend is not None else None,
        "published": _board(report, report.published) if report.published else None,
        "cost": [asdict(p) for p in report.cost],
        "runs": [asdict(r) | {"metrics": {m: asdict(s) for m, s in report.metrics.get(r.key, {}).items()}}
                 for r in report.runs],
    })
    return data


def to_json(report: Report) -> str:
    """`--format json`."""
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


CSV_FIELDS = ("model", "external", "benchmark", "benchmark_name", "metric", "main", "group", "direction", "value",
              "ci_low", "ci_high", "interval", "n", "n_scored", "n_failed", "normalised", "runs", "rank_group")


def to_csv(report: Report) -> str:
    """`--format csv`: one row per (model, benchmark, metric) cell; text cells neutralised (`csv_text`). A report
    over suites in time (`--trend`) is its trend instead: one row per model, benchmark and suite
    (report.trend_tables)."""
    if report.trend is not None:
        from medhelm_local.report.trend_tables import trend_csv

        return trend_csv(report.trend)
    return cells_csv(report)


def cells_csv(report: Report) -> str:
    """One row per (model, benchmark, metric) cell."""
    buffer = io.StringIO()
    # RFC 4180 line ends: the writer then quotes a field holding a CR, which would otherwise end the row early.
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    external = {r.model for r in report.runs if r.external}
    for column in report.columns:
        for (key, model), cell in report.cells.items():
            if key != column.key:
                continue
            writer.writerow([csv_text(model), model in external, csv_text(column.benchmark),
                             csv_text(column.display_name), csv_text(column.metric), column.main,
                             csv_text(column.group), csv_text(column.direction or ""), csv_number(cell.value),
                             csv_number(cell.ci_low), csv_number(cell.ci_high), csv_text(cell.interval),
                             csv_number(cell.n), csv_number(cell.n_scored), csv_number(cell.n_failed),
                             csv_number(cell.normalised),
                             csv_text(" ".join(cell.runs)), report.rank_group(column.key, model) or ""])
    return buffer.getvalue()


# OWASP's CSV-injection rule: a spreadsheet runs a cell that begins with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: prefixed with a single quote when it begins like a formula.

    Only text goes through here. Numbers the report computed are written by `csv_number` from floats and ints,
    so a genuine negative value (a paired difference, say) stays a number a spreadsheet can add up; a name
    that merely looks like a number (a model called "-1") is text and is quoted like any other."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_number(value: float | int | None) -> str:
    """A number the report computed as a CSV cell (empty when there is none)."""
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Markdown punctuation that could start a link, image, code span, emphasis or strike-through, or end a table cell.
_MD_PUNCTUATION = re.compile(r"[\\`*\[\]|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def md_text(text: str) -> str:
    """Text safe inside a Markdown table cell: no HTML (`<`, `>` and `&` as entities), no markup, one line.

    An underscore inside a word (local/big_model) cannot emphasise in CommonMark, so it is left readable."""
    text = re.sub(r"[&<>]", lambda m: _MD_ENTITIES[m.group()], " ".join(text.split()))
    return _MD_PUNCTUATION.sub(lambda m: "\\" + m.group(), text)


def _cell_text(report: Report, column: Column, model: str) -> str:
    cell = report.cells.get((column.key, model))
    if cell is None:
        return "–"
    failed = f", {cell.n_failed} failed" if cell.n_failed else ""
    counts = f" (n={cell.n_scored}{failed})" if cell.n_scored is not None else ""
    rank = report.rank_group(column.key, model)
    return (f"{number(cell.value)} {interval(cell.ci_low, cell.ci_high)}".strip() + counts
            + (f" rank {rank}" if rank else ""))


def _md_board(report: Report, board: Board, title: str) -> list[str]:
    categories = list(board.rows[0].categories) if board.rows else []
    medhelm = ["Category mean (MedHELM)"] if categories else []
    both = [f"{md_text(c)} ({how})" for c in categories for how in ("macro", "MedHELM")]
    header = ["Model", "Mean win rate", board.overall_label[0], *medhelm, *both,
              *(f"{md_text(c.title)} {c.arrow}" for c in board.columns), "n", "failed"]
    lines = [f"## {title}", "", f"{board.overall_label[0]}: {board.overall_label[1]}."]
    if categories:
        lines.append("Per category, macro: the mean of its subcategories; MedHELM: the plain mean of its benchmarks, "
                     "as MedHELM computes its category scores.")
    if report.ties and board is report.leaderboard:
        lines.append("Rank 1-3: the model's tie group on that benchmark (paired sign-flip permutation tests on the "
                     "instances both models scored, Holm-corrected over the benchmark's pairs at 5 %).")
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in board.rows:
        cells = [md_text(row.model) + (" (published)" if row.external else ""),
                 f"{number(row.win_rate.value)} {interval(row.win_rate.ci_low, row.win_rate.ci_high)} "
                 f"({row.win_rate.columns} cols)".replace("  ", " "), number(row.macro),
                 *([number(row.medhelm)] if categories else []),
                 *(number(v) for c in categories for v in (row.categories[c], row.categories_medhelm.get(c))),
                 *(_cell_text(report, c, row.model) for c in board.columns), str(row.n), str(row.n_failed)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def to_markdown(report: Report) -> str:
    """`--format md`: the leaderboard, the taxonomy averages, comparisons, published results."""
    lines = [f"# MedHELM-local report ({report.generated_at:%Y-%m-%d %H:%M} UTC)", ""]
    lines += _md_board(report, report.leaderboard, "Leaderboard")
    lines += ["", "## Taxonomy (main scores normalised to 0-1)", "",
              "Each category twice: its macro average (the mean of its subcategories) and MedHELM's category score "
              "(the plain mean of its benchmarks).", "",
              "| " + " | ".join(["Category / subcategory", *map(md_text, report.models)]) + " |",
              "|" + "---|" * (len(report.models) + 1)]
    for row in report.taxonomy:
        if row.level != SUBCATEGORY or row.benchmarks:
            name = (f"**{md_text(row.name)}** (macro average)" if row.level == CATEGORY else
                    f"**{md_text(row.name)}** (MedHELM: mean of benchmarks)" if row.level == CATEGORY_MEDHELM
                    else md_text(row.name))
            lines.append("| " + " | ".join([name, *(number(row.values.get(m)) for m in report.models)]) + " |")
    lines += _md_jury_marks(report)
    if report.comparisons:
        lines += ["", f"## Paired comparisons against {md_text(report.baseline or '')}", "",
                  "| Benchmark | Model | Difference | 95% interval | pairs | unpaired |", "|---|---|---|---|---|---|"]
        for c in report.comparisons:
            column = report.column(c.column)
            title = md_text(column.title if column else c.column)
            lines.append(f"| {title} | {md_text(c.model)} | {number(c.difference)} | "
                         f"{interval(c.ci_low, c.ci_high) or md_text(c.note)} | {c.n_pairs} | {c.n_unpaired} |")
    if report.trend is not None:
        lines += _md_trend(report.trend)
    if report.published:
        lines += ["", *_md_board(report, report.published, "Published results side by side (HELM rules)")]
        lines += [f"\n{NOT_COMPARABLE_MARK} {md_text(c.display_name.removesuffix(NOT_COMPARABLE_MARK).strip())}: not "
                  f"comparable with published MedHELM results. {md_text(c.not_comparable)}"
                  for c in report.published.columns if c.not_comparable]
    return "\n".join(lines) + "\n"


def _md_trend(trend: Trend) -> list[str]:
    lines = ["", f"## Trend across suites ({' → '.join(map(md_text, trend.suites))})", "",
             f"Each model's main metric per suite with its 95% interval; then each change: {TREND_TEST}. "
             "**Build changed**: the server named another model build in the later suite.", "",
             "| " + " | ".join(["Benchmark", "Model", *map(md_text, trend.suites), "Changes"]) + " |",
             "|" + "---|" * (len(trend.suites) + 3)]
    for line in trend.lines:
        points = [("–" if p is None else f"{number(p.value)} {interval(p.ci_low, p.ci_high)}".strip())
                  for p in line.points]
        changes = []
        for step in line.steps:
            mark = f" **{line.verdict(step)}**" if step.flagged else ""
            build = (f" **build changed** ({md_text(', '.join(step.builds_from))} → "
                     f"{md_text(', '.join(step.builds_to))})" if step.build_changed else "")
            changes.append(f"{md_text(step.suite_from)} → {md_text(step.suite_to)}: {number(step.difference)} "
                           f"{interval(step.ci_low, step.ci_high)} ({step.test or 'no interval'}){mark}{build}")
        lines.append("| " + " | ".join([md_text(line.display_name), md_text(line.model), *points,
                                         "; ".join(changes) or "–"]) + " |")
    return lines


def _md_jury_marks(report: Report) -> list[str]:
    """Each jury-scored column validated by clinicians (the figure, its interval, n, r, date) or not, and why."""
    if not report.jury_marks:
        return []
    lines = ["", "## Jury scores checked by clinicians", "",
             "| Column | Status | ICC3k-z | 95% interval | n | r | Date | Why |", "|---|---|---|---|---|---|---|---|"]
    for key, mark in report.jury_marks.items():
        column, found = report.column(key), mark.agreement
        cells = [md_text(column.title if column else key), "validated" if mark.validated else "not validated",
                 number(found.icc if found else None), interval(found.ci_low, found.ci_high) if found else "–",
                 str(found.answers) if found else "–", str(found.raters) if found else "–",
                 found.date if found else "–", md_text(mark.reason)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX table cell."""
    return re.sub(r"[\\&%$#_{}~^]", lambda m: _LATEX_SPECIAL[m.group()], text)


def to_latex(report: Report) -> str:
    """`--format latex`: the leaderboard as a booktabs table (main metrics, 95 % intervals in the notes); with a
    trend, a second table of each model's main metric per suite."""
    board = report.leaderboard
    columns = board.columns
    spec = "l" + "r" * (3 + len(columns))
    head = ["Model", "Win rate", "Macro", "MedHELM", *(latex_escape(c.display_name) + f" ({c.arrow})" for c in columns)]
    lines = [r"% Requires \usepackage{booktabs}. Generated by medhelm-local report --format latex.",
             r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             " & ".join(head) + r" \\", r"\midrule"]
    best = {c.key: _best(report, board, c) for c in columns}
    for row in board.rows:
        cells = [latex_escape(row.model), number(row.win_rate.value), number(row.macro), number(row.medhelm)]
        for c in columns:
            cell = report.cells.get((c.key, row.model))
            text = number(cell.value if cell else None)
            cells.append(rf"\textbf{{{text}}}" if cell is not None and cell.value == best[c.key] else text)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}",
              r"\caption{Mean win rate over the benchmarks' main metrics (ties count half); Macro: the main "
              r"metrics normalised to 0--1 by their declared ranges, averaged per subcategory, per category, then "
              r"over categories; MedHELM: MedHELM's category scores (the plain mean of each category's "
              r"benchmarks), averaged over categories; and each benchmark's main metric (best in bold).}",
              r"\end{table}"]
    if report.trend is not None:
        from medhelm_local.report.trend_tables import trend_latex

        lines += ["", *trend_latex(report.trend)]
    return "\n".join(lines) + "\n"


def _best(report: Report, board: Board, column: Column) -> float | None:
    cells = [report.cells.get((column.key, row.model)) for row in board.rows]
    values = [c.value for c in cells if c is not None and c.value is not None]
    if not values or column.direction is None:
        return None
    return max(values) if column.direction == "higher" else min(values)


def render_text(report: Report, fmt: str) -> str:
    """A non-HTML format as text."""
    writers = {"json": to_json, "csv": to_csv, "md": to_markdown, "latex": to_latex}
    return writers[fmt](report)
