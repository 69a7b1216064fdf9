"""`medhelm-local judge SUITE` (rate stored answers with a jury, resumable) and `judge validate` (agreement
with clinicians). Both read the suite's store; only `judge` asks anything, and only the judges."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from medhelm_local.store.run_ids import resolve_run_id

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


def _campaign_validation(settings: Settings, suite: str | None, store: Path | None, campaign: str, jury: str | None,
                         benchmarks: Sequence[str]) -> Any:
    from medhelm_local.raters.campaigns import campaign_report

    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
    try:
        return campaign_report(handle.con, path, campaign, jury, benchmarks)
    finally:
        handle.close()


def _write_template(ctx: typer.Context, settings_from: Callable[..., Settings], template: Path, suite: str | None,
                    store: Path | None, output: Path | None, run: str | None, clinicians: list[str],
                    ratings: Path | None) -> None:
    from medhelm_local.annotate.ratings_file import write_template
    from medhelm_local.annotate.validate import template_answers
    from medhelm_local.run.jury_runs import jury_scored_runs

    if ratings is not None or (suite is None and store is None):
        raise ConfigError("--template writes the file to fill in from a suite's answers", where="--template",
                          fix="name the SUITE (or --store), without --ratings: `judge validate SUITE --template FILE`")
    settings = settings_from(ctx, output_dir=output)
    path = store_path_for(settings, suite or "", store)
    handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
    try:
        runs = [resolve_run_id(handle.con, run, where="--run")] if run else []
        rubric, answers = template_answers(handle.con, jury_scored_runs(handle.con), runs)
    finally:
        handle.close()
    written = write_template(template, rubric, answers, clinicians)
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
        progress = NoProgress() if (quiet or as_json) else BarProgress()
        # The allowlist loaded with the settings: the one the guard enforces.
        done = judge_stored(settings, ctx.meta[ALLOWLIST], suite, runs=run, jury=jury, retry_failed=retry_failed,
                            store=store, progress=progress,
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
        from medhelm_local.audit import audit_log_for
        from medhelm_local.policy.identity import current_actor
        from medhelm_local.raters.campaigns import create_campaign, size_campaign
        from medhelm_local.raters.registry import rater_registry

        names = [n.strip() for n in raters.split(",") if n.strip()]
        active = {r.name for r in rater_registry().raters() if r.active}
        unknown = [n for n in names if n not in active]
        if unknown:
            raise ConfigError(f"not active raters: {', '.join(unknown)}", where="option --raters",
                              fix=f"add them with `medhelm-local raters add NAME --role clinician` (active now: "
                                  f"{', '.join(sorted(active)) or 'none'})")
        settings = settings_from(ctx, output_dir=output)
        audit = audit_log_for(settings)
        path = store_path_for(settings, suite, store)
        handle = open_store(path, load_kek(settings), create=False, memory_limit=settings.store_memory_limit)
        try:
            planned = size_campaign(handle.con, run, overlap, expected_icc, target_width)
            if instances is None:
                count, sizing = planned.chosen, planned.reasoning()
            else:
                count, sizing = instances, planned.reasoning(instances)
            made = create_campaign(handle.con, run, names, count, overlap, seed, sizing, current_actor())
        finally:
            handle.close()
        audit.append("campaign.created", {"store": str(path), "campaign": made.campaign_id, "run": run,
                                          "raters": names, "instances": made.instances, "overlap": overlap,
                                          "seed": seed})
        out.print(sizing, highlight=False, soft_wrap=True)
        out.print(f"[green]Started {made.campaign_id}[/]: {made.instances} answers of {run}, each to {overlap} of "
                  f"{', '.join(names)} (seed {seed}, rubric {made.rubric}). Raters rate in the viewer "
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
        from medhelm_local.annotate.validate import validate_file, validation_report
        from medhelm_local.run.jury_runs import jury_scored_runs

        if template is not None:
            _write_template(ctx, settings_from, template, suite, store, output, run, clinician or [], ratings)
            return
        if (ratings is None) == (campaign is None):
            raise ConfigError("give the clinicians' ratings: --ratings FILE or --campaign ID (one of them)",
                              where="options --ratings / --campaign",
                              fix="name a ratings file, or a campaign the raters rated in the viewer (a file to fill "
                                  "in: --template FILE)")
        if campaign is not None:
            if suite is None and store is None:
                raise ConfigError("a campaign's ratings are in a suite's store, and no suite was named",
                                  where="argument SUITE", fix="name the suite (or --store) the campaign belongs to")
            report = _campaign_validation(settings_from(ctx, output_dir=output), suite, store, campaign, jury,
                                          benchmark or ())
        elif suite is None and store is None:  # --ratings was given (one of the two, checked above)
            report = validate_file(ratings, rubric, run, benchmark or ())  # type: ignore[arg-type]
        else:
            if rubric is not None:
                raise ConfigError("--rubric is for a ratings file checked without a suite", where="--rubric",
                                  fix="leave it out: a suite's runs name their rubric")
            settings = settings_from(ctx, output_dir=output)
            path = store_path_for(settings, suite or "", store)
            handle = open_store(path, load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)
            try:
                judged = jury_scored_runs(handle.con)
                whole = resolve_run_id(handle.con, run, where="--run") if run else None
                report = validation_report(handle.con, judged, ratings, whole, jury,  # type: ignore[arg-type]
                                           benchmark or ())
            finally:
                handle.close()
        if as_json:
            print_json(report.as_json())
            return
        _print_validation(report)
