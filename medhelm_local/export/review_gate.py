"""What a reviewer does to a review (flag, send back, approve) and what the export gate asks of one.

Each act is checked against the audit log (the review's newest record) and appended to it. An approval
carries its own signature, by the export signing key, over the log's id, the review, its round, the
text's digest and the approver (`approval_message`): the export gate accepts no approval without it, so
one written with the KEK alone never counts, even once a later checkpoint covers it, and a process killed
between the approval and the checkpoint that follows it leaves an approval that counts. Who may approve is
decided as for policy approvals (`approval.py`): a role with `approves_policy` under the approval in
force (its recorded roles and members), never files the caller can edit; and, when the policy's
`review.different_person` says so, not the person who asked for the review nor whoever asked for this round
(a text sent back can be fixed and resubmitted by anyone who may export in the review's role: that person
then asked for what is approved, and someone else approves it).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import replace
from pathlib import Path
from typing import Any

from medhelm_local.audit.chain import AuditRecord
from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ConfigError, ExportRefusedError
from medhelm_local.export.approval import approval_in_force, may_approve, trusted_records
from medhelm_local.export.review import Flag, Review, ReviewFolder, State, state_of
from medhelm_local.export.signing import SigningKey
from medhelm_local.redact import PhiType

_GATE = "the export gate (human review)"


def _state(audit: AuditLog, review_id: str) -> State:
    found = state_of(audit.records()[1] if not audit.absent() else [], review_id)
    if found is None:
        raise ConfigError(f"the audit log holds no record of review {review_id}", where=str(audit.path),
                          fix="request a review with `medhelm-local review request`")
    return found


def _where(review: Review, item: int) -> dict[str, str]:
    artifact, run_id, instance, field = review.items[item].where
    return {"artifact": artifact, "run_id": run_id, "instance": instance, "field": field}


def flag(audit: AuditLog, folder: ReviewFolder, review_id: str, item: int, start: int, end: int, kind: str,
         actor: str) -> AuditRecord:
    """Mark text[start:end] of one item as a missed identifier; approval waits until it is fixed."""
    with folder.locked():
        review = folder.load(review_id)
        state = _state(audit, review_id)
        if state.status == "approved":
            raise ConfigError("this round is approved already", where=f"review {review_id}",
                              fix="a new round (`medhelm-local review resubmit`) can be flagged")
        if not 0 <= item < len(review.items):
            raise ConfigError(f"the review has no value {item}", where=f"review {review_id}", fix="reload the page")
        text = review.items[item].text
        if not 0 <= start < end <= len(text) or not text[start:end].strip():
            raise ConfigError("the flagged span is empty or outside the value", where=f"review {review_id}",
                              fix="select the missed identifier in the text, then flag it")
        if kind not in PhiType.__members__:
            raise ConfigError(f"'{kind}' is not an identifier type", where="flag type",
                              fix=f"one of: {', '.join(PhiType.__members__)}")
        folder.save(replace(review, flags=(*review.flags, Flag(item, start, end, kind, text[start:end]))))
        # The log says where and what kind, never the text.
        return audit.append("review.flagged", {"review": review_id, "round": review.round, "item": item,
                                               "type": kind, **_where(review, item)}, actor=actor)


def send_back(audit: AuditLog, folder: ReviewFolder, review_id: str, actor: str) -> AuditRecord:
    """Return the review to whoever asked for it, to fix and resubmit."""
    review = folder.load(review_id)
    state = _state(audit, review_id)
    if state.status == "approved":
        raise ConfigError("this round is approved already", where=f"review {review_id}", fix="nothing to send back")
    return audit.append("review.sent_back", {"review": review_id, "round": review.round, "flags": len(review.flags)},
                        actor=actor)


def approval_message(store_id: str, review_id: str, round_: int, digest: str, actor: str) -> bytes:
    """The bytes an approval's signature covers: the log's id, the review, its round, the text's digest, who."""
    return "\0".join(("medhelm-local review approval", store_id, review_id, str(round_), digest, actor)).encode()


def _signed(record: AuditRecord, store_id: str, key: SigningKey) -> bool:
    """True when an approval record carries `key`'s signature over what it approves and who approved."""
    from medhelm_local.signatures import signature_valid

    details = record.details
    try:
        signature = base64.b64decode(str(details.get("signature", "")), validate=True)
        message = approval_message(store_id, str(details.get("review")), int(details.get("round", 0)),
                                   str(details.get("digest")), record.actor)
    except (binascii.Error, ValueError, TypeError):
        return False
    return bool(signature) and signature_valid(key.private.public_key(), message, signature)


def approve(audit: AuditLog, folder: ReviewFolder, review_id: str, key: SigningKey, actor: str,
            different_person: bool) -> AuditRecord:
    """Approve this round of the review: recorded with `key`'s signature, then covered by a checkpoint."""
    review = folder.load(review_id)
    state = _state(audit, review_id)
    records, store_id = trusted_records(audit, key)
    current = approval_in_force(records, store_id, key)
    reasons = _approve_refusals(review, state, current.approvers if current else {}, actor, different_person)
    details: dict[str, Any] = {"review": review_id, "round": review.round, "digest": review.digest,
                               "signing_key_id": key.key_id}
    if reasons:
        audit.append("review.approve_refused", {**details, "reasons": reasons}, actor=actor)
        audit.checkpoint(key)
        raise ExportRefusedError(f"the review cannot be approved: {'; '.join(reasons)}", where=f"review {review_id}",
                                 fix="fix what is flagged and resubmit, or have a compliance officer who did not "
                                     "ask for the export approve it; the refusal is in the audit log")
    signature = key.sign(approval_message(store_id, review_id, review.round, review.digest, actor))
    record = audit.append("review.approved", {**details, "requested_by": review.requested_by,
                                              "roles": sorted(_roles_of(current.approvers if current else {},
                                                                        actor)),
                                              "signature": base64.b64encode(signature).decode()}, actor=actor)
    audit.checkpoint(key)
    return record


def _roles_of(approvers: Any, actor: str) -> list[str]:
    return [role for role in approvers if may_approve(approvers, role, actor) is None]


def _approve_refusals(review: Review, state: State, approvers: Any, actor: str, different_person: bool) -> list[str]:
    reasons = []
    if state.round != review.round or state.requested.details.get("digest") != review.digest:
        reasons.append("the sealed text is not the round the audit log has on record")
    if state.status == "approved":
        reasons.append("this round is approved already")
    if review.flags:
        reasons.append(f"{len(review.flags)} missed identifier(s) flagged; they must be fixed (a redaction rule or "
                       "`review resubmit --mask-flagged`) and the text reviewed again")
    if not _roles_of(approvers, actor):
        reasons.append(f"user '{actor}' holds no role that approves exports under the policy in force "
                       f"(approves_policy: {', '.join(sorted(approvers)) or 'no approved policy'})")
    if different_person and actor in _askers(review, state):
        reasons.append(f"'{actor}' asked for this export or resubmitted this round, and the policy (export.yaml "
                       "review.different_person) wants another person to approve it")
    return reasons


def _askers(review: Review, state: State) -> set[str]:
    """Who asked for what an approval would approve: the review's requester and whoever opened this round."""
    return {review.requested_by, state.requested.actor}


def check_for_export(audit: AuditLog, key: SigningKey, review: Review, *, store: Path, run_id: str | None, role: str,
                     include: Any, exporter: str, different_person: bool) -> AuditRecord:
    """The approval an export under `review` rests on; ExportRefusedError for anything short of one."""
    records, store_id = trusted_records(audit, key)
    state = state_of(records, review.id)
    fix = ("ask for a review with `medhelm-local review request`, have a compliance officer approve it in the viewer, "
           "then export again naming that review (its id)")
    problems = []
    if state is None or state.status != "approved":
        problems.append(f"review {review.id} is {state.status if state else 'not on record'}, not approved")
    elif not _signed(state.last, store_id, key):
        problems.append(f"the approval of review {review.id} is not signed with this export signing key (an approval "
                        "written without it does not count)")
    elif state.round != review.round or state.last.details.get("digest") != review.digest:
        problems.append(f"the sealed text of review {review.id} is not the one approved")
    if not review.same_request(store, run_id, role, include):
        problems.append(f"review {review.id} is for another export (store, run, role or --include differ)")
    if state is not None and state.status == "approved" and different_person:
        approver = state.last.actor
        if approver in (*_askers(review, state), exporter):
            problems.append(f"review {review.id} was approved by '{approver}', who also asked for or runs this "
                            "export, and the policy wants another person to approve it")
    if problems or state is None:
        raise ExportRefusedError("free text of gated or private runs leaves only after a person's review: "
                                 + "; ".join(problems), where=_GATE, fix=fix)
    return state.last
