"""What decides what may leave, read once for a command: the KEK, the policy and the audit log.

Each comes from the appliance's settings and installation, never from an argument of the call: the policy
from the `policy_dir` setting (and the gate then holds it to the approved digest), the audit log from where
the installation put it (audit/log.py), the person exporting from the operating system (policy/identity.py,
asked by the gate itself). `export`, `export_bundle()`, every `review` command, `policy approve` and `redact
store` start here.
"""

from __future__ import annotations

from dataclasses import dataclass

from medhelm_local.audit.log import AuditLog, audit_log_for
from medhelm_local.policy.loader import Policy, load_policy
from medhelm_local.settings import Settings
from medhelm_local.store.keys import Kek, load_kek


@dataclass(frozen=True)
class GateInputs:
    """The settings, the KEK, the policy (read once: what is enforced is what is pinned) and the audit log."""

    settings: Settings
    kek: Kek
    policy: Policy
    audit: AuditLog


def gate_inputs(settings: Settings) -> GateInputs:
    """Open the KEK, read the policy once and open the installation's audit log, forwarding as that policy says."""
    kek = load_kek(settings)
    policy = load_policy(settings.policy_dir)
    return GateInputs(settings, kek, policy, audit_log_for(settings, policy))
