"""A trend across suites (report --trend) as a CSV table and a LaTeX table, beside its JSON and Markdown.

CSV: one row per model, benchmark and suite (the point: value, interval, counts, model builds) with the change
from the model's previous suite on that row (difference, interval, test, pairs, whether flagged, better or worse,
whether the build changed). Text cells follow the CSV-injection rule of `formats.csv_text`, numbers are written
as numbers. LaTeX: a booktabs table of the points per suite, each flagged change marked and explained below it.
"""

from __future__ import annotations

import csv
import io

from medhelm_local.report.formats import TREND_TEST, csv_number, csv_text, interval, latex_escape, number
from medhelm_local.report.read_model import Report
from medhelm_local.report.trend import Trend, TrendLine, TrendStep

TREND_CSV_FIELDS = ("benchmark", "benchmark_name", "metric", "direction", "model", "suite_index", "suite", "value",
                    "ci_low", "ci_high", "interval", "n_scored", "n_failed", "builds", "change_from", "difference",
                    "difference_ci_low", "difference_ci_high", "change_test", "n_pairs", "n_unpaired", "flagged",
                    "verdict", "build_changed")


def _step_into(line: TrendLine, suite: str) -> TrendStep | None:
    return next((step for step in line.steps if step.suite_to == suite), None)


def trend_csv(trend: Trend) -> str:
    """The trend as CSV text (RFC 4180 line ends), one row per point present."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(TREND_CSV_FIELDS)
    for line in trend.lines:
        for index, point in enumerate(line.points):
            if point is None:
                continue
            step = _step_into(line, point.suite)
            change: list[object] = ["", "", "", "", "", "", "", "", "", ""]
            if step is not None:
                change = [csv_text(step.suite_from), csv_number(step.difference), csv_number(step.ci_low),
                          csv_number(step.ci_high), csv_text(step.test or ""), step.n_pairs, step.n_unpaired,
                          step.flagged, line.verdict(step), step.build_changed]
            writer.writerow([csv_text(line.benchmark), csv_text(line.display_name), csv_text(line.metric),
                             csv_text(line.direction or ""), csv_text(line.model), index, csv_text(point.suite),
                             csv_number(point.value), csv_number(point.ci_low), csv_number(point.ci_high),
                             interval(point.ci_low, point.ci_high), csv_number(point.n_scored),
                             csv_number(point.n_failed), csv_text(" ".join(point.builds)), *change])
    return buffer.getvalue()


def trend_csv_of(report: Report) -> str:
    """A report's trend as CSV (only the header where it has none)."""
    return trend_csv(report.trend) if report.trend is not None else trend_csv(Trend((), ()))


def trend_latex(trend: Trend) -> list[str]:
    """The trend as a booktabs table: per benchmark and model, the main metric in each suite (a dagger where the
    change from the previous suite is flagged, a double dagger where the model build changed)."""
    suites = [latex_escape(s) for s in trend.suites]
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{ll{'r' * len(suites)}}}",
             r"\toprule", " & ".join(["Benchmark", "Model", *suites]) + r" \\", r"\midrule"]
    for line in trend.lines:
        cells = [latex_escape(line.display_name), latex_escape(line.model)]
        for point in line.points:
            if point is None:
                cells.append("--")
                continue
            step = _step_into(line, point.suite)
            marks = ("" if step is None else
                     (rf"$^\dagger$\,{latex_escape(line.verdict(step))}" if step.flagged else "")
                     + (r"$^\ddagger$" if step.build_changed else ""))
            shown = f"{number(point.value)} {interval(point.ci_low, point.ci_high)}".strip()
            cells.append(latex_escape(shown) + (" " + marks if marks else ""))
        lines.append(" & ".join(cells) + r" \\")
    arrow = r" $\to$ "
    lines += [r"\bottomrule", r"\end{tabular}",
              rf"\caption{{Each model's main metric per suite ({arrow.join(suites)}) with its 95\,\% interval. "
              rf"$\dagger$: the change from the previous suite is flagged ({latex_escape(TREND_TEST)}). "
              r"$\ddagger$: the server named another model build than in the previous suite.}", r"\end{table}"]
    return lines
