"""`medhelm-local export` and `verify`: signed, redacted bundles out; any bundle checked with a public key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import IntegrityError
from medhelm_local.settings import Settings


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `export` and `verify` to the app."""

    @app.command("export")
    def export_(
        ctx: typer.Context,
        target: str = typer.Argument(..., metavar="SUITE_OR_RUN", help="A suite name, or one run id."),
        to: Path = typer.Option(..., "--to", file_okay=False, help="New folder for the bundle (never overwritten)."),
        role: str = typer.Option(..., "--role", help="Your role in roles.yaml, e.g. compliance_officer."),
        include: str | None = typer.Option(
            None, "--include", help="Only these artifacts (comma-separated: aggregates, scores, completions, "
                                    "prompts, ratings, report); the export is refused if the policy withholds one. "
                                    "Default: all the policy lets your role take."),
        unredacted: bool = typer.Option(False, "--unredacted",
                                        help="Ask for no redaction; refused unless the policy lets every "
                                             "artifact leave as it is (public data only)."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file to read instead."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False,
                                           help="Folder of suite stores (default: output_dir setting)."),
        review: str | None = typer.Option(None, "--review", metavar="REVIEW",
                                          help="The approved review (`medhelm-local review request`) of the "
                                               "free text this export carries, where the policy wants one."),
        validated_only: bool = typer.Option(False, "--validated-only",
                                            help="Refuse (write nothing) if the report would carry a jury-scored "
                                                 "column not validated by clinicians (export.yaml's "
                                                 "jury_validation). The policy can make this the rule."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Export results as a signed bundle: redacted per policy, checked again, recorded in the audit log."""
        from medhelm_local.export import public_key_path
        from medhelm_local.export.make import artifacts_named, export_with

        settings = settings_from(ctx, output_dir=output)
        result = export_with(settings, target, to=to, role=role, include=artifacts_named(include, "option --include"),
                             unredacted=unredacted, review=review, validated_only=validated_only, store=store)
        if as_json:
            print_json({"bundle": str(result.destination), "manifest_sha256": result.manifest_sha256,
                        "files": result.files, "runs": result.runs, "redactions": result.redactions,
                        "withheld": result.withheld, "signing_key_id": result.signing_key_id,
                        "audit_seq": result.audit_seq, "handled_as_private": result.handled_as_private,
                        "review": result.review})
            return
        total = sum(result.redactions.values())
        kinds = ", ".join(f"{k} {v}" for k, v in result.redactions.items()) or "none needed"
        out.print(f"[green]Exported[/] {len(result.runs)} run(s) to {result.destination}: "
                  f"{', '.join(result.files)}.", soft_wrap=True)
        out.print(f"Redacted {total} value(s) ({kinds}); signed with key {result.signing_key_id}; "
                  f"manifest sha256 {result.manifest_sha256}; audit record {result.audit_seq}.", soft_wrap=True)
        for item in result.withheld:
            out.print(f"[yellow]Withheld[/] {item['artifact']} of {item['run_id']}: {item['reason']}", soft_wrap=True)
        for run_id, why in result.handled_as_private.items():
            out.print(f"[yellow]Handled as private data[/] {run_id}: {why}.", soft_wrap=True)
        if result.handled_as_private:
            from medhelm_local.export.public_check import REESTABLISH

            out.print(f"To export such a run as public: {REESTABLISH}.", soft_wrap=True)
        pub = public_key_path(settings.signing_key_file) if settings.signing_key_file else "KEY.pub"
        out.print(f"Recipients check it with: medhelm-local verify {result.destination} --public-key {pub}",
                  soft_wrap=True)

    @app.command()
    def verify(
        bundle: Path = typer.Argument(..., help="The bundle folder."),
        public_key: Path = typer.Option(..., "--public-key", dir_okay=False,
                                        help="The sender's public key (.pub beside their signing key)."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Check a bundle's signature and every file's hash; needs only the public key (no store, no KEK)."""
        from medhelm_local.export.make import verify_export

        result = verify_export(bundle, public_key)
        if as_json:
            print_json({"bundle": str(bundle), "ok": result.ok, "problems": result.problems,
                        "created_at": result.manifest.get("created_at"),
                        "created_by": result.manifest.get("created_by"), "files": sorted(result.manifest.get(
                            "files", {}))})
        if not result.ok:
            raise IntegrityError(f"the bundle does not verify: {'; '.join(result.problems)}", where=str(bundle),
                                 fix="do not use its contents; ask the sender to export again and compare the "
                                     "manifest sha256 with their audit log")
        if not as_json:
            made = result.manifest.get("created_by", {})
            out.print(f"[green]Verified[/] {bundle}: signature valid, {len(result.manifest.get('files', {}))} "
                      f"file(s) match the manifest. Exported {result.manifest.get('created_at')} by "
                      f"{made.get('user')} ({made.get('role')}).", soft_wrap=True)
