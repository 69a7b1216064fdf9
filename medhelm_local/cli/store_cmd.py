"""`medhelm-local store merge`: join a suite's shard stores (from `run --shard I/N`) into its suite store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.results.merge import merge_shards, shard_stores
from medhelm_local.settings import Settings
from medhelm_local.store.keys import load_kek


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `store merge` to the app."""
    store = typer.Typer(help="Work on suite stores as files.", no_args_is_help=True)
    app.add_typer(store, name="store")

    @store.command("merge")
    def merge(
        ctx: typer.Context,
        suite: str = typer.Option(..., "--suite", "-s", help="The suite whose shards to merge."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False,
                                           help="Folder holding the shard stores (default: output_dir setting)."),
        into: Path | None = typer.Option(None, "--into", dir_okay=False,
                                         help="Merged store to write (default: <output>/<suite>.duckdb); it must "
                                              "not exist."),
        as_json: bool = typer.Option(False, "--json", help="Print what was merged as JSON."),
    ) -> None:
        """Join every <suite>.shard-I-of-N.duckdb into one suite store. Refuses, writing nothing, if a shard is
        missing or unfinished, belongs to another suite or schema version, or does not open with this key."""
        settings = settings_from(ctx, output_dir=output)
        shards = shard_stores(settings.output_dir, suite)
        destination = into or settings.output_dir / f"{suite}.duckdb"
        report = merge_shards(shards, destination, suite, load_kek(settings))
        if as_json:
            print_json({"store": str(report.destination), "shards": report.shards, "runs": report.runs,
                        "rows": report.rows})
            return
        out.print(f"[green]Merged {report.shards} shards[/] of suite {suite} into {report.destination}: "
                  f"{report.runs} run(s), {report.rows.get('instances', 0)} instances, "
                  f"{report.rows.get('completions', 0)} completions.", soft_wrap=True)
