"""`doctor` and `keys init|rotate|signing-init`: set-up and checks, no evaluation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.settings import Settings
from medhelm_local.store.keys import Envelope, load_kek, rewrap, write_new_kek

if TYPE_CHECKING:  # rich loads when a table is printed (cli/output.py)
    from rich.table import Table


def settings_overview(settings: Settings) -> Table:
    """Every setting with its current value (secrets hidden) and its help line."""
    from pydantic import SecretStr
    from rich.table import Table

    table = Table(title="Settings (flags > MEDHELM_* environment > config file > secrets dir > defaults)")
    for col in ("setting", "environment", "value", "help"):
        table.add_column(col, overflow="fold")
    for name, field in Settings.model_fields.items():
        value = getattr(settings, name)
        shown = "(set, hidden)" if isinstance(value, SecretStr) else str(value)
        if name == "deployments":
            shown = ", ".join(sorted(value)) or "(none)"
        table.add_row(name, f"MEDHELM_{name.upper()}", shown, field.description or "")
    return table


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `doctor` and `keys` to the app."""

    @app.command()
    def doctor(
        ctx: typer.Context,
        as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
        settings_table: bool = typer.Option(True, "--settings/--no-settings", help="Also list every setting."),
    ) -> None:
        """Check this installation: packages, encryption, key, data files, and each model endpoint."""
        from medhelm_local.run.readiness import run_checks

        checks, settings = run_checks(lambda: settings_from(ctx))
        failed = [c for c in checks if not c.ok]
        if as_json:
            print_json([c.__dict__ for c in checks])
        else:
            from rich.table import Table

            table = Table(title="medhelm-local doctor")
            for col in ("check", "status", "detail"):
                table.add_column(col, overflow="fold")
            for c in checks:
                status = "[red]FAIL[/]" if not c.ok else "[yellow]note[/]" if c.note else "[green]ok[/]"
                table.add_row(c.name, status, c.detail)
            out.print(table)
            if settings is not None and settings_table:
                out.print(settings_overview(settings))
        if failed:
            raise typer.Exit(1)

    keys = typer.Typer(help="Create and rotate key-encryption keys and export signing keys.", no_args_is_help=True)
    app.add_typer(keys, name="keys")

    @keys.command("init")
    def keys_init(
        out_path: Path = typer.Option(..., "--out", dir_okay=False,
                                      help="Where to write the new key (mode 0600); never overwritten."),
    ) -> None:
        """Create a new random key-encryption key file."""
        from medhelm_local.output_paths import writing

        with writing(out_path, "key file"):
            kek = write_new_kek(out_path)
        out.print(f"Wrote a new key-encryption key to {out_path} (fingerprint {kek.fingerprint}).")
        out.print(f"Use it with: export MEDHELM_KEK_FILE={out_path.resolve()}  "
                  "(in Kubernetes, mount it as a Secret). Back it up: stores cannot be opened without it.")

    @keys.command("signing-init")
    def keys_signing_init(
        ctx: typer.Context,
        out_path: Path = typer.Option(..., "--out", dir_okay=False,
                                      help="Where to write the sealed signing key (mode 0600); its public key "
                                           "goes beside it with the suffix .pub. Never overwritten."),
    ) -> None:
        """Create the Ed25519 key that signs export bundles, sealed under the key-encryption key."""
        from medhelm_local.export import public_key_path, write_signing_key
        from medhelm_local.output_paths import writing

        settings = settings_from(ctx)
        kek = load_kek(settings)
        with writing(out_path, "signing key"):
            key = write_signing_key(out_path, kek)
        out.print(f"Wrote the signing key {out_path} (sealed under the KEK) and its public key "
                  f"{public_key_path(out_path)} (key id {key.key_id}).", soft_wrap=True)
        out.print(f"Use it with: export MEDHELM_SIGNING_KEY_FILE={out_path.resolve()}. Give the .pub file to "
                  "whoever verifies bundles; it cannot sign.", soft_wrap=True)

    @keys.command("rotate")
    def keys_rotate(
        ctx: typer.Context,
        new_kek_file: Path = typer.Option(..., "--new-kek-file", exists=True, dir_okay=False,
                                          help="The new key-encryption key file."),
        store: list[Path] | None = typer.Option(None, "--store", dir_okay=False, exists=True,
                                                help="Store whose key to rewrap (repeatable; the audit log too)."),
        signing_key: list[Path] | None = typer.Option(None, "--signing-key", dir_okay=False, exists=True,
                                                      help="Signing key to reseal (repeatable)."),
    ) -> None:
        """Rewrap stores' data keys and reseal signing keys under a new KEK; no store is rewritten."""
        from medhelm_local.export import rewrap_signing_key

        if not store and not signing_key:
            raise typer.BadParameter("give at least one --store or --signing-key", param_hint="--store")
        settings = settings_from(ctx)
        old = load_kek(settings)
        new = load_kek(settings.model_copy(update={"kek_file": new_kek_file, "kek": None}))
        for path in store or []:
            env_path = Envelope.path_for(path)
            rewrap(Envelope.read(env_path), old, new, str(env_path)).write(env_path)
            out.print(f"Rewrapped {env_path} from key {old.fingerprint} to {new.fingerprint}.")
        for path in signing_key or []:
            rewrap_signing_key(path, old, new)
            out.print(f"Resealed {path} from key {old.fingerprint} to {new.fingerprint}.")


__all__ = ["register"]
