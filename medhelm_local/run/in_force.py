"""Settings put in force for this process: what every entry point (a CLI command, `evaluate`, `judge`,
`make_report`, `export_bundle`) does once with the settings it was given, before it does anything else."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from medhelm_local.settings import Settings, settings_for

if TYPE_CHECKING:
    from medhelm_local.policy.egress_allowlist import PolicyAllowlist


def in_force(settings: Settings) -> PolicyAllowlist:
    """Read the policy (a policy that does not validate stops here), give its allowlist to the egress guard where
    this process installed one, register the settings' own benchmark cards; return the allowlist."""
    from medhelm_local.policy.egress_allowlist import allowlist_for
    from medhelm_local.policy.guard import active_guard

    allowlist = allowlist_for(settings)
    guard = active_guard()
    if guard is not None:  # inside a process that installed the egress guard: it enforces this policy
        guard.set_allowlist(allowlist)
    if settings.benchmark_cards:  # here: a command that reads no benchmark never loads the cards' package
        from medhelm_local.scenarios.registry import register_cards

        register_cards(settings.benchmark_cards)
    return allowlist


def settings_in_force(config: Settings | str | Path | None, **overrides: object) -> tuple[Settings, PolicyAllowlist]:
    """Settings as a library call reads them (`config`: a Settings object or a config file; `overrides`, None meaning
    not given, on top: paths as Path objects), put in force; with the policy's allowlist."""
    settings = settings_for(config, **overrides)
    return settings, in_force(settings)
