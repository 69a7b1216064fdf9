"""`medhelm-local judge SUITE` (rate stored answers with a jury, resumable) and `judge validate` (agreement
with clinicians). Both read the suite's store; only `judge` asks anything, and only the judges."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from medhelm_local.cli import ALLOWLIST
from medhelm_local.cli.jury_output import judge_lines
from medhelm_local.cli.output import BarProgress, err, out, print_json
from medhelm_local.errors import ConfigError
from medhelm_local.run.plan import store_path_for
from medhelm_local.run.progress import NoProgress
from medhelm_local.settings import Settings
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import load_kek
from medhelm_local.store.queries import aggregate_dict

SUITE_COMMAND = "suite"


class _SuiteByDefault(TyperGroup):
    """`judge SUITE ...` means `judge suite SUITE ...`; `judge validate ...` stays a subcommand."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and not args[0].startswith("-") and args[0] not in self.commands:
            args = [SUITE_COMMAND, *args]
        return super().parse_args(ctx, args)


def _judged_aggregates(aggregates: list[Any]) -> list[str]:
    lines = []
    for agg in aggregates:
        if agg.metric in ("jury_score", "jury_alpha", "judging_cost"):
            value = "-" if agg.mean is None else f"{agg.mean:.3f}"
            lines.append(f"  {agg.metric}: {value} ({agg.n_scored} rated, {agg.n_failed} failed, "
                         f"{agg.n_pending} pending)")
    return lines + judge_lines(aggregates)


def _validation_table(report: Any) -> Any:
    from rich.table import Table

    def fmt(value: float) -> str:
        return "-" if value != value else f"{round(value, 3) + 0.0:.3f}"  # nan: too few instances; no "-0.000"

    table = Table(title="Agreement with clinicians")
    for col in ("comparison", "pairs", "instances", "ICC(3,1)", "95% CI", "ICC(2,1)"):
        table.add_column(col, justify="left" if col == "comparison" else "right")
    for row in report.rows:
        ci = "-" if row.ci_low != row.ci_low else f"[{fmt(row.ci_low)}, {fmt(row.ci_high)}]"
        table.add_row(row.comparison, str(row.pairs), str(row.instances), fmt(row.icc), ci, fmt(row.icc_absolute))
    return table


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `judge` (and `judge validate`) to the app."""
    judge = typer.Typer(cls=_SuiteByDefault, no_args_is_help=True,
                        help="Rate a suite's stored answers with an LLM jury (`judge SUITE`), or check the jury "
                             "against clinicians' ratings (`judge validate SUITE --ratings FILE`).")
    app.add_typer(judge, name="judge")

    @judge.command(SUITE_COMMAND)
    def suite_(
        ctx: typer.Context,
        suite: str = typer.Argument(..., help="The suite whose stored answers to judge."),
        run: list[str] | None = typer.Option(None, "--run", help="Only this run (repeatable)."),
        jury: str | None = typer.Option(None, "--jury", help="The jury (default: the jury setting, or a run's "
                                                             "jury_config_path)."),
        retry_failed: bool = typer.Option(False, "--retry-failed", help="Also ask again where a judge's answer "
                                          "could not be used (unparseable, out of range, missing criterion)."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file instead of --suite."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no summary."),
        as_json: bool = typer.Option(False, "--json", help="Print results as JSON."),
    ) -> None:
        """Judge the stored answers of jury-scored runs. Resumable: each (answer, judge) is asked once; failed
        transport (timeouts, unreachable) is asked again on the next pass."""
        from medhelm_local.annotate.runs import judge_runs, stored_judging

        settings = settings_from(ctx, output_dir=output)
        allowlist = ctx.meta[ALLOWLIST]  # loaded with the settings: the one the guard enforces
        path = store_path_for(settings, suite, store)
        handle = open_store(path, load_kek(settings), create=False, memory_limit=settings.store_memory_limit)
        try:
            runs, warnings = stored_judging(handle.con, settings, allowlist, jury, run)
            if not runs:
                raise ConfigError("no run of this suite is scored by a jury", where=str(path),
                                  fix="jury-scored benchmarks are those whose main metric is jury_score "
                                      "(`medhelm-local benchmarks list`)")
            for warning in warnings:
                err.print(f"[yellow]Warning: {warning}.[/]", soft_wrap=True)
            progress = NoProgress() if (quiet or as_json) else BarProgress()
            outcomes = judge_runs(handle, runs, allowlist, retry_failed, progress)
        finally:
            handle.close()
        if as_json:
            print_json({"store": str(path), "runs": [{"run_id": o.run_id, "jury": o.jury, "sent": o.sent,
                                                      "aggregates": [aggregate_dict(a) for a in o.aggregates]}
                                                     for o in outcomes]})
            return
        if quiet:
            return
        for o in outcomes:
            sent = ", ".join(f"{j} {c.get('rated', 0)} rated / {c.get('failed', 0)} failed" for j, c in o.sent.items())
            out.print(f"[bold]{o.run_id}[/] (jury {o.jury}): this pass {sent or 'nothing left to ask'}")
            for line in _judged_aggregates(o.aggregates):
                out.print(line, highlight=False)

    @judge.command("validate")
    def validate(
        ctx: typer.Context,
        suite: str = typer.Argument(..., help="The suite whose jury to check."),
        ratings: Path = typer.Option(..., "--ratings", dir_okay=False, exists=False,
                                     help="Clinicians' ratings: CSV with run_id, instance_id, clinician, and score "
                                          "and/or the rubric's criteria."),
        run: str | None = typer.Option(None, "--run", help="The run the file rates, when it has no run_id column."),
        jury: str | None = typer.Option(None, "--jury", help="Whose ratings to compare (default: the run's jury)."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file instead of --suite."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """ICC between the jury and clinicians, between clinicians, and between ROUGE-L and clinicians, each with a
        95 % bootstrap interval. Writes nothing."""
        from medhelm_local.annotate.validate import validation_report

        settings = settings_from(ctx, output_dir=output)
        path = store_path_for(settings, suite, store)
        handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
        try:
            report = validation_report(handle.con, ratings, run, jury)
        finally:
            handle.close()
        if as_json:
            print_json(report.as_json())
            return
        out.print(_validation_table(report))
        out.print(f"ICC(3,1): two-way mixed effects, consistency, single rater; ICC(2,1): absolute agreement. Each is "
                  f"the mean over pairs of single raters, with a 95 % bootstrap interval over instances (1,000 "
                  f"resamples). ROUGE-L is put on the rubric's scale by its range. Clinicians: "
                  f"{', '.join(report.clinicians)}; rubric {report.rubric}; runs {', '.join(report.runs)}.",
                  highlight=False, soft_wrap=True)
