"""`medhelm-local redact scan|apply`: find PHI in JSONL documents, or write them redacted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.settings import Settings

_INPUT = typer.Option(..., "--input", "-i", dir_okay=False, help='JSONL file, one {"id": ..., "text": ...} a line.')
_OUTPUT = typer.Option(..., "--output", "-o", dir_okay=False, help="JSONL file to write (replaced only on success).")
_RULES = typer.Option(None, "--rules", file_okay=False, help="Rule-pack folder. Default: the redaction_dir setting.")


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add the `redact` group (`scan`, `apply`) to the app."""
    redact = typer.Typer(help="Find and redact PHI (HIPAA Safe Harbor identifiers) in text.", no_args_is_help=True)
    app.add_typer(redact, name="redact")

    @redact.command("scan")
    def scan(ctx: typer.Context, input_path: Path = _INPUT, output_path: Path = _OUTPUT,
             rules: Path | None = _RULES) -> None:
        """Write {"id", "spans": [{"start", "end", "type"}]} per document (end-exclusive character offsets)."""
        from medhelm_local.cli.output import err
        from medhelm_local.redact import detector_for, scan_file

        settings = settings_from(ctx, redaction_dir=rules)
        result = scan_file(input_path, output_path, detector_for(settings.redaction_dir.resolve()))
        err.print(f"Scanned {result.documents} document(s), {result.spans} PHI span(s); wrote {output_path}.",
                  highlight=False, soft_wrap=True)

    @redact.command("store")
    def store(
        ctx: typer.Context,
        source: Path = typer.Argument(..., dir_okay=False, help="The suite store to copy (never changed)."),
        out_path: Path = typer.Option(..., "--out", dir_okay=False, help="The new, redacted store file."),
    ) -> None:
        """Make a redacted copy of a whole store for sharing: free text redacted, instance ids pseudonymised."""
        from medhelm_local.cli.output import out
        from medhelm_local.export import redact_store_copy
        from medhelm_local.export.inputs import gate_inputs

        settings = settings_from(ctx)
        gate = gate_inputs(settings)  # the KEK, the policy and the audit log, read once as the export reads them
        copy = redact_store_copy(source, out_path, gate.kek, gate.policy, settings.redaction_dir, gate.audit)
        kinds = ", ".join(f"{k} {v}" for k, v in copy.redactions.items()) or "none needed"
        out.print(f"[green]Wrote[/] {copy.destination} ({', '.join(f'{t} {n}' for t, n in copy.rows.items())} "
                  f"rows; redacted {sum(copy.redactions.values())} value(s): {kinds}); audit record "
                  f"{copy.audit_seq}. {source} is unchanged.", soft_wrap=True)

    @redact.command("apply")
    def apply(ctx: typer.Context, input_path: Path = _INPUT, output_path: Path = _OUTPUT,
              style: str | None = typer.Option(None, "--style", help="mask ([NAME], [DATE]) or surrogate "
                                               "(consistent stand-ins, dates shifted). Default: the policy's."),
              key_file: Path | None = typer.Option(None, "--key-file", dir_okay=False,
                                                   help="Secret for surrogates (same key, same surrogates); "
                                                        "default: a fresh random key per run."),
              rules: Path | None = _RULES) -> None:
        """Write {"id", "text"} per document with PHI masked or replaced by surrogates."""
        from medhelm_local.cli.output import err
        from medhelm_local.redact import apply_file
        from medhelm_local.redact.detector import detector_for_pack, surrogate_policy
        from medhelm_local.redact.pack import read_rule_pack
        from medhelm_local.redact.patterns import RedactionRuleError

        settings = settings_from(ctx, redaction_dir=rules)
        pack = read_rule_pack(settings.redaction_dir.resolve())  # once: the rules and the surrogate policy agree
        policy = surrogate_policy(pack)
        chosen = style or policy.style
        if chosen not in ("mask", "surrogate"):
            raise typer.BadParameter(f"'{chosen}' is not a style; use mask or surrogate", param_hint="--style")
        key = None
        if key_file is not None:
            from medhelm_local.safe_parse import Limits, read_bounded

            key = read_bounded(key_file, "surrogate key file", limits=Limits(max_bytes=64 << 10),
                               error=RedactionRuleError, if_missing="check the path given to --key-file")
        result = apply_file(input_path, output_path, detector_for_pack(pack), policy,
                            "mask" if chosen == "mask" else "surrogate", key)
        err.print(f"Redacted {result.documents} document(s) ({result.spans} span(s), style {chosen}); "
                  f"wrote {output_path}.", highlight=False, soft_wrap=True)
