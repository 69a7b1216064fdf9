"""Policies: the hospital-reviewable YAML in `policies/`, validated strictly, and the rules that are code.

    load_policy(dir) -> Policy     every file validated (unknown keys are errors naming file and line)
    explain(policy) -> [Row]       the effective policy, rule by rule, with where each rule comes from
    may_leave_unredacted(access)   False for anything but public data, whatever the files say
    export_treatment(...)          how an artifact may leave for a role: the file's rule, capped by code
    allowlist_for(settings)        the egress allowlist (egress.yaml) the HTTP clients and the guard enforce
    install_guard(allowlist)       egress layer (b): the audit hook, installed first thing by the CLI

Names load on first use: the CLI installs the guard (standard library only) before pydantic,
YAML or any HTTP library is imported.
"""

from __future__ import annotations

from typing import Any

from medhelm_local.lazy import lazy_attribute

_HOMES = {
    "Row": "explanation", "explain": "explanation", "render_text": "explanation",
    "POLICY_FILES": "loader", "Policy": "loader", "load_policy": "loader", "policy_summary": "loader",
    "EGRESS_DEFAULT": "rules", "ExportDecision": "rules", "ceiling": "rules", "export_treatment": "rules",
    "level_treatment": "rules", "may_leave_unredacted": "rules",
    "PolicyAllowlist": "egress_allowlist", "allowlist_for": "egress_allowlist",
    "EgressGuard": "guard", "GuardRefusedError": "guard", "install_guard": "guard", "active_guard": "guard",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _HOMES, name)
