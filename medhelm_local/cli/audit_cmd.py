"""`medhelm-local audit show|verify|checkpoint`: read the append-only audit log, prove it unchanged, sign it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from medhelm_local.cli.output import err, out, print_json
from medhelm_local.errors import ConfigError, IntegrityError
from medhelm_local.settings import Settings

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def _check_kind(kind: str | None) -> None:
    from medhelm_local.audit import KINDS

    if kind is None or any(k == kind or k.startswith(kind + ".") for k in KINDS):
        return
    raise ConfigError(f"no audit record kind is '{kind}'", where="option --kind",
                      fix=f"give a kind or the part before its dot: {', '.join(KINDS)}")


def _trusted_keys(settings: Settings, given: list[Path]) -> list[Ed25519PublicKey]:
    """The public keys whose checkpoints count: those given, and the configured signing key's own."""
    from medhelm_local.export import load_public_key, load_signing_key
    from medhelm_local.store.keys import load_kek

    keys = [load_public_key(path) for path in given]
    if settings.signing_key_file is not None and settings.signing_key_file.exists():
        keys.append(load_signing_key(settings.signing_key_file, load_kek(settings)).private.public_key())
    return keys


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add the `audit` group to the app."""
    audit = typer.Typer(help="The audit log: every export attempt and every refused connection.",
                        no_args_is_help=True)
    app.add_typer(audit, name="audit")

    @audit.command("show")
    def show(
        ctx: typer.Context,
        kind: str | None = typer.Option(None, "--kind", help="Only records of this kind, or of kinds starting "
                                                             "with it and a dot, e.g. export or egress."),
        last: int | None = typer.Option(None, "--last", min=1, help="Only the last N records."),
        as_json: bool = typer.Option(False, "--json", help="Print records as JSON."),
    ) -> None:
        """List audit records, oldest first."""
        from rich.markup import escape
        from rich.table import Table

        from medhelm_local.audit import audit_log_for

        _check_kind(kind)
        _, records = audit_log_for(settings_from(ctx)).records()
        chosen = [r for r in records if kind is None or r.kind == kind or r.kind.startswith(kind + ".")]
        chosen = chosen[-last:] if last else chosen
        if as_json:
            print_json([r.to_dict() for r in chosen])
            return
        table = Table(title=f"Audit log ({len(records)} records)")
        for col in ("seq", "at (UTC)", "kind", "actor", "details"):
            table.add_column(col, overflow="fold")
        for r in chosen:
            table.add_row(str(r.seq), r.at, r.kind, escape(r.actor),
                          escape(json.dumps(dict(r.details), ensure_ascii=False, sort_keys=True)))
        out.print(table)

    @audit.command("verify")
    def verify(
        ctx: typer.Context,
        bundle: list[Path] | None = typer.Option(
            None, "--bundle", file_okay=False,
            help="A signed bundle (repeatable): its files must match its signed manifest, its export must be "
                 "recorded, and the log must still hold the record it is bound to."),
        public_key: list[Path] | None = typer.Option(
            None, "--public-key", dir_okay=False,
            help="An export signing key's public key (repeatable) whose checkpoints count; the configured "
                 "signing key always does."),
        forwarded: list[Path] | None = typer.Option(
            None, "--forwarded", dir_okay=False,
            help="A copy of the records the audit sink received (JSON lines or a syslog extract): every one "
                 "must still be in the log, unchanged (finds records removed from the end)."),
    ) -> None:
        """Check the hash chain, the signed checkpoints and the copies kept outside the log; name every problem."""
        from medhelm_local.audit import ChainProblem, audit_log_for
        from medhelm_local.audit.checkpoints import uncovered
        from medhelm_local.audit.forward import read_forwarded
        from medhelm_local.export.bundle import audit_anchor, bundle_problems

        settings = settings_from(ctx)
        keys = _trusted_keys(settings, public_key or [])
        found = {str(path): audit_anchor(path) for path in bundle or []}
        anchors = [head for head, _ in found.values() if head is not None]
        digests = {name: digest for name, (_, digest) in found.items()}
        copies = [item for path in forwarded or [] for item in read_forwarded(path)]
        records, problems = audit_log_for(settings).verify(anchors, digests, keys, copies)
        problems += [ChainProblem(0, problem, str(path)) for path in bundle or []
                     for problem in bundle_problems(path, keys)]
        if problems:
            raise IntegrityError(f"the audit log does not verify: {'; '.join(p.describe() for p in problems)}",
                                 where="audit log", fix="treat the log as tampered with: restore it from backup "
                                                        "and investigate; records after the first break cannot "
                                                        "be trusted")
        head = f"head record {records[-1].seq} ({records[-1].hash[:16]}...)" if records else "empty"
        out.print(f"[green]The audit log is intact[/]: {len(records)} record(s), chain unbroken, {head}"
                  + (f"; {len(digests)} bundle(s) accounted for" if digests else "")
                  + (f"; {len(copies)} forwarded record(s) all held" if copies else "") + ".", soft_wrap=True)
        if not keys:
            err.print("Note: signed checkpoints were not checked (no signing key configured and no --public-key): "
                      "someone holding the KEK could have rewritten the chain.", soft_wrap=True)
        elif uncovered(records):
            err.print(f"Note: the newest {uncovered(records)} record(s) come after the last signed checkpoint; "
                      "only forwarded copies and bundles vouch for them (`medhelm-local audit checkpoint` "
                      "signs the log as it is now).", soft_wrap=True)

    @audit.command("checkpoint")
    def checkpoint(
        ctx: typer.Context,
        adopt: bool = typer.Option(False, "--adopt", help="Start the appliance's note of the log's last checkpoint "
                                                          "for a log kept by a version that made none (recorded)."),
    ) -> None:
        """Sign the log as it is now with the export signing key (a record the KEK alone cannot forge), and note the
        checkpoint outside the log; refused on a log that does not continue the last one noted."""
        from medhelm_local.audit import audit_log_for
        from medhelm_local.export.service import signing_key_for
        from medhelm_local.store.keys import load_kek

        settings = settings_from(ctx)
        key = signing_key_for(settings, load_kek(settings))
        record = audit_log_for(settings).checkpoint(key, adopt=adopt)
        out.print(f"[green]Signed checkpoint[/] record {record.seq} over record {record.details['covers_seq']} "
                  f"({str(record.details['covers_hash'])[:16]}...) with key {key.key_id}.", soft_wrap=True)
