"""The audit log: every export attempt and every refused connection, append-only and hash-chained.

    AuditLog(path, kek).append(kind, details)   one record, committed at once
    AuditLog(path, kek).verify()                every record, and where the chain breaks
    audit_log_for(settings)                     the appliance's log (setting `audit_store`)
    with recorded_attempt(audit, kind, ...):    an attempt's refusal or failure, recorded

Details hold ids, counts, reasons and paths, never patient text.
"""

from medhelm_local.audit.chain import AuditRecord, ChainProblem, verify_chain
from medhelm_local.audit.log import AuditLog, audit_log_for, audit_path, current_actor, recorded_attempt

__all__ = ["AuditLog", "AuditRecord", "ChainProblem", "audit_log_for", "audit_path", "current_actor",
           "recorded_attempt", "verify_chain"]
