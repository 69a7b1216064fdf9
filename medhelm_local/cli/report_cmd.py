"""`medhelm-local report` and `serve`: compare models from stores (read-only, never a model)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.cli.output import err, out
from medhelm_local.errors import ConfigError
from medhelm_local.settings import Settings

_SUITES = typer.Argument(None, metavar="[SUITE]...", help="Suites to report (their stores in the output folder). "
                                                           "Default: every suite store there.")
_STORES = typer.Option(None, "--store", dir_okay=False, help="A store file to include (repeatable).")
_OUTPUT = typer.Option(None, "--output", "-o", file_okay=False, help="Folder of suite stores (default: output_dir).")
_HELM = typer.Option(None, "--helm-runs", file_okay=False,
                     help="A folder of HELM-format run folders (run_spec.json + stats.json, e.g. a MedHELM release) "
                          "to show beside local results, marked as published (repeatable).")


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
        from medhelm_local.report.make import report_with

        settings = settings_from(ctx, output_dir=output)
        made = report_with(settings, suites, stores=stores, fmt=fmt, out=out_path, helm_runs=helm_runs or [],
                           baseline=baseline, trend=trend, validated_only=validated_only,
                           instances=_instances(instances))
        if made.site is None:
            if out_path is None:
                sys.stdout.write(made.text or "")
            return
        built, result = made.report, made.site
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
        from medhelm_local.report.make import report_stores
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


def _instances(text: str) -> int | None:
    if text == "all":
        return None
    if not text.isdigit():
        raise ConfigError(f"--instances '{text}' is not a number of instances", where="option --instances",
                          fix="give a whole number (0 leaves instances out) or `all`")
    return int(text)
