"""`medhelm-local run`: evaluate run entries into a suite's encrypted store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.cli import ALLOWLIST, STARTED
from medhelm_local.cli.output import err, out, outcome_json, print_json, results_table
from medhelm_local.errors import AllRequestsFailedError
from medhelm_local.progress import BarProgress, NoProgress
from medhelm_local.run.suite import SuiteRequest, run_suite, suite_request
from medhelm_local.settings import Settings

if TYPE_CHECKING:
    from medhelm_local.results.outcomes import RunOutcome


def _report_failures(outcomes: list[RunOutcome], quiet: bool) -> None:
    """Say on stderr what failed; a run whose every request failed ends the command with exit 6."""
    failed = sum(o.summary.n_failed for o in outcomes)
    if failed and not quiet:
        err.print(f"[yellow]{failed} request(s) failed and are stored as failed; rerun the same command to retry "
                  f"them, or see why with `medhelm-local show RUN_ID --failed`.[/]", soft_wrap=True)
    dead = [o for o in outcomes if o.all_failed]
    if dead:
        kinds = ", ".join(sorted({o.summary.scenario for o in dead}))
        raise AllRequestsFailedError(
            f"every request of {len(dead)} run(s) failed ({kinds}): no answer was scored",
            where=", ".join(o.summary.run_id for o in dead),
            fix="see the reasons with `medhelm-local show RUN_ID --failed` (often a model name the server does "
                "not offer, or prompts longer than its context); fix it and run the same command again")


def _warn(warning: str) -> None:
    err.print(f"[yellow]Warning: {warning}.[/]", soft_wrap=True)


def _report_unjudged(unjudged: Sequence[str], suite: str, quiet: bool) -> None:
    """Say which jury-scored runs were left unjudged (pending, never imputed) and how to judge them."""
    if unjudged and not quiet:
        err.print(f"[yellow]{len(unjudged)} run(s) are scored by an LLM jury and no jury is configured: their "
                  "answers are stored unjudged and the jury score is pending (never imputed). Declare \\[juries.NAME] "
                  f"(judge deployments) and jury = \"NAME\" in your config, then run `medhelm-local judge {suite}`.[/]",
                  soft_wrap=True)


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add the `run` command to the app."""

    @app.command()
    def run(
        ctx: typer.Context,
        entries: list[str] | None = typer.Argument(
            None, metavar="[RUN_ENTRY...]",
            help='MedHELM run entries, e.g. "pubmed_qa:model=local/qwen,model_deployment=vllm-local".'),
        conf: list[str] | None = typer.Option(
            None, "--conf",
            help="MedHELM run-entries conf file (repeatable); `public` and `gated` are the shipped sets."),
        priority: int | None = typer.Option(None, "--priority", min=1,
                                            help="With --conf: only entries of this priority or lower."),
        model: str | None = typer.Option(None, "--model", help="With --conf: evaluate this model in every entry."),
        model_deployment: str | None = typer.Option(
            None, "--model-deployment", help="With --conf: the deployment serving --model."),
        suite_file: Path | None = typer.Option(None, "--suite-file", dir_okay=False,
                                               help="YAML suite file: benchmarks x models x options."),
        suite: str | None = typer.Option(None, "--suite", "-s",
                                         help="Suite name; one encrypted store per suite (default: default)."),
        max_eval_instances: int | None = typer.Option(
            None, "--max-eval-instances", "-m", min=1, help="Evaluate a fixed seeded sample of this many instances."),
        concurrency: int | None = typer.Option(
            None, "--concurrency", min=1,
            help="Requests in flight per deployment at most (capped by its max_concurrency)."),
        shard: str | None = typer.Option(
            None, "--shard", metavar="I/N",
            help="Evaluate shard I of N (instances split by a hash of their id) into <suite>.shard-I-of-N.duckdb; "
                 "`store merge` joins the shards."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False,
                                           help="Folder for suite stores (default: output_dir setting)."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file to use instead."),
        data_root: Path | None = typer.Option(None, "--data-root", help="Folder of benchmark datasets."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar and no table; exit code only."),
        as_json: bool = typer.Option(False, "--json", help="Print results as JSON on stdout."),
        jury: str | None = typer.Option(None, "--jury", help="The jury that rates jury-scored benchmarks, judging "
                                                             "as answers arrive (default: the jury setting)."),
    ) -> None:
        """Run benchmarks against model deployments, all entries at once. Rerunning the same command resumes
        where it stopped. Exit 6 when every request of a run failed."""
        def read_request() -> SuiteRequest:  # while the scheduler and DuckDB load (run/suite.py)
            settings = settings_from(ctx, output_dir=output, data_root=data_root)
            # The allowlist loaded with the settings: the one the guard enforces.
            return suite_request(settings, ctx.meta[ALLOWLIST], entries or (), conf or (), suite_file, suite=suite,
                                 priority=priority, model=model, model_deployment=model_deployment,
                                 max_eval_instances=max_eval_instances, concurrency=concurrency, shard=shard,
                                 store=store, jury=jury)

        progress = NoProgress() if (quiet or as_json) else BarProgress(lambda: err.console)
        result = run_suite(read_request, progress, _warn, STARTED)
        outcomes = list(result.outcomes)
        if as_json:
            print_json({"store": str(result.store), "runs": [outcome_json(o) for o in outcomes],
                        "failed": result.failed, "unjudged": list(result.unjudged)})
        elif not quiet:
            out.print(results_table(outcomes, title=f"Suite {result.suite} ({result.store})"))
        _report_unjudged(result.unjudged, result.suite, quiet or as_json)
        _report_failures(outcomes, quiet)
