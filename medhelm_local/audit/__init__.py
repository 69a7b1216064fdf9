"""The audit log: every export attempt and every refused connection, append-only and hash-chained.

    AuditLog(path, kek).append(kind, details)   one record, committed at once, then forwarded
    AuditLog(path, kek).checkpoint(signer)      a checkpoint signed with the export signing key
    AuditLog(path, kek).verify(...)             every record, and every problem: chain, checkpoints, copies
    audit_log_for(settings)                     the appliance's log (where the installation puts it; audit.yaml sinks)
    with recorded_attempt(audit, kind, ...):    an attempt's refusal or failure, recorded

Details hold ids, counts, reasons and paths, never patient text.
"""

from medhelm_local.audit.chain import AuditRecord, ChainProblem, verify_chain
from medhelm_local.audit.checkpoints import CHECKPOINT_KIND, latest_checkpoint
from medhelm_local.audit.log import KINDS, AuditLog, audit_log_for, audit_path, recorded_attempt
from medhelm_local.policy.identity import current_actor

__all__ = ["CHECKPOINT_KIND", "KINDS", "AuditLog", "AuditRecord", "ChainProblem", "audit_log_for", "audit_path",
           "current_actor", "latest_checkpoint", "recorded_attempt", "verify_chain"]
