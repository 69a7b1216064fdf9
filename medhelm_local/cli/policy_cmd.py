"""`medhelm-local policy check`: validate the policy folder and explain the effective policy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.settings import Settings


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `policy check` and `policy approve` to the app."""
    policy = typer.Typer(help="The hospital-reviewable policy: egress allowlist, export rules, retention, roles.",
                         no_args_is_help=True)
    app.add_typer(policy, name="policy")

    @policy.command("check")
    def check(
        ctx: typer.Context,
        policy_dir: Path | None = typer.Option(None, "--policy-dir", file_okay=False,
                                               help="Policy folder to check (default: the policy_dir setting)."),
        as_json: bool = typer.Option(False, "--json", help="Print the effective policy as JSON."),
    ) -> None:
        """Validate every policy file (a bad one is an error naming file, line and key) and explain the rules."""
        from rich.markup import escape
        from rich.table import Table

        from medhelm_local.policy.explanation import explain
        from medhelm_local.policy.loader import load_policy, policy_summary

        settings = settings_from(ctx, policy_dir=policy_dir)
        loaded = load_policy(settings.policy_dir)  # ConfigError (exit 2) names the file, line and key
        rows = explain(loaded, settings)
        if as_json:
            print_json(policy_summary(loaded) | {"rules": [asdict(r) for r in rows]})
            return
        table = Table(title=f"Effective policy ({settings.policy_dir})")
        for col in ("section", "subject", "rule", "from"):
            table.add_column(col, overflow="fold")
        for row in rows:
            rule = f"[red]{escape(row.rule)}[/]" if "NOT permitted" in row.rule else escape(row.rule)
            table.add_row(row.section, escape(row.subject), rule, escape(row.source))
        out.print(table)
        out.print(f"[green]The policy in {settings.policy_dir} is valid[/] (sha256 {loaded.digest[:16]}...).")
        refused = [r for r in rows if "NOT permitted" in r.rule]
        if refused:
            out.print(f"[yellow]{len(refused)} configured endpoint(s) are not on the egress allowlist; "
                      "runs that use them are refused until the policy lists them.[/]")

    @policy.command("approve")
    def approve(
        ctx: typer.Context,
        role: str = typer.Option(..., "--role", help="Your exporting role under the policy in force, "
                                                     "e.g. compliance_officer."),
    ) -> None:
        """Pin the policy and redaction rule pack exports must use: their digests go into the audit log,
        covered by a checkpoint signed with the export signing key. Exports under anything else are refused."""
        from medhelm_local.audit import audit_log_for
        from medhelm_local.export.approval import approve as approve_pair
        from medhelm_local.export.service import signing_key_for
        from medhelm_local.policy.loader import load_policy
        from medhelm_local.store.keys import load_kek

        settings = settings_from(ctx)
        loaded = load_policy(settings.policy_dir)
        kek = load_kek(settings)
        record = approve_pair(audit_log_for(settings, loaded), loaded, settings.redaction_dir, signing_key_for(
            settings, kek), role)
        out.print(f"[green]Approved[/] for exports: the policy in {settings.policy_dir} (sha256 "
                  f"{record.details['policy_sha256'][:16]}...) and the rule pack in {settings.redaction_dir} "
                  f"(sha256 {record.details['rule_pack_sha256'][:16]}...); audit record {record.seq}, signed.",
                  soft_wrap=True)
