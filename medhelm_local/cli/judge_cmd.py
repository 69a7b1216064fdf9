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
from medhelm_local.metrics.health_bench import HEALTH_BENCH_SCORE
from medhelm_local.metrics.jury import is_jury_metric
from medhelm_local.progress import NoProgress
from medhelm_local.results.aggregates import aggregate_dict
from medhelm_local.run.plan import store_path_for
from medhelm_local.settings import Settings
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import load_kek

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
        if is_jury_metric(agg.metric) or agg.metric in (HEALTH_BENCH_SCORE, "jury_alpha", "judging_cost"):
            value = "-" if agg.mean is None else f"{agg.mean:.3f}"
            lines.append(f"  {agg.metric}: {value} ({agg.n_scored} rated, {agg.n_failed} failed, "
                         f"{agg.n_pending} pending)")
    return lines + judge_lines(aggregates)


def _fmt(value: float | None) -> str:
    if value is None or value != value:  # None or nan: too few instances, or a rater whose values never vary
        return "-"
    return f"{round(value, 3) + 0.0:.3f}"  # no "-0.000"


def _with_interval(estimate: Any) -> str:
    if estimate.value is None:
        return "-"
    shown = _fmt(estimate.value)
    return shown if estimate.low is None else f"{shown} [{_fmt(estimate.low)}, {_fmt(estimate.high)}]"


def _medhelm_table(report: Any) -> Any:
    from rich.table import Table

    table = Table(title="MedHELM's validation table (composite: the mean of the criteria; clinicians averaged per "
                        "answer)")
    for col in ("benchmark", "answers", "clinicians", "ICC3k-z jury vs clinicians", "Spearman rho",
                "weighted kappa", "ICC3k-z clinician pair (answers)"):
        table.add_column(col, justify="left" if col == "benchmark" else "right")
    for row in report.medhelm:
        pair = _with_interval(row.clinicians_icc3k_z) + (f" ({row.pair_answers})" if row.pair else "")
        table.add_row(row.name, str(row.answers), str(row.clinicians), _with_interval(row.icc3k_z),
                      _with_interval(row.spearman), _with_interval(row.weighted_kappa), pair)
    return table


def _validation_table(report: Any) -> Any:
    from rich.table import Table

    table = Table(title="Single raters (this project's): the mean ICC over pairs of one rater and one rater")
    for col in ("comparison", "pairs", "instances", "ICC(3,1)", "95% CI", "ICC(2,1)"):
        table.add_column(col, justify="left" if col == "comparison" else "right")
    for row in report.rows:
        ci = "-" if row.ci_low != row.ci_low else f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"
        table.add_row(row.comparison, str(row.pairs), str(row.instances), _fmt(row.icc), ci, _fmt(row.icc_absolute))
    return table


def _print_validation(report: Any) -> None:
    out.print(_medhelm_table(report))
    out.print("ICC3k-z is the figure MedHELM reported (its paper's jury-clinician \"ICC = 0.47\", on aci_bench and "
              "medi_qa pooled): ICC(3,k), two-way mixed, consistency, of the average of the two raters (the jury, and "
              "the clinicians' mean), each rater's composites first z-scored; 95 % interval from the F distribution. "
              "Spearman: Fisher-z interval. Weighted kappa: quadratic weights on composites rounded to whole points, "
              "95 % interval from 1,000 seeded bootstrap resamples. Clinician pair: the two clinicians who rated the "
              "most answers in common, on those answers.", highlight=False, soft_wrap=True)
    out.print(_validation_table(report))
    where = "the store" if report.jury_from == "store" else "the ratings file"
    runs = f"; runs {', '.join(report.runs)}" if report.runs else ""
    out.print(f"ICC(3,1): two-way mixed effects, consistency, single rater (one clinician against the jury, not "
              f"MedHELM's figure); ICC(2,1): absolute agreement. Each is the mean over pairs of single raters, with a "
              f"95 % bootstrap interval over instances (1,000 resamples). ROUGE-L is put on the rubric's scale by its "
              f"range. The jury's ratings come from {where}. Composite: the mean of "
              f"{', '.join(report.composite) or 'the overall score'}. Clinicians: {', '.join(report.clinicians)}; "
              f"rubric {report.rubric}{runs}.", highlight=False, soft_wrap=True)


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
        from medhelm_local.run.jury_runs import judge_runs, stored_judging

        settings = settings_from(ctx, output_dir=output)
        allowlist = ctx.meta[ALLOWLIST]  # loaded with the settings: the one the guard enforces
        path = store_path_for(settings, suite, store)
        handle = open_store(path, load_kek(settings), create=False, memory_limit=settings.store_memory_limit)
        try:
            runs, warnings = stored_judging(handle.con, settings, allowlist, jury, run)
            if not runs:
                raise ConfigError("no run of this suite is scored by a jury", where=str(path),
                                  fix="jury-scored benchmarks are those whose main metric is jury_score (on any "
                                      "scale) or health_bench_score (`medhelm-local benchmarks list`)")
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
        suite: str | None = typer.Argument(None, help="The suite whose jury to check (leave out when the ratings file "
                                                      "carries the jury's ratings)."),
        ratings: Path = typer.Option(..., "--ratings", dir_okay=False, exists=False,
                                     help="Clinicians' ratings: CSV with clinician (or username), instance_id, run_id "
                                          "(with a suite), and score and/or the rubric's criteria; the jury's too as "
                                          "llm_<criterion> columns or rater `jury`. MedHELM's published layout is "
                                          "read as it is."),
        run: str | None = typer.Option(None, "--run", help="The run the file rates, when it has no run_id column."),
        jury: str | None = typer.Option(None, "--jury", help="Whose ratings to compare (default: the run's jury)."),
        benchmark: list[str] | None = typer.Option(None, "--benchmark", help="Only these benchmarks (repeatable): "
                                                   "MedHELM's headline pools aci_bench and medi_qa."),
        rubric: str | None = typer.Option(None, "--rubric", help="Without a suite: the rubric whose criteria and scale "
                                                                 "the file uses (default: clinical_note, MedHELM's "
                                                                 "accuracy, completeness and clarity on 1-5)."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file instead of --suite."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """MedHELM's validation table (ICC3k-z, Spearman, weighted kappa, clinician pair; per benchmark and pooled)
        and single-rater ICCs between the jury, clinicians and ROUGE-L, each with a 95 % interval. Writes nothing."""
        from medhelm_local.annotate.validate import validate_file, validation_report
        from medhelm_local.run.jury_runs import jury_scored_runs

        if suite is None and store is None:
            report = validate_file(ratings, rubric, run, benchmark or ())
        else:
            if rubric is not None:
                raise ConfigError("--rubric is for a ratings file checked without a suite", where="--rubric",
                                  fix="leave it out: a suite's runs name their rubric")
            settings = settings_from(ctx, output_dir=output)
            path = store_path_for(settings, suite or "", store)
            handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
            try:
                judged = jury_scored_runs(handle.con)
                report = validation_report(handle.con, judged, ratings, run, jury, benchmark or ())
            finally:
                handle.close()
        if as_json:
            print_json(report.as_json())
            return
        _print_validation(report)
