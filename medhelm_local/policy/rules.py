"""The rules that are code, not configuration. The export layer asks these before anything leaves.

    egress            deny by default; only the policy's allowlist is reachable
    unredacted        only public data may leave unredacted; gated, private and any access level
                      this program does not know never do, whatever a policy file says
    treatment         the policy file's rule for (role, access level, artifact), capped by the above

The policy file can make an export stricter, never looser: its value is combined with the
ceiling here by taking the stricter of the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from medhelm_local.policy.file_schemas import ARTIFACTS, PublicRules, Treatment
from medhelm_local.policy.loader import Policy

EGRESS_DEFAULT: Final[Literal["deny"]] = "deny"
_ORDER: Final[dict[Treatment, int]] = {"never": 0, "redacted": 1, "as_is": 2}


def may_leave_unredacted(access: str) -> bool:
    """True only for public data: nothing derived from gated, private or unknown-level data leaves unredacted."""
    return access == "public"


def ceiling(access: str) -> Treatment:
    """The loosest treatment any artifact of this access level may ever get."""
    return "as_is" if may_leave_unredacted(access) else "redacted"


def stricter(a: Treatment, b: Treatment) -> Treatment:
    """The stricter of two treatments (never < redacted < as_is)."""
    return a if _ORDER[a] <= _ORDER[b] else b


@dataclass(frozen=True)
class ExportDecision:
    """How one artifact may leave, and why, in words an audit record can keep."""

    treatment: Treatment
    reason: str

    @property
    def allowed(self) -> bool:
        """True unless the artifact may not leave at all."""
        return self.treatment != "never"


def level_treatment(policy: Policy, access: str, artifact: str) -> ExportDecision:
    """How `artifact` of a benchmark at `access` level may leave, for any role allowed to export it."""
    if artifact not in ARTIFACTS:
        return ExportDecision("never", f"'{artifact}' is not an artifact this program exports")
    levels: dict[str, PublicRules] = {"public": policy.export.access_levels.public,
                                      "gated": policy.export.access_levels.gated,
                                      "private": policy.export.access_levels.private}
    rules = levels.get(access)
    if rules is None:
        return ExportDecision("never", f"access level '{access}' is not in export.yaml (unknown levels never leave)")
    wanted = rules.treatment(artifact)
    final = stricter(wanted, ceiling(access))
    if final != wanted:
        return ExportDecision(final, f"{access} data never leaves unredacted (a rule in the program)")
    return ExportDecision(final, f"export.yaml access_levels.{access}.{artifact}: {final}")


def export_treatment(policy: Policy, role: str, access: str, artifact: str) -> ExportDecision:
    """How `artifact` of a benchmark at `access` level may leave when `role` exports it."""
    granted = policy.export.who_may_export.get(role)
    if granted is None:
        return ExportDecision("never", f"role '{role}' may not export (export.yaml who_may_export)")
    if artifact not in granted:
        return ExportDecision("never", f"role '{role}' may not export {artifact} (export.yaml who_may_export)")
    return level_treatment(policy, access, artifact)
