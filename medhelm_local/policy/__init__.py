"""Policies: the hospital-reviewable YAML in `policies/`, validated strictly, and the rules that are code.

    load_policy(dir) -> Policy     every file validated (unknown keys are errors naming file and line)
    explain(policy) -> [Row]       the effective policy, rule by rule, with where each rule comes from
    may_leave_unredacted(access)   False for anything but public data, whatever the files say
    export_treatment(...)          how an artifact may leave for a role: the file's rule, capped by code

The egress allowlist (`policy.allowlist.PolicyAllowlist`) and the audit-hook guard
(`policy.guard.install_guard`) are imported from their modules.
"""

from medhelm_local.policy.explain import Row, explain, render_text
from medhelm_local.policy.loader import POLICY_FILES, Policy, load_policy, policy_summary
from medhelm_local.policy.rules import (
    EGRESS_DEFAULT,
    ExportDecision,
    ceiling,
    export_treatment,
    level_treatment,
    may_leave_unredacted,
)

__all__ = [
    "EGRESS_DEFAULT",
    "POLICY_FILES",
    "ExportDecision",
    "Policy",
    "Row",
    "ceiling",
    "explain",
    "export_treatment",
    "level_treatment",
    "load_policy",
    "may_leave_unredacted",
    "policy_summary",
    "render_text",
]
