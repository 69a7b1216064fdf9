"""`medhelm-local runs list` and `medhelm-local show`: read stores, never call a model."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer

from medhelm_local.cli.jury_output import judge_lines, ratings_table
from medhelm_local.cli.output import (
    classification_tables,
    instance_details,
    instances_table,
    out,
    outcome_json,
    print_json,
    results_table,
    runs_table,
)
from medhelm_local.errors import (
    MedhelmError,
    MedhelmWarning,
    RunEntryError,
    StoreError,
    StoreKeyError,
    StoreNotFoundError,
)
from medhelm_local.results.aggregates import run_aggregates
from medhelm_local.results.outcomes import RunOutcome
from medhelm_local.run.plan import store_path_for
from medhelm_local.settings import Settings
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek, load_kek
from medhelm_local.store.model_builds import model_builds
from medhelm_local.store.queries import get_run, instance_rows, list_runs
from medhelm_local.store.run_ids import ambiguous, matching_run_ids, resolve_run_id, stored_run_ids
from medhelm_local.store.slices import run_slices, slice_lines, slices_json

T = TypeVar("T")


def _suite_stores(settings: Settings) -> list[Path]:
    """Every suite store in the output folder (the audit log may sit beside them; it is not one)."""
    from medhelm_local.audit import audit_path

    audit = audit_path().resolve()
    return sorted(p for p in settings.output_dir.glob("*.duckdb") if p.resolve() != audit)


def _stores(settings: Settings, suite: str | None, store: Path | None) -> list[Path]:
    if store is not None or suite is not None:
        return [store_path_for(settings, suite or "default", store)]
    found = _suite_stores(settings)
    if not found:
        raise StoreNotFoundError("no suite stores in the output folder", where=str(settings.output_dir),
                                 fix="run a benchmark first, or pass --output / --store")
    return found


def _open(settings: Settings, path: Path, kek: Kek | None = None) -> StoreHandle:
    return open_store(path, kek or load_kek(settings), read_only=True, memory_limit=settings.store_memory_limit)


def _readable(settings: Settings, paths: list[Path], read: Callable[[StoreHandle], T]) -> list[tuple[Path, T]]:
    """`read` on each store of the output folder. A store that cannot be read (damaged, sealed with another
    KEK, not a store, held by a run) is skipped with a warning naming it, so one bad file does not hide the
    others; if none can be read, the first one's error stops the command."""
    import duckdb

    from medhelm_local.store.integrity import explain_failure

    kek = load_kek(settings)  # a missing or wrong KEK file stops the command: it is no one store's fault
    done: list[tuple[Path, T]] = []
    failures: list[MedhelmError] = []
    for path in paths:
        try:
            handle = _open(settings, path, kek)
            try:
                done.append((path, read(handle)))
            finally:
                handle.close()
        except (StoreError, StoreKeyError, duckdb.Error) as exc:
            error = exc if isinstance(exc, MedhelmError) else explain_failure(exc, path)
            failures.append(error)
            warnings.warn(MedhelmWarning(f"skipped {path}, which cannot be read: {error.message}"), stacklevel=2)
    if failures and not done:
        raise failures[0]
    return done


def _store_holding(settings: Settings, typed: str) -> tuple[Path, str]:
    """The suite store holding the run a whole id or a prefix names, and its whole id, searched as `runs list`
    lists them (unreadable stores skipped); a prefix that begins runs in several stores is ambiguous."""
    paths = _stores(settings, None, None)
    found = _readable(settings, paths, lambda handle: matching_run_ids(typed, stored_run_ids(handle.con)))
    exact = [(path, typed) for path, ids in found if ids == [typed]]
    candidates = exact[:1] or [(path, run_id) for path, ids in found for run_id in ids]
    if len({run_id for _, run_id in candidates}) > 1:
        raise ambiguous(typed, [f"{run_id} ({path.stem})" for path, run_id in candidates], str(settings.output_dir))
    if candidates:
        return candidates[0]
    skipped = len(paths) - len(found)
    unread = f"; {skipped} store(s) there could not be read (see the warnings above)" if skipped else ""
    raise RunEntryError(f"no suite store in the output folder holds run '{typed}' (whole or its beginning){unread}",
                        where=str(settings.output_dir),
                        fix="list run ids with `medhelm-local runs list`, or name the store with --suite / --store")


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `runs list` and `show` to the app."""
    runs = typer.Typer(help="List runs in suite stores.", no_args_is_help=True)
    app.add_typer(runs, name="runs")

    @runs.command("list")
    def list_(
        ctx: typer.Context,
        suite: str | None = typer.Option(None, "--suite", "-s", help="Only this suite's store."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="One store file."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """List every run with its main score and progress: instances, completed, failed."""
        settings = settings_from(ctx, output_dir=output)
        paths = _stores(settings, suite, store)
        if store is not None or suite is not None:  # the store asked for: its error is the answer
            handle = _open(settings, paths[0])
            try:
                listing = [(paths[0], list_runs(handle.con))]
            finally:
                handle.close()
        else:
            listing = _readable(settings, paths, lambda handle: list_runs(handle.con))
        if as_json:
            print_json([{"store": str(p), "runs": [r.__dict__ for r in rs]} for p, rs in listing])
            return
        for path, rs in listing:
            out.print(runs_table(rs, str(path)))

    @app.command()
    def show(
        ctx: typer.Context,
        typed: str = typer.Argument(..., metavar="RUN_ID",
                                    help="Run id as printed by `runs list`, or any prefix of it that names one run."),
        suite: str | None = typer.Option(None, "--suite", "-s",
                                         help="Suite whose store holds the run (default: the store that has it)."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file instead of --suite."),
        instances: int | None = typer.Option(None, "--instances", "-n", min=1,
                                             help="Also print this many per-instance rows."),
        failed: bool = typer.Option(False, "--failed", help="Print the failed instances and why they failed."),
        full: bool = typer.Option(False, "--full", help="With --instances/--failed: the prompt, the reference and "
                                                        "the whole answer (the store is local and encrypted)."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """Show one run's metrics (with per-label counts and a confusion table for classification), and
        per-instance rows on request."""
        settings = settings_from(ctx, output_dir=output)
        named = suite is not None or store is not None
        if named:
            path, run_id = store_path_for(settings, suite or "default", store), typed
        else:
            path, run_id = _store_holding(settings, typed)
        handle = _open(settings, path)
        try:
            run_id = resolve_run_id(handle.con, run_id, where=str(path))
            summary = get_run(handle.con, run_id)
            outcome = RunOutcome(summary, run_aggregates(handle.con, run_id), 0, 0, 0.0)
            builds = model_builds(handle.con, run_id)
            sliced = run_slices(handle.con, run_id)
            wanted = instances or (None if failed else 0)
            rows = instance_rows(handle.con, run_id, wanted, failed, full) if (instances or failed) else []
            if rows:
                from medhelm_local.store.ratings import instance_ratings

                found = instance_ratings(handle.con, run_id, [r["instance_id"] for r in rows])
                for row in rows:
                    row["ratings"] = found.get(row["instance_id"], [])
        finally:
            handle.close()
        if as_json:
            print_json(outcome_json(outcome) | {"store": str(path), "instances": rows,
                                                "model_builds": builds.as_json(), "slices": slices_json(sliced)})
            return
        out.print(results_table([outcome], title=f"{summary.run_entry}"))
        for line in builds.lines():
            out.print(line, highlight=False, soft_wrap=True, markup=False)
        for agg in outcome.aggregates:
            mean = "-" if agg.mean is None else f"{agg.mean:.3f}"
            out.print(f"  {agg.metric}: {mean} over {agg.n_scored} scored, {agg.n_failed} failed, "
                      f"{agg.n_pending} pending")
        for line in slice_lines(sliced):
            out.print(line, highlight=False, soft_wrap=True, markup=False)
        for line in judge_lines(outcome.aggregates):
            out.print(line, highlight=False)
        for table in classification_tables(outcome.aggregates):
            out.print(table)
        if rows:
            out.print(instances_table(rows, title="Failed instances" if failed else "Instances"))
            rated = ratings_table(rows)
            if rated is not None:
                out.print(rated)
            if full:
                for block in instance_details(rows):
                    out.print(block, highlight=False)
