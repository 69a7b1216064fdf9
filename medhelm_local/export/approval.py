"""The export pin: the one policy and redaction rule pack exports may use, approved in the audit log.

Settings (so environment variables and flags too) choose the policy folder and the rule pack of
every command, and that must not decide what may leave. An export therefore runs only under the
pair a compliance officer approved last: `medhelm-local policy approve --role ROLE` records the
digests of both in the audit log (kind `policy.approved`), signed by the export signing key over the
log's id, the hash of the record before it, both digests, the approving roles and the approver
(`approval_message`), and covers the record with a signed checkpoint. An approval counts only with that
signature: one written with the KEK alone never counts, even once a later checkpoint (a refused
export's) covers it, and an older approval copied to the end of the log follows another record than the
one it was signed after. Under any other pair the export is refused (exit 5) and the refusal recorded.
Whatever pack is approved, the gate's rescan also runs the shipped rules (`scrubber.Scrubber.floor`), so
an approved pack can add rules, never remove them.

Who may approve: someone who may act in ROLE, a role with `approves_policy: true`, under the policy
in force, which is the last approved one; for the first approval in a log, the policy IT installed
(`installation.py`), never the one being approved, so an empty or replaced log gives no one a right
the installation does not. Each approval stores those roles and their members, so the next one is
checked against them and not against files the caller can edit. Only a log that continues the last
checkpoint this appliance noted (`audit/head.py`) is believed at all: a copied old log, which would
bring back a superseded approval, is refused.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medhelm_local.audit.chain import AuditRecord, verify_chain
from medhelm_local.audit.checkpoints import check_checkpoints
from medhelm_local.audit.head import RESTORE_LOG
from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ExportRefusedError, IntegrityError
from medhelm_local.export.signing import SigningKey
from medhelm_local.installation import installation
from medhelm_local.policy.identity import current_actor
from medhelm_local.policy.loader import Policy, load_policy
from medhelm_local.redact.pack import read_rule_pack

APPROVAL_KIND = "policy.approved"
Approvers = Mapping[str, Sequence[str] | None]  # role -> members (None: anyone may name the role)


def rule_pack_digest(folder: Path) -> str:
    """sha256 over every file of a redaction rule pack (names and bytes): the redactor's version."""
    return read_rule_pack(folder).digest


@dataclass(frozen=True)
class Approval:
    """One `policy.approved` record, as the gate reads it."""

    seq: int
    policy_sha256: str
    rule_pack_sha256: str
    approvers: Approvers


def approvers_of(policy: Policy) -> dict[str, list[str] | None]:
    """Each role that may approve the export policy, with its members."""
    return {name: role.members for name, role in sorted(policy.roles.roles.items()) if role.approves_policy}


def approval_message(store_id: str, prev_hash: str, policy_sha256: str, rule_pack_sha256: str, approvers: Any,
                     actor: str) -> bytes:
    """The bytes an approval's signature covers: the log and the record it follows (so a copy elsewhere in the log
    does not verify), what is approved, who may approve next and who approved."""
    roles = json.dumps(approvers, sort_keys=True, separators=(",", ":"))
    return "\0".join(("medhelm-local policy approval", store_id, prev_hash, policy_sha256, rule_pack_sha256, roles,
                      actor)).encode()


def _read(record: AuditRecord, store_id: str, key: SigningKey) -> Approval | None:
    """The approval `record` makes, if it is well formed and signed by `key` where it stands in the log."""
    from medhelm_local.signatures import signature_valid

    d = record.details
    approvers = d.get("approvers")
    if not isinstance(approvers, dict) or not all(isinstance(d.get(k), str) for k in ("policy_sha256",
                                                                                    "rule_pack_sha256")):
        return None
    try:
        signature = base64.b64decode(str(d.get("signature", "")), validate=True)
    except (binascii.Error, ValueError):
        return None
    message = approval_message(store_id, record.prev_hash, d["policy_sha256"], d["rule_pack_sha256"], approvers,
                               record.actor)
    if not signature or not signature_valid(key.private.public_key(), message, signature):
        return None
    return Approval(record.seq, d["policy_sha256"], d["rule_pack_sha256"], approvers)


def trusted_records(audit: AuditLog, key: SigningKey) -> tuple[list[AuditRecord], str]:
    """The log's records and its id, once the chain and the checkpoints signed by `key` verify; IntegrityError
    if they do not (then no approval in it can be trusted)."""
    if audit.absent():
        return [], ""
    store_id, records = audit.records()
    public = key.private.public_key()
    problems = verify_chain(records, store_id) + check_checkpoints(records, store_id, [public], ignore_foreign=True)
    if problems:
        raise IntegrityError("the audit log does not verify, so which policy was approved for exports cannot be "
                             "trusted: " + "; ".join(p.describe() for p in problems[:3]), where=str(audit.path),
                             fix="run `medhelm-local audit verify`, restore the log from backup and investigate")
    broken = audit.continuity(store_id, records)
    if broken:
        raise IntegrityError("the audit log does not continue the last checkpoint this appliance recorded, so which "
                             f"policy was approved for exports cannot be trusted: {broken}", where=str(audit.path),
                             fix=RESTORE_LOG)
    return records, store_id


def approval_in_force(records: Sequence[AuditRecord], store_id: str, key: SigningKey) -> Approval | None:
    """The newest approval signed by `key` where it stands; unsigned, foreign-signed or moved ones are skipped."""
    for record in reversed(records):
        if record.kind == APPROVAL_KIND and (approval := _read(record, store_id, key)) is not None:
            return approval
    return None


def may_approve(approvers: Approvers, role: str, actor: str) -> str | None:
    """Why `actor` may not approve in `role` under these approving roles, or None if they may."""
    if role not in approvers:
        return (f"role '{role}' may not approve the export policy under the policy in force (roles.yaml "
                f"approves_policy: {', '.join(sorted(approvers)) or 'no role'})")
    members = approvers[role]
    if members is not None and actor not in members:
        return f"user '{actor}' does not hold role '{role}' (members under the policy in force)"
    return None


def _approvers_in_force(current: Approval | None) -> tuple[Approvers, str]:
    """Who may approve now, and what says so: the approval in force, else the policy IT installed."""
    if current is not None:
        return current.approvers, f"approval {current.seq}"
    installed = load_policy(installation().policy_dir)
    return approvers_of(installed), f"the installed policy in {installed.directory} (sha256 {installed.digest})"


def approve(audit: AuditLog, policy: Policy, rule_pack: Path, key: SigningKey, role: str) -> AuditRecord:
    """Record (policy, rule pack) as the pair exports must use, covered by a signed checkpoint."""
    records, store_id = trusted_records(audit, key)
    current = approval_in_force(records, store_id, key)
    actor = current_actor()
    approvers, checked = _approvers_in_force(current)
    reason = may_approve(approvers, role, actor)
    details: dict[str, Any] = {"policy_sha256": policy.digest, "rule_pack_sha256": rule_pack_digest(rule_pack),
                               "policy_dir": str(policy.directory.resolve()), "redaction_dir": str(rule_pack.resolve()),
                               "role": role, "approvers": approvers_of(policy), "signing_key_id": key.key_id,
                               "replaces": current.seq if current else None, "checked_against": checked}
    if reason:
        audit.append("policy.approve_refused", {**details, "reasons": [reason]}, actor=actor)
        audit.checkpoint(key)
        raise ExportRefusedError(f"the policy approval is refused: {reason}", where="policy approve",
                                 fix="someone in a role with approves_policy under the policy in force approves "
                                     "changes; the refusal is in the audit log")
    def signed(log_id: str, _seq: int, prev_hash: str) -> dict[str, Any]:
        message = approval_message(log_id, prev_hash, details["policy_sha256"], details["rule_pack_sha256"],
                                   details["approvers"], actor)
        return {**details, "signature": base64.b64encode(key.sign(message)).decode()}

    record = audit.append_computed(APPROVAL_KIND, signed, actor=actor)
    audit.checkpoint(key)
    return record


def check_pin(audit: AuditLog, key: SigningKey, policy: Policy, rule_pack_sha256: str) -> Approval:
    """The approval this export runs under; ExportRefusedError if the policy or rule pack differ from it."""
    records, store_id = trusted_records(audit, key)
    approval = approval_in_force(records, store_id, key)
    fix = ("a compliance officer reviews the policy and rule pack and runs `medhelm-local policy approve --role "
           "ROLE` (or sets policy_dir and redaction_dir back to the approved folders)")
    if approval is None:
        raise ExportRefusedError("no policy and redaction rule pack have been approved for exports (or no approval "
                                 "is signed with this export signing key)",
                                 where="the export gate (approved policy)", fix=fix)
    differs = [f"the policy in {policy.directory} (sha256 {policy.digest[:16]}...) is not the approved one "
               f"({approval.policy_sha256[:16]}..., audit record {approval.seq})"] \
        if policy.digest != approval.policy_sha256 else []
    if rule_pack_sha256 != approval.rule_pack_sha256:
        differs.append(f"the redaction rule pack (sha256 {rule_pack_sha256[:16]}...) is not the approved one "
                       f"({approval.rule_pack_sha256[:16]}..., audit record {approval.seq})")
    if differs:
        raise ExportRefusedError("the export would run under rules nobody approved: " + "; ".join(differs),
                                 where="the export gate (approved policy)", fix=fix)
    return approval
