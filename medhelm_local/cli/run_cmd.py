"""`medhelm-local run`: evaluate run entries into a suite's encrypted store."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.audit.log import audit_log_for
from medhelm_local.cli import ALLOWLIST, STARTED
from medhelm_local.cli.output import BarProgress, err, out, outcome_json, print_json, results_table
from medhelm_local.errors import AllRequestsFailedError, RunEntryError
from medhelm_local.progress import NoProgress
from medhelm_local.run.entries import parse_run_entry
from medhelm_local.run.plan import Shard, longest_text, plan, store_memory_for, store_path_for
from medhelm_local.run.sources import conf_path, entries_from_conf, read_suite
from medhelm_local.settings import Settings
from medhelm_local.store.database import connect, open_store
from medhelm_local.store.keys import load_kek

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from medhelm_local.results.outcomes import RunOutcome
    from medhelm_local.run.jury_runs import JudgingPlan

log = logging.getLogger("medhelm_local.cli")


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


def _report_unjudged(judging: JudgingPlan, suite: str, quiet: bool) -> None:
    """Say which jury-scored runs were left unjudged (pending, never imputed) and how to judge them."""
    if judging.unjudged and not quiet:
        err.print(f"[yellow]{len(judging.unjudged)} run(s) are scored by an LLM jury and no jury is configured: their "
                  "answers are stored unjudged and the jury score is pending (never imputed). Declare \\[juries.NAME] "
                  f"(judge deployments) and jury = \"NAME\" in your config, then run `medhelm-local judge {suite}`.[/]",
                  soft_wrap=True)


def _close_connection(done: Future[DuckDBPyConnection]) -> None:
    """Close a connection made ahead for a store the command never opened (it stopped on an error)."""
    if not done.cancelled() and done.exception() is None:
        done.result().close()


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
        # Start-up work in two threads beside this one, which checks the command: the scheduler and its HTTP
        # client load, and DuckDB loads its extension (~70 ms, no file needed yet); once everything is checked,
        # the store is attached and locked down. Only `run` loads the client.
        with ThreadPoolExecutor(2, thread_name_prefix="medhelm-run-setup") as pool:
            loading = pool.submit(import_module, "medhelm_local.run.scheduler")
            connecting = pool.submit(connect, True)
            try:
                settings = settings_from(ctx, output_dir=output, data_root=data_root)
                parsed = [parse_run_entry(e) for e in entries or []]
                for item in conf or []:
                    parsed += entries_from_conf(conf_path(item), priority, model, model_deployment)
                if suite_file is not None:
                    spec = read_suite(suite_file)
                    parsed += spec.entries
                    suite = suite or spec.name
                    max_eval_instances = max_eval_instances or spec.max_eval_instances
                    concurrency = concurrency or spec.concurrency
                if not parsed:
                    raise RunEntryError("nothing to run", where="command line",
                                        fix="give run entries, --conf FILE (or --conf public), or --suite-file FILE")
                suite_name = suite or "default"
                part = Shard.parse(shard) if shard is not None else None
                kek = load_kek(settings)
                allowlist = ctx.meta[ALLOWLIST]  # loaded with the settings: the one the guard enforces
                planned = plan(settings, parsed, suite_name, max_eval_instances, part, allowlist)
                log.info("%d run(s) planned %.3f s after start", len(planned), time.perf_counter() - STARTED)
                from medhelm_local.run.jury_runs import plan_judging  # here: only `run` and `judge` plan juries

                judging = plan_judging(planned, settings, allowlist, jury)
                for warning in judging.warnings:
                    err.print(f"[yellow]Warning: {warning}.[/]", soft_wrap=True)
                path = store_path_for(settings, suite_name, store, part)
                # Sized to the longest text the runs will store (run/plan.py); a configured limit is kept.
                memory = settings.store_memory_limit or store_memory_for(planned)
                if memory and not settings.store_memory_limit:
                    log.info("store memory limit %s: the longest text is %d KB", memory,
                             longest_text(planned) // 1024)
            except BaseException:
                connecting.add_done_callback(_close_connection)
                raise
            opening = pool.submit(lambda: open_store(path, kek, create=True, memory_limit=memory, streaming=True,
                                                     connection=connecting.result()))
            loading.result()  # the scheduler module is loaded (or its import error raised) by now
            # Loaded with the scheduler: look-ups, not imports.
            from medhelm_local.run.connections import connect_ahead
            from medhelm_local.run.scheduler import execute

            # While DuckDB attaches the store, which leaves the interpreter free (run/connections.py).
            connected = connect_ahead(planned, allowlist, concurrency)
        with connected:
            handle = opening.result()
            log.info("store %s opened %.3f s after start, %d connection(s) open", path.name,
                     time.perf_counter() - STARTED, connected.count())
            try:
                progress = NoProgress() if (quiet or as_json) else BarProgress()
                outcomes = execute(planned, handle, allowlist, suite_name, concurrency, progress, judging.judged,
                                   connected, audit_log_for(settings))
            finally:
                closing = time.perf_counter()
                handle.close()
                log.info("store %s closed in %.3f s", path.name, time.perf_counter() - closing)
        if as_json:
            print_json({"store": str(path), "runs": [outcome_json(o) for o in outcomes],
                        "failed": sum(o.summary.n_failed for o in outcomes), "unjudged": judging.unjudged})
        elif not quiet:
            out.print(results_table(outcomes, title=f"Suite {suite_name} ({path})"))
        _report_unjudged(judging, suite_name, quiet or as_json)
        _report_failures(outcomes, quiet)
