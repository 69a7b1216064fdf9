"""`medhelm-local audit show|verify`: read the append-only audit log, and prove it unchanged."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import ConfigError, IntegrityError
from medhelm_local.settings import Settings


def _bundle_anchors(bundles: list[Path]) -> tuple[list[tuple[int, str]], dict[str, str]]:
    """(seq, hash) heads that signed bundles recorded, and each bundle's manifest sha256."""
    anchors: list[tuple[int, str]] = []
    digests: dict[str, str] = {}
    for bundle in bundles:
        try:
            data = (bundle / "MANIFEST.json").read_bytes()
            head = json.loads(data).get("audit_head_before")
        except (OSError, json.JSONDecodeError, AttributeError):
            raise ConfigError("the bundle has no readable MANIFEST.json", where=str(bundle),
                              fix="give a bundle folder written by `medhelm-local export`") from None
        if head:
            anchors.append((int(head["seq"]), str(head["hash"])))
        digests[str(bundle)] = hashlib.sha256(data).hexdigest()
    return anchors, digests


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

        anchors, digests = _bundle_anchors(bundle or [])
        records, problems = audit_log_for(settings_from(ctx)).verify(anchors)
        lines = [f"record {p.seq}: {p.problem}" for p in problems]
        recorded = {r.details.get("manifest_sha256") for r in records if r.kind == "export.allowed"}
        lines += [f"bundle {path}: its export is not in the audit log (manifest sha256 {digest[:16]}...)"
                  for path, digest in digests.items() if digest not in recorded]
        if lines:
            raise IntegrityError(f"the audit log does not verify: {'; '.join(lines)}", where="audit log",
                                 fix="treat the log as tampered with: restore it from backup and investigate; "
                                     "records after the first break cannot be trusted")
        head = f"head record {records[-1].seq} ({records[-1].hash[:16]}...)" if records else "empty"
        out.print(f"[green]The audit log is intact[/]: {len(records)} record(s), chain unbroken, {head}"
                  + (f"; {len(digests)} bundle(s) accounted for." if digests else "."), soft_wrap=True)
