"""`medhelm-local review request | list | show | resubmit`: a person's review before free text of gated or private
runs leaves (approval happens in the viewer, `medhelm-local serve`, at /review)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import ConfigError
from medhelm_local.settings import Settings


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `review` to the app."""
    review = typer.Typer(no_args_is_help=True, help="A compliance officer's review of the redacted text before an "
                                                    "export of gated or private answers, prompts or ratings leaves.")
    app.add_typer(review, name="review")

    @review.command("request")
    def request(
        ctx: typer.Context,
        target: str = typer.Argument(..., metavar="SUITE_OR_RUN", help="A suite name, or one run id."),
        role: str = typer.Option(..., "--role", help="The role you will export in (roles.yaml)."),
        include: str | None = typer.Option(None, "--include", help="As for `export --include`: the export must "
                                                                   "ask for the same."),
        store: Path | None = typer.Option(None, "--store", dir_okay=False, help="Store file to read instead."),
        output: Path | None = typer.Option(None, "--output", "-o", file_okay=False,
                                           help="Folder of suite stores (default: output_dir setting)."),
    ) -> None:
        """Build the export's redacted text for a compliance officer to review; print the review's id."""
        from medhelm_local.export import ExportRequest, resolve_target
        from medhelm_local.export.inputs import gate_inputs
        from medhelm_local.export.make import artifacts_named
        from medhelm_local.export.review import Review, new_review_id, record_request, reviews_folder
        from medhelm_local.export.service import build_for_review
        from medhelm_local.policy.identity import current_actor

        settings = settings_from(ctx, output_dir=output)
        artifacts = artifacts_named(include, "option --include")
        gate = gate_inputs(settings)  # the KEK, the policy and the audit log, read once as the export reads them
        kek, policy, audit = gate.kek, gate.policy, gate.audit
        resolved = resolve_target(settings, kek, target, store)
        secret = secrets.token_bytes(32)
        asked = ExportRequest(resolved, Path("."), role, artifacts)
        items = build_for_review(settings, policy, kek, audit, asked, secret, ())
        made = Review(new_review_id(), 1, str(resolved.store.resolve()), resolved.run_id, role, artifacts,
                      current_actor(), secret.hex(), (), tuple(items))
        record = record_request(audit, reviews_folder(kek), made, "review.requested")
        marks = sum(len(m.marks) for m in made.items)
        out.print(f"[green]Review {made.id}[/] waits for a compliance officer: {len(made.items)} redacted value(s), "
                  f"{marks} redaction(s); audit record {record.seq}.", soft_wrap=True)
        out.print(f"They open it in the viewer (`medhelm-local serve`, page /review/{made.id}); once approved, "
                  f"export with: medhelm-local export {target} --role {role}"
                  f"{' --include ' + include if include else ''} --review {made.id} --to FOLDER",
                  soft_wrap=True, highlight=False)

    @review.command("list")
    def list_(
        ctx: typer.Context,
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """Every review: its state (from the audit log), round, who asked for it."""
        from medhelm_local.export.inputs import gate_inputs
        from medhelm_local.export.review import reviews_folder, state_of

        gate = gate_inputs(settings_from(ctx))
        kek, audit = gate.kek, gate.audit
        records = [] if audit.absent() else audit.records()[1]
        rows = []
        for review_id in reviews_folder(kek).ids():
            state = state_of(records, review_id)
            if state is not None:
                rows.append({"review": review_id, "status": state.status, "round": state.round,
                             "requested_by": state.requested.actor, "at": state.last.at,
                             "target": state.requested.details.get("run_id") or state.requested.details.get("store")})
        if as_json:
            print_json({"reviews": rows})
            return
        if not rows:
            out.print("No reviews yet: ask for one with `medhelm-local review request SUITE --role ROLE`.")
        for row in rows:
            out.print(f"{row['review']}  {row['status']}  round {row['round']}  asked by {row['requested_by']}  "
                      f"{row['target']}  {row['at']}", highlight=False, soft_wrap=True)

    @review.command("show")
    def show(
        ctx: typer.Context,
        review_id: str = typer.Argument(..., metavar="REVIEW", help="The review's id (rv-...)."),
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """A review's state and flags (where and what kind; the text is shown in the viewer only)."""
        from medhelm_local.export.inputs import gate_inputs
        from medhelm_local.export.review import reviews_folder, state_of

        gate = gate_inputs(settings_from(ctx))
        kek, audit = gate.kek, gate.audit
        found = reviews_folder(kek).load(review_id)
        state = state_of([] if audit.absent() else audit.records()[1], review_id)
        flags = [{"value": f.item, "type": f.type, "where": "/".join(found.items[f.item].where)} for f in found.flags]
        summary = {"review": found.id, "status": state.status if state else "not on record", "round": found.round,
                   "requested_by": found.requested_by, "values": len(found.items),
                   "redactions": sum(len(m.marks) for m in found.items), "manual_masks": len(found.masks),
                   "digest": found.digest, "flags": flags}
        if as_json:
            print_json(summary)
            return
        out.print(f"{found.id}: {summary['status']}, round {found.round}, asked by {found.requested_by}; "
                  f"{summary['values']} value(s), {summary['redactions']} redaction(s), {len(found.masks)} manual "
                  f"mask(s); text sha256 {found.digest}", highlight=False, soft_wrap=True)
        for item in flags:
            out.print(f"[yellow]Flagged[/] missed {item['type']} in value {item['value']} ({item['where']})",
                      soft_wrap=True)

    @review.command("resubmit")
    def resubmit(
        ctx: typer.Context,
        review_id: str = typer.Argument(..., metavar="REVIEW", help="The review's id (rv-...)."),
        mask_flagged: bool = typer.Option(False, "--mask-flagged", help="Mask every flagged string wherever it "
                                                                        "stands (recorded with the review)."),
    ) -> None:
        """Rebuild the text under the approved rules (and masks), check every flag is fixed, and ask again."""
        from medhelm_local.export import ExportRequest, Target
        from medhelm_local.export.inputs import gate_inputs
        from medhelm_local.export.review import record_request, reviews_folder, state_of
        from medhelm_local.export.service import build_for_review
        from medhelm_local.policy.identity import current_actor

        settings = settings_from(ctx)
        gate = gate_inputs(settings)
        kek, policy, audit = gate.kek, gate.policy, gate.audit
        folder = reviews_folder(kek)
        before = folder.load(review_id)
        state = state_of([] if audit.absent() else audit.records()[1], review_id)
        if state is not None and state.status == "approved":
            raise ConfigError("this review is approved: nothing to resubmit", where=f"review {review_id}",
                              fix="export with --review, or request a new review")
        masks = tuple(dict.fromkeys((*before.masks, *((f.text, f.type) for f in before.flags if mask_flagged))))
        asked = ExportRequest(Target(Path(before.store), before.run_id), Path("."), before.role,
                              before.include)  # type: ignore[arg-type]
        again = replace(before, round=before.round + 1, masks=masks, flags=())
        items = build_for_review(settings, policy, kek, audit, asked, bytes.fromhex(before.secret), again.manual())
        still = [f for f in before.flags if any(f.text in m.text for m in items)]
        if still:
            raise ConfigError(f"{len(still)} flagged identifier(s) would still leave: "
                              + "; ".join(f"{f.type} in value {f.item}" for f in still[:5]),
                              where=f"review {review_id}",
                              fix="add a redaction rule (and have the rule pack approved), or pass --mask-flagged")
        again = replace(again, items=tuple(items))
        record = record_request(audit, folder, again, "review.resubmitted", actor=current_actor(),
                                fixed=len(before.flags), manual_masks=len(masks))
        out.print(f"[green]Review {review_id}[/] round {again.round} waits for review again ({len(before.flags)} "
                  f"flag(s) fixed, {len(masks)} manual mask(s)); audit record {record.seq}.", soft_wrap=True)
