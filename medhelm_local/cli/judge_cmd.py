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
from medhelm_local.cli.output import err, out, print_json
from medhelm_local.errors import ConfigError
from medhelm_local.metrics.health_bench import HEALTH_BENCH_SCORE
from medhelm_local.metrics.jury import is_jury_metric
from medhelm_local.progress import BarProgress, NoProgress
from medhelm_local.results.aggregates import aggregate_dict
from medhelm_local.settings import Settings

SUITE_COMMAND = "suite"
# How `judge validate` spells the library's arguments, for its errors.
_VALIDATE_FLAGS = {"ratings": "--ratings", "campaign": "--campaign", "run": "option --run", "rubric": "--rubric"}


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


def _write_template(ctx: typer.Context, settings_from: Callable[..., Settings], template: Path, suite: str | None,
                    store: Path | None, output: Path | None, run: str | None, clinicians: list[str],
                    ratings: Path | None) -> None:
    from medhelm_local.raters.jury_check import template_with

    if ratings is not None or (suite is None and store is None):
        raise ConfigError("--template writes the file to fill in from a suite's answers", where="--template",
                          fix="name the SUITE (or --store), without --ratings: `judge validate SUITE --template FILE`")
    written, rubric = template_with(settings_from(ctx, output_dir=output), suite, template, runs=[run] if run else [],
                                    clinicians=clinicians, store=store, run_where="option --run")
    out.print(f"Wrote {template}: {written} row(s) to fill in, rubric {rubric.name}; rate "
              f"{', '.join(rubric.criterion_names)} with whole points from {rubric.scale.min} to {rubric.scale.max}"
              f"{'' if clinicians else ', and put who rated in the clinician column'}. Rows left blank are skipped. "
              f"Then: medhelm-local judge validate {suite or '--store ' + str(store)} --ratings {template}",
              highlight=False, soft_wrap=True)


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
        run: list[str] | None = typer.Option(None, "--run", help="Only this run (repeatable; a unique beginning of "
                                                                 "its id will do)."),
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
        from medhelm_local.run.judge import judge_stored

        settings = settings_from(ctx, output_dir=output)
        progress = NoProgress() if (quiet or as_json) else BarProgress(lambda: err.console)
        # The allowlist loaded with the settings: the one the guard enforces.
        done = judge_stored(settings, ctx.meta[ALLOWLIST], suite, runs=run, jury=jury, retry_failed=retry_failed,
                            store=store, progress=progress, runs_where="option --run",
                            on_warning=lambda w: err.print(f"[yellow]Warning: {w}.[/]", soft_wrap=True))
        outcomes, path = done.outcomes, done.store
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

    @judge.command("campaign")
    def campaign_(
        ctx: typer.Context,
        suite: str = typer.Argument(..., help="The suite whose run the clinicians rate."),
        run: str = typer.Option(..., "--run", help="The jury-scored run whose answers to rate."),
        raters: str = typer.Option(..., "--raters", help="Raters, comma-separated (`medhelm-local raters add`)."),
        instances: int | None = typer.Option(None, "--instances", min=1, help="Answers to rate (default: as many "
                                             "as Bonett's method plans for --target-width)."),
        overlap: int = typer.Option(2, "--overlap", min=2, help="Raters per answer."),
        seed: int = typer.Option(0, "--seed", help="Seed of the sample and of each rater's order."),
        target_width: float = typer.Option(0.3, "--target-width", help="Full width of the ICC's 95 % interval to "
                                           "plan for (without --instances)."),
        expected_icc: float = typer.Option(0.47, "--expected-icc", help="The ICC expected (MedHELM's jury reached "
                                           "0.47 with clinicians)."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file instead of --suite."),
    ) -> None:
        """Start a rating campaign: a seeded sample of a run's answers, each assigned to --overlap raters, rated
        blind in the viewer (`medhelm-local serve`); `judge validate SUITE --campaign ID` then compares."""
        from medhelm_local.raters.jury_check import campaign_with

        names = [n.strip() for n in raters.split(",") if n.strip()]
        made = campaign_with(settings_from(ctx, output_dir=output), suite, run=run, raters=names, instances=instances,
                             overlap=overlap, seed=seed, target_width=target_width, expected_icc=expected_icc,
                             store=store, run_where="option --run")
        out.print(made.sizing, highlight=False, soft_wrap=True)
        out.print(f"[green]Started {made.campaign_id}[/]: {made.instances} answers of {made.run_id}, each to {overlap} "
                  f"of {', '.join(names)} (seed {seed}, rubric {made.rubric}). Raters rate in the viewer "
                  f"(`medhelm-local serve {suite}`); then `medhelm-local judge validate {suite} --campaign "
                  f"{made.campaign_id}`.", soft_wrap=True)

    @judge.command("validate")
    def validate(
        ctx: typer.Context,
        suite: str | None = typer.Argument(None, help="The suite whose jury to check (leave out when the ratings file "
                                                      "carries the jury's ratings)."),
        ratings: Path | None = typer.Option(None, "--ratings", dir_okay=False, exists=False,
                                     help="Clinicians' ratings: CSV with clinician (or username), instance_id, run_id "
                                          "(with a suite), and score and/or the rubric's criteria; the jury's too as "
                                          "llm_<criterion> columns or rater `jury`. MedHELM's published layout is "
                                          "read as it is."),
        run: str | None = typer.Option(None, "--run", help="The run the file rates, when it has no run_id column "
                                                           "(with --template: only this run's answers)."),
        template: Path | None = typer.Option(None, "--template", dir_okay=False,
                                             help="Instead of checking: write the ratings file for clinicians to fill "
                                                  "in (a row per answer, a blank cell per rubric criterion) to this "
                                                  "new CSV file."),
        clinician: list[str] | None = typer.Option(None, "--clinician", help="With --template: a row per answer for "
                                                                              "each clinician named (repeatable)."),
        jury: str | None = typer.Option(None, "--jury", help="Whose ratings to compare (default: the run's jury)."),
        campaign: str | None = typer.Option(None, "--campaign", help="Instead of --ratings: the clinicians' ratings "
                                            "of a rating campaign, read from the suite's store."),
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
        from medhelm_local.raters.jury_check import validation_with

        if template is not None:
            _write_template(ctx, settings_from, template, suite, store, output, run, clinician or [], ratings)
            return
        reads_store = suite is not None or store is not None
        report = validation_with(settings_from(ctx, output_dir=output) if reads_store else None, suite,
                                 ratings=ratings, campaign=campaign, run=run, jury=jury, benchmarks=benchmark or (),
                                 rubric=rubric, store=store, spelled=_VALIDATE_FLAGS)
        if as_json:
            print_json(report.as_json())
            return
        _print_validation(report)
