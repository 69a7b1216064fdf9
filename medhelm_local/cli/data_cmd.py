"""`data stage` (a connected staging host) and `data import` (the appliance): public data in, one bundle."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.cli.output import err, out
from medhelm_local.settings import Settings

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from medhelm_local.client.allowed_hosts import Allowlist
    from medhelm_local.data.stage import StagePlan
    from medhelm_local.export.signing import SigningKey


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


class FileBars:
    """A rich bar per file while it downloads, under one bar for the whole staging."""

    def __init__(self, progress: Progress, total_files: int) -> None:
        self._progress = progress
        self._tasks: dict[str, TaskID] = {}
        self._overall = progress.add_task("all files", total=total_files)

    def started(self, label: str, total: int, done: int) -> None:
        """A file is being fetched (again, after a dropped connection: its bar restarts from `done`)."""
        if label in self._tasks:
            self._progress.update(self._tasks[label], completed=done)
        else:
            from rich.markup import escape

            self._tasks[label] = self._progress.add_task(escape(label[-50:]), total=total, completed=done)

    def advanced(self, label: str, size: int) -> None:
        """More bytes of a file arrived."""
        self._progress.advance(self._tasks[label], size)

    def finished(self, label: str) -> None:
        """A file is complete and verified: its bar goes, the overall bar moves on."""
        task = self._tasks.pop(label, None)
        if task is not None:
            self._progress.remove_task(task)
        self._progress.advance(self._overall, 1)


def _show_plan(plan: StagePlan) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Public datasets to stage")
    for col in ("dataset", "files", "size", "licence (as its publisher states it)", "published at"):
        table.add_column(col, overflow="fold")
    for s in plan.sources:
        table.add_row(s.folder, str(len(s.files)), _mb(s.total_bytes), escape(s.licence), escape(s.provenance))
    if plan.sources:
        out.print(table)
    for g in plan.gated:
        out.print(f"[yellow]Not fetched[/] {escape(g.benchmark)}: {escape(g.title)} is gated; obtain it at "
                  f"{escape(g.obtain_at)} ({escape(g.needs)}).", soft_wrap=True)
    for u in plan.unpinned:
        urls = "; ".join(f"{escape(name)} from {escape(url)}" for name, url in u.files)
        out.print(f"[yellow]Not fetched[/] {escape(u.benchmark)}: {escape(u.title)} is public, but no checksum ships "
                  f"for its files yet, so they are never fetched here. Fetch {urls}, check them, and import a folder "
                  f"named {escape(u.folder)} holding them with `medhelm-local data import FOLDER` (it records their "
                  "checksums).", soft_wrap=True)
    if plan.sources:
        hosts = ", ".join(f"{h}:{p}" for h, p in plan.hosts)
        out.print(f"It will connect to {hosts} (redirects are never followed) and fetch {plan.file_count} file(s), "
                  f"{_mb(plan.total_bytes)}.", soft_wrap=True)


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `data stage` and `data import` to the app."""
    data = typer.Typer(help="Bring public benchmark data in: stage it on a connected host, import the bundle.",
                       no_args_is_help=True)
    app.add_typer(data, name="data")

    @data.command("stage")
    def data_stage(
        ctx: typer.Context,
        benchmarks: list[str] | None = typer.Argument(
            None, help="Benchmarks or dataset folders to stage (default: every public one)."),
        to: Path = typer.Option(..., "--to", file_okay=False, help="The bundle folder to write (new or empty)."),
        signing_key: Path | None = typer.Option(
            None, "--signing-key", dir_okay=False, exists=True,
            help="Sign the bundle with this key (made by `keys signing-init`, opened with the KEK); the appliance "
                 "checks it with the .pub beside it."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Connect without asking."),
        concurrency: int = typer.Option(8, "--concurrency", min=1, max=32, help="Files fetched at once."),
        source_url: str | None = typer.Option(
            None, "--source-url", hidden=True,
            help="TESTS ONLY: fetch every file from URL/<folder>/<name> instead of its published location; the "
                 "host must still be on the egress allowlist for staging and every checksum still applies."),
    ) -> None:
        """On a connected staging host: fetch the public datasets, check every file's sha256, write one bundle."""
        from medhelm_local.data.stage import plan_stage, require_hosts, staging_allowlist
        from medhelm_local.policy.loader import load_policy

        settings = settings_from(ctx)
        policy = load_policy(settings.policy_dir)
        plan = plan_stage(benchmarks or [])
        if source_url:
            plan = plan.served_from(source_url)
        allowlist = staging_allowlist(policy)
        require_hosts(plan, allowlist, policy.path_of("egress.yaml"))
        key = None
        if signing_key is not None:
            from medhelm_local.export.signing import load_signing_key
            from medhelm_local.store.keys import load_kek

            key = load_signing_key(signing_key, load_kek(settings))
        _show_plan(plan)
        if not plan.sources:
            out.print("Nothing to fetch.")
            return
        if not yes:
            typer.confirm("Connect and fetch these files?", abort=True, err=True)
        _stage_with_bars(plan, to, allowlist, key, concurrency)

    def _stage_with_bars(plan: StagePlan, to: Path, allowlist: Allowlist, key: SigningKey | None,
                         concurrency: int) -> None:
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

        from medhelm_local.data.stage import stage

        started = time.monotonic()
        with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                      console=err.console, transient=True) as progress:
            result = stage(plan, to, allowlist, key, FileBars(progress, plan.file_count), concurrency)
        signed = (f"signed with key {result.signing_key_id}" if result.signing_key_id else
                  "[yellow]unsigned[/] (the appliance must import it with --allow-unsigned)")
        out.print(f"Staged {len(result.datasets)} dataset(s), {result.files} file(s), {_mb(result.bytes)} in "
                  f"{time.monotonic() - started:.2f} s into {result.destination}, every file matching its published "
                  f"sha256; {signed}. Manifest sha256 {result.manifest_sha256}.", soft_wrap=True)
        key_hint = " --public-key STAGING.pub" if result.signing_key_id else " --allow-unsigned"
        out.print(f"Carry {result.destination} to the appliance, then run: medhelm-local data import "
                  f"{result.destination.name}{key_hint}", soft_wrap=True)

    @data.command("import")
    def data_import(
        ctx: typer.Context,
        source: Path = typer.Argument(..., help="A bundle written by `data stage`, or one dataset folder in its "
                                                "published layout (e.g. .../pubmedqa)."),
        public_key: Path | None = typer.Option(None, "--public-key", dir_okay=False,
                                               help="The staging host's public key (.pub), to check the bundle's "
                                                    "signature."),
        allow_unsigned: bool = typer.Option(False, "--allow-unsigned",
                                            help="Accept an unsigned bundle, if every file matches the checksums "
                                                 "shipped with medhelm-local."),
        name: str | None = typer.Option(None, "--name", help="Folder name in the data root (a folder only; "
                                                             "default: the source's)."),
        replace: bool = typer.Option(False, "--replace", help="Replace dataset folders of the same name."),
        data_root: Path | None = typer.Option(None, "--data-root", help="Data root (default: data_root setting)."),
    ) -> None:
        """Copy a staged bundle (verified, audited) or one dataset folder into the data root, checksums recorded."""
        from medhelm_local.data.bundle_import import is_data_bundle

        settings = settings_from(ctx, data_root=data_root)
        if is_data_bundle(source):
            if name is not None:
                raise typer.BadParameter("a bundle keeps its datasets' folder names", param_hint="--name")
            _import_bundle(settings, source, public_key, allow_unsigned, replace)
            return
        for given, option in ((allow_unsigned, "--allow-unsigned"), (public_key is not None, "--public-key")):
            if given:  # said, not ignored: the user asked for a check that a plain folder cannot have
                raise typer.BadParameter(f"{source} is a dataset folder, not a bundle written by `data stage`, so "
                                         "there is no signature to check or waive; the folder is copied as it is and "
                                         "its checksums recorded (leave the option out)", param_hint=option)
        from medhelm_local.scenarios import import_dataset

        report = import_dataset(source, settings.data_root, name, replace)
        out.print(f"Imported {len(report.files)} file(s) into {report.destination}; the copy "
                  f"{_release_status(report.folder, report.files, report.matches_published)}. "
                  "Checksums are in MANIFEST.json and are checked on every load.", soft_wrap=True)

    def _release_status(folder: str, files: dict[str, str], matches: bool) -> str:
        """Whether an imported folder is the published release, and, for a public benchmark's folder, what that
        means for exports (scenarios/data_read.py)."""
        from medhelm_local.scenarios.data_read import release_verdict
        from medhelm_local.scenarios.dataset_sources import published_source, unpinned_datasets

        if matches:
            return "matches the published files"
        source = published_source(folder)
        named = {n: h for n, h in files.items() if source is not None and (
            n in source.checksums or any(s.name == n for s in source.subsets))}
        if source is not None and named and release_verdict(folder, named)[0]:
            return "is a subset of the published files that medhelm-local pins (public data)"
        if source is not None or folder in {u.folder for u in unpinned_datasets()}:
            return ("is not the published version: runs of it are exported as private data, never as public "
                    "(only files whose checksums medhelm-local pins are public)")
        return "is not the published version"

    def _import_bundle(settings: Settings, bundle: Path, public_key: Path | None, allow_unsigned: bool,
                       replace: bool) -> None:
        from medhelm_local.audit import audit_log_for
        from medhelm_local.data.bundle_import import import_bundle
        from medhelm_local.export.signing import load_public_key

        public = load_public_key(public_key) if public_key is not None else None
        result = import_bundle(bundle, settings.data_root, audit_log_for(settings), public, allow_unsigned, replace)
        how = f"signature valid (key {result.signing_key_id})" if result.signing_key_id else \
            "unsigned, every file matching the checksums shipped with medhelm-local"
        for report in result.imported:
            status = "" if report.matches_published else " [yellow](not the published version)[/]"
            out.print(f"Imported {report.folder}: {len(report.files)} file(s) into {report.destination}{status}.",
                      soft_wrap=True)
        for folder in result.unchanged:
            out.print(f"{folder} is already in the data root with exactly these files; left as it is.")
        out.print(f"Bundle {bundle}: {how}; manifest sha256 {result.manifest_sha256}; audit record "
                  f"{result.audit_seq}. `medhelm-local benchmarks list` shows what can run now.", soft_wrap=True)


__all__ = ["register"]
