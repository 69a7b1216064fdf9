"""`medhelm-local report` and `serve`: compare models from stores (read-only, never a model)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.cli.output import err, out
from medhelm_local.errors import ConfigError, StoreNotFoundError
from medhelm_local.settings import Settings

if TYPE_CHECKING:
    from medhelm_local.report.read_model import Report

_SUITES = typer.Argument(None, metavar="[SUITE]...", help="Suites to report (their stores in the output folder). "
                                                           "Default: every suite store there.")
_STORES = typer.Option(None, "--store", dir_okay=False, help="A store file to include (repeatable).")
_OUTPUT = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores (default: output_dir).")
_HELM = typer.Option(None, "--helm-runs", file_okay=False,
                     help="A folder of HELM-format run folders (run_spec.json + stats.json, e.g. a MedHELM release) "
                          "to show beside local results, marked as published (repeatable).")


def report_stores(settings: Settings, suites: list[str] | None, stores: list[Path] | None) -> list[Path]:
    """The store of each named suite and each --store; with neither, every suite store in the output folder."""
    from medhelm_local.audit import audit_path

    paths = list(stores or [])
    for suite in suites or []:
        path = settings.output_dir / f"{suite}.duckdb"
        if not path.exists():
            known = ", ".join(sorted(p.stem for p in settings.output_dir.glob("*.duckdb"))) or "none"
            raise StoreNotFoundError(f"there is no store for suite '{suite}' (suites here: {known})",
                                     where=str(path), fix="check the suite name, or pass the store with --store")
        paths.append(path)
    if not paths:
        audit = os.path.realpath(audit_path())
        paths = sorted(p for p in settings.output_dir.glob("*.duckdb") if os.path.realpath(p) != audit)
        if not paths:
            raise StoreNotFoundError("no suite stores in the output folder", where=str(settings.output_dir),
                                     fix="run a benchmark first, or pass suites, --output or --store")
    # Each store once, however it was named; kept as named (links and all), so that errors name what was given.
    unique: dict[str, Path] = {}
    for path in paths:
        unique.setdefault(os.path.realpath(path), Path(os.path.abspath(path)))
    return list(unique.values())


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `report` and `serve` to the app."""

    @app.command()
    def report(
        ctx: typer.Context,
        suites: list[str] | None = _SUITES,
        out_path: Path | None = typer.Option(None, "--out", help="HTML: a new folder (an earlier report there is "
                                                                 "replaced). Other formats: a file (default: stdout)."),
        fmt: str = typer.Option("html", "--format", "-f", help="html, json, csv, md or latex. With --trend, csv is "
                                                                 "the trend (a row per model, benchmark and suite) "
                                                                 "and latex adds a trend table."),
        stores: list[Path] | None = _STORES,
        output: Path | None = _OUTPUT,
        helm_runs: list[Path] | None = _HELM,
        baseline: str | None = typer.Option(None, "--baseline", help="The model others are compared with "
                                                                     "(default: the leaderboard's first)."),
        instances: str = typer.Option("1000", "--instances", metavar="N|all",
                                      help="HTML: instances of each run in its per-instance browser (and as many "
                                           "with a failure); `all` writes every one."),
        trend: bool = typer.Option(False, "--trend", help="The suites are one evaluation repeated over time, oldest "
                                                          "first as given: report the last one, with each model's "
                                                          "trend per benchmark across all of them (changes larger "
                                                          "than their interval and model build changes flagged)."),
        validated_only: bool = typer.Option(False, "--validated-only",
                                            help="Refuse (write nothing) if a jury-scored column is not validated by "
                                                 "clinicians (export.yaml's jury_validation), e.g. for a report that "
                                                 "will leave the appliance. The policy can make this the rule."),
    ) -> None:
        """Compare models: mean win rates, taxonomy macro averages, paired comparisons; a static HTML report that
        opens without a network, or JSON, CSV, Markdown or a LaTeX table."""
        from medhelm_local.policy.loader import load_policy
        from medhelm_local.report import FORMATS, open_sources, render_text, write_site
        from medhelm_local.report.stores import reading
        from medhelm_local.store.keys import load_kek

        if fmt not in FORMATS:
            raise ConfigError(f"--format '{fmt}' is not a report format", where="option --format",
                              fix=f"use one of: {', '.join(FORMATS)}")
        folder = out_path if fmt == "html" else None
        if fmt == "html" and folder is None:
            raise ConfigError("an HTML report is a folder, and none was given", where="option --out",
                              fix="add --out DIR (a new folder), or choose --format json, csv, md or latex")
        cap = _instances(instances)
        settings = settings_from(ctx, output_dir=output)
        paths = report_stores(settings, suites, stores)
        rules = load_policy(settings.policy_dir).export.jury_validation  # read once: what counts as validated
        sources = open_sources(paths, load_kek(settings), settings.store_memory_limit, helm_runs or [], rules)
        try:
            with reading(", ".join(str(p) for p in paths)):
                built = sources.report(baseline, trend)
                _refuse_unvalidated(built, validated_only, rules.refuse_unvalidated)
                if folder is not None:
                    result = write_site(built, sources.by_run(), folder, cap)
                else:
                    text = render_text(built, fmt)
        finally:
            sources.close()
        if folder is None:
            if out_path is None:
                sys.stdout.write(text)
            else:
                _write_text(out_path, text)
            return
        out.print(f"[green]Wrote the report[/] of {len(built.runs)} run(s), {len(built.models)} model(s) to "
                  f"{result.folder}: {result.pages} pages, {result.data_files} instance pages.", soft_wrap=True)
        out.print(f"Open {result.folder / 'index.html'} in a browser (it needs no network), or serve the live "
                  "stores with `medhelm-local serve`.", soft_wrap=True)

    @app.command()
    def serve(
        ctx: typer.Context,
        suites: list[str] | None = _SUITES,
        port: int = typer.Option(8080, "--port", min=0, max=65535, help="Port to listen on (0: a free one)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on. Default: loopback only; another "
                                                             "address exposes the viewer (still behind its token)."),
        token_file: Path | None = typer.Option(None, "--token-file", dir_okay=False,
                                               help="Read the access token from this file (e.g. a mounted Secret) "
                                                    "instead of making a random one."),
        stores: list[Path] | None = _STORES,
        output: Path | None = _OUTPUT,
        helm_runs: list[Path] | None = _HELM,
        trend: bool = typer.Option(False, "--trend", help="The suites are one evaluation repeated over time, oldest "
                                                          "first as given: show the last one, with the trend page "
                                                          "`report --trend` writes (each model's trend per benchmark "
                                                          "across all of them)."),
    ) -> None:
        """A read-only local viewer of the report over live stores, behind an access token."""
        from medhelm_local.export.review_web import ReviewGate, review_desk
        from medhelm_local.raters.campaign_web import CampaignGate, campaign_admin
        from medhelm_local.raters.gate import RaterGate
        from medhelm_local.raters.web import rating_desk
        from medhelm_local.report.live import LiveStores
        from medhelm_local.report.server import new_token, read_token
        from medhelm_local.report.stores import reading
        from medhelm_local.report.viewer import bind
        from medhelm_local.report.viewer import serve as run_viewer
        from medhelm_local.store.keys import load_kek

        settings = settings_from(ctx, output_dir=output)
        paths = report_stores(settings, suites, stores)
        token = read_token(token_file) if token_file is not None else new_token()
        kek = load_kek(settings)
        desk, rules = rating_desk(settings, paths)
        live = LiveStores(paths, kek, settings.store_memory_limit, helm_runs or [], rules, trend)
        reviews = review_desk(settings, kek)
        admin = campaign_admin(desk)
        with reading(", ".join(str(p) for p in paths)):
            live.report()  # every store opens and reads before anything listens: bad input stops here
        sock = bind(host, port)

        def announce(url: str) -> None:
            out.print(f"Serving the report of {len(paths)} store(s), read-only, at {url}", soft_wrap=True)
            if token_file is None:
                out.print("Open this link (it carries the access token; keep it private):", soft_wrap=True)
                out.print(f"    {url}?token={token}", soft_wrap=True, highlight=False)
            else:
                out.print(f"The access token is the one in {token_file}: open {url}?token=TOKEN once, or send "
                          "`Authorization: Bearer TOKEN`.", soft_wrap=True)
            if host not in ("127.0.0.1", "localhost", "::1"):
                err.print(f"Warning: listening on {host}, not only on this machine; anyone who can reach it and "
                          "holds the token can read these results.", soft_wrap=True)
            out.print(f"Raters sign in with their own links ({url}rate/signin?link=...), and see only the rating "
                      "pages.", soft_wrap=True)
            out.print(f"Rating campaigns (started here as {admin.actor}): {url}campaigns", soft_wrap=True)
            out.print(f"Exports waiting for a person's review: {url}review (approvals are by {reviews.actor}, "
                      f"{'signed with the export signing key' if reviews.key else 'not possible: no signing key'}).",
                      soft_wrap=True)
            out.print("Press Ctrl+C to stop.")
            out.file.flush()

        run_viewer(live, sock, token, announce, lambda app, port, loopback: RaterGate(ReviewGate(
            CampaignGate(app, admin, token, port, loopback), reviews, token, port, loopback), desk, port, loopback))


def _refuse_unvalidated(built: Report, asked: bool, by_policy: bool) -> None:
    """Refuse a report with a jury-scored column not validated, when asked to or when the policy says so."""
    from medhelm_local.report.jury_validation import refuse_unvalidated

    if not (asked or by_policy):
        return
    why = ("the policy refuses such reports (export.yaml: jury_validation.refuse_unvalidated)" if by_policy
           else "--validated-only was given")
    refuse_unvalidated(built.jury_marks, {c.key: c.title for c in built.columns}, why)


def _instances(text: str) -> int | None:
    if text == "all":
        return None
    if not text.isdigit():
        raise ConfigError(f"--instances '{text}' is not a number of instances", where="option --instances",
                          fix="give a whole number (0 leaves instances out) or `all`")
    return int(text)


def _write_text(path: Path, text: str) -> None:
    from medhelm_local.output_paths import atomic_text, refuse_unsafe_output, writing

    refuse_unsafe_output(path, ConfigError, "--out")
    with writing(path, "report file"):
        path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text(path, "report file") as fh:
        fh.write(text)
