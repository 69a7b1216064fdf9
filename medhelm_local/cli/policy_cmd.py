"""`medhelm-local policy check` and `policy chart-values`: explain the effective policy; feed the Helm chart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import ConfigError
from medhelm_local.settings import Settings

_FLAGGED = ("NOT permitted", "DIFFERS")


def _write_atomically(path: Path, text: str) -> None:
    """Replace `path` (a regular file, or nothing yet) only once the whole text is written."""
    from medhelm_local.output_paths import refuse_unsafe_output

    refuse_unsafe_output(path, ConfigError, "--out")
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ConfigError(f"cannot write the values file ({exc.strerror})", where=str(path),
                          fix="choose a folder you can write to") from None


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `policy check`, `policy chart-values` and `policy approve` to the app."""
    policy = typer.Typer(help="The hospital-reviewable policy: egress allowlist, export rules, retention, roles.",
                         no_args_is_help=True)
    app.add_typer(policy, name="policy")

    @policy.command("check")
    def check(
        ctx: typer.Context,
        policy_dir: Path | None = typer.Option(None, "--policy-dir", file_okay=False,
                                               help="Policy folder to check (default: the policy_dir setting)."),
        networkpolicy: Path | None = typer.Option(
            None, "--networkpolicy", dir_okay=False,
            help="The Helm chart's description of the NetworkPolicy it rendered (default: where the chart mounts "
                 "it in the release's pods, /etc/medhelm-local/networkpolicy.json; absent: not in use)."),
        as_json: bool = typer.Option(False, "--json", help="Print the effective policy as JSON."),
    ) -> None:
        """Validate every policy file (a bad one is an error naming file, line and key) and explain the rules."""
        from rich.markup import escape
        from rich.table import Table

        from medhelm_local.policy.explanation import explain
        from medhelm_local.policy.loader import load_policy, policy_summary
        from medhelm_local.policy.networkpolicy import RENDERED_PATH, read_rendered

        settings = settings_from(ctx, policy_dir=policy_dir)
        loaded = load_policy(settings.policy_dir)  # ConfigError (exit 2) names the file, line and key
        described_at = networkpolicy or RENDERED_PATH
        layer = read_rendered(described_at)
        if layer is None and networkpolicy is not None:
            raise ConfigError("there is no NetworkPolicy description at the path given", where=str(networkpolicy),
                              fix="give the networkpolicy.json the Helm chart mounts, or leave --networkpolicy out")
        rows = explain(loaded, settings, layer, described_at)
        if as_json:
            print_json(policy_summary(loaded) | {"networkpolicy": layer.model_dump() if layer else None,
                                                 "rules": [asdict(r) for r in rows]})
            return
        table = Table(title=f"Effective policy ({settings.policy_dir})")
        for col in ("section", "subject", "rule", "from"):
            table.add_column(col, overflow="fold")
        for row in rows:
            rule = f"[red]{escape(row.rule)}[/]" if row.rule.startswith(_FLAGGED) or "NOT permitted" in row.rule \
                else escape(row.rule)
            table.add_row(row.section, escape(row.subject), rule, escape(row.source))
        out.print(table)
        out.print(f"[green]The policy in {settings.policy_dir} is valid[/] (sha256 {loaded.digest[:16]}...).")
        refused = [r for r in rows if "NOT permitted" in r.rule]
        if refused:
            out.print(f"[yellow]{len(refused)} configured endpoint(s) are not on the egress allowlist; "
                      "runs that use them are refused until the policy lists them.[/]")
        if any(r.section == "network" and r.rule.startswith("DIFFERS") for r in rows):
            out.print("[yellow]The cluster's NetworkPolicy and egress.yaml disagree; see the network rows.[/]")

    @policy.command("chart-values")
    def chart_values(
        ctx: typer.Context,
        policy_dir: Path | None = typer.Option(None, "--policy-dir", file_okay=False,
                                               help="Policy folder to render (default: the policy_dir setting)."),
        out_file: Path | None = typer.Option(None, "--out", dir_okay=False,
                                             help="Write the values file here (default: print it)."),
    ) -> None:
        """Write the Helm chart's `policy` value from the policy folder: the files and the NetworkPolicy endpoints."""
        from medhelm_local.policy.loader import load_policy
        from medhelm_local.policy.networkpolicy import values_file

        settings = settings_from(ctx, policy_dir=policy_dir)
        text = values_file(load_policy(settings.policy_dir))
        if out_file is None:
            typer.echo(text, nl=False)
            return
        _write_atomically(out_file, text)
        out.print(f"Wrote the chart's policy values to {out_file}: install with `helm install ... -f {out_file}`.")

    @policy.command("approve")
    def approve(
        ctx: typer.Context,
        role: str = typer.Option(..., "--role", help="Your role: one with approves_policy under the policy in "
                                                     "force, e.g. compliance_officer."),
    ) -> None:
        """Pin the policy and redaction rule pack exports must use: their digests go into the audit log,
        covered by a checkpoint signed with the export signing key. Exports under anything else are refused."""
        from medhelm_local.export.approval import approve as approve_pair
        from medhelm_local.export.inputs import gate_inputs
        from medhelm_local.export.service import signing_key_for

        settings = settings_from(ctx)
        gate = gate_inputs(settings)  # the KEK, the policy and the audit log, read once as the export reads them
        record = approve_pair(gate.audit, gate.policy, settings.redaction_dir, signing_key_for(settings, gate.kek),
                              role)
        out.print(f"[green]Approved[/] for exports: the policy in {settings.policy_dir} (sha256 "
                  f"{record.details['policy_sha256'][:16]}...) and the rule pack in {settings.redaction_dir} "
                  f"(sha256 {record.details['rule_pack_sha256'][:16]}...); audit record {record.seq}, signed.",
                  soft_wrap=True)
