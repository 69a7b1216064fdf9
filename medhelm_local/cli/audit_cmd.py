"""`medhelm-local audit show|verify`: read the append-only audit log, and prove it unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import IntegrityError
from medhelm_local.settings import Settings


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add the `audit` group to the app."""
    audit = typer.Typer(help="The audit log: every export attempt and every refused connection.",
                        no_args_is_help=True)
    app.add_typer(audit, name="audit")

    @audit.command("show")
    def show(
        ctx: typer.Context,
        kind: str | None = typer.Option(None, "--kind", help="Only records whose kind starts with this, "
                                                             "e.g. export or egress."),
        last: int | None = typer.Option(None, "--last", min=1, help="Only the last N records."),
        as_json: bool = typer.Option(False, "--json", help="Print records as JSON."),
    ) -> None:
        """List audit records, oldest first."""
        from rich.markup import escape
        from rich.table import Table

        from medhelm_local.audit import audit_log_for

        _, records = audit_log_for(settings_from(ctx)).records()
        chosen = [r for r in records if kind is None or r.kind.startswith(kind)]
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
            help="A signed bundle (repeatable): its export must be recorded, and the log must still hold "
                 "the records it saw (detects removal of the newest records)."),
    ) -> None:
        """Check the hash chain: any edited, reordered or deleted record is found and named."""
        from medhelm_local.audit import audit_log_for
        from medhelm_local.export.bundle import audit_anchor

        found = {str(path): audit_anchor(path) for path in bundle or []}
        anchors = [head for head, _ in found.values() if head is not None]
        digests = {name: digest for name, (_, digest) in found.items()}
        records, problems = audit_log_for(settings_from(ctx)).verify(anchors, digests)
        lines = [p.describe() for p in problems]
        if lines:
            raise IntegrityError(f"the audit log does not verify: {'; '.join(lines)}", where="audit log",
                                 fix="treat the log as tampered with: restore it from backup and investigate; "
                                     "records after the first break cannot be trusted")
        head = f"head record {records[-1].seq} ({records[-1].hash[:16]}...)" if records else "empty"
        out.print(f"[green]The audit log is intact[/]: {len(records)} record(s), chain unbroken, {head}"
                  + (f"; {len(digests)} bundle(s) accounted for." if digests else "."), soft_wrap=True)
