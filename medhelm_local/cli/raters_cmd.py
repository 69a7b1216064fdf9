"""`medhelm-local raters add | list | revoke`: who may rate answers in the viewer, each with a one-time sign-in link."""

from __future__ import annotations

from collections.abc import Callable

import typer

from medhelm_local.cli.output import out, print_json
from medhelm_local.errors import ConfigError
from medhelm_local.settings import Settings

DEFAULT_VIEWER = "http://127.0.0.1:8080/"


def register(app: typer.Typer, settings_from: Callable[..., Settings]) -> None:
    """Add `raters` to the app."""
    raters = typer.Typer(no_args_is_help=True, help="Clinicians who rate answers, blind, in the viewer "
                                                    "(`medhelm-local serve`): add, list, revoke.")
    app.add_typer(raters, name="raters")

    @raters.command("add")
    def add(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="The rater's name (lower case, e.g. dr_lee): shown in campaigns and "
                                             "audit records."),
        role: str = typer.Option(..., "--role", help="Their role, one of the policy's roles (roles.yaml)."),
        viewer: str = typer.Option(DEFAULT_VIEWER, "--viewer-url", help="The viewer's address as the rater reaches "
                                                                        "it (the link printed starts with it)."),
    ) -> None:
        """Add a rater and print their one-time sign-in link (only its hash is kept; give it to them privately)."""
        from medhelm_local.audit import audit_log_for
        from medhelm_local.policy.identity import current_actor
        from medhelm_local.policy.loader import load_policy
        from medhelm_local.raters.registry import rater_registry

        settings = settings_from(ctx)
        policy = load_policy(settings.policy_dir)
        if role not in policy.roles.roles:
            raise ConfigError(f"'{role}' is not one of the policy's roles", where="option --role",
                              fix=f"use one of: {', '.join(sorted(policy.roles.roles))} (or add the role to "
                                  "roles.yaml and have the policy approved)")
        if not viewer.startswith(("http://", "https://")):
            raise ConfigError(f"--viewer-url '{viewer}' is not an http(s) address", where="option --viewer-url",
                              fix="give the address the viewer serves at, e.g. http://127.0.0.1:8080/")
        audit = audit_log_for(settings, policy)  # opened first: no rater exists without their audit record
        token = rater_registry().add(name, role, current_actor())
        audit.append("rater.added", {"rater": name, "role": role})
        out.print(f"Added rater {name} ({role}). Their one-time sign-in link (it works once; keep it private):",
                  soft_wrap=True)
        out.print(f"    {viewer.rstrip('/')}/rate/signin?link={token}", soft_wrap=True, highlight=False)

    @raters.command("list")
    def list_(
        ctx: typer.Context,
        as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
    ) -> None:
        """Every rater: role, added when and by whom, signed in, revoked."""
        from medhelm_local.raters.registry import rater_registry

        settings_from(ctx)
        found = rater_registry().raters()
        if as_json:
            print_json({"raters": [{"name": r.name, "role": r.role, "added_at": r.added_at, "added_by": r.added_by,
                                    "signed_in_at": r.signed_in_at, "revoked_at": r.revoked_at} for r in found]})
            return
        if not found:
            out.print("No raters yet: add one with `medhelm-local raters add NAME --role ROLE`.")
            return
        for r in found:
            state = f"revoked {r.revoked_at}" if r.revoked_at else (f"signed in {r.signed_in_at}" if r.signed_in_at
                                                                    else "link not used yet")
            out.print(f"{r.name}  {r.role}  added {r.added_at} by {r.added_by}  {state}", highlight=False,
                      soft_wrap=True)

    @raters.command("revoke")
    def revoke(
        ctx: typer.Context,
        name: str = typer.Argument(..., help="The rater to revoke."),
    ) -> None:
        """Revoke a rater: their link and their sessions stop working at once; their ratings stay."""
        from medhelm_local.audit import audit_log_for
        from medhelm_local.raters.registry import rater_registry

        settings = settings_from(ctx)
        audit = audit_log_for(settings)
        gone = rater_registry().revoke(name)
        audit.append("rater.revoked", {"rater": gone.name, "role": gone.role})
        out.print(f"Revoked rater {gone.name}: their sign-in link and sessions no longer work.", soft_wrap=True)
