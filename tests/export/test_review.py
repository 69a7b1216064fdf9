"""A person's review before free text of private runs leaves (export.yaml `review`), on a real store and audit log.

The CLI's user asks for the review and exports; the compliance officer who approves is the viewer's user, here
called through the same library functions the viewer calls, with their name (the viewer passes its process's
identity; the name is the only thing a second Unix user would change).
"""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest
from support.appliance import Appliance
from support.phi_store import PRIVATE_RUN
from support.review import (
    MISSED,
    OFFICER,
    REQUIRED,
    request_review,
    requested_by,
    review_not_required,
    under_review,
)

from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ExportRefusedError
from medhelm_local.export.approval import trusted_records
from medhelm_local.export.review import record_request, reviews_folder
from medhelm_local.export.review_gate import approval_message, approve, flag, send_back
from medhelm_local.export.signing import load_signing_key
from medhelm_local.policy.identity import current_actor
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


@pytest.fixture
def reviewed(appliance: Appliance, kek: Kek) -> Appliance:
    return under_review(appliance, kek)


_request = request_review


def _kinds(app: Appliance) -> list[str]:
    return [r["kind"] for r in app.audit_records() if r["kind"].startswith(("review.", "export."))]


def _flag_missed(app: Appliance, kek: Kek, review_id: str) -> None:
    review = reviews_folder(kek).load(review_id)
    item = next(i for i, m in enumerate(review.items) if MISSED in m.text)
    start = review.items[item].text.index(MISSED)
    flag(AuditLog(app.audit, kek), reviews_folder(kek), review_id, item, start, start + len(MISSED), "NAME", OFFICER)


def test_an_export_of_private_answers_waits_for_a_review_and_leaves_nothing(reviewed: Appliance) -> None:
    out = reviewed.root / "out"
    refused = reviewed.cli("export", "ward", "--to", str(out), "--role", "compliance_officer")
    assert refused.returncode == 5, refused.stderr
    assert "waits for a review" in refused.stderr and "review request ward" in refused.stderr
    assert not out.exists() and not list(reviewed.root.glob(".out*"))
    assert _kinds(reviewed)[-1] == "export.refused"
    # What needs no review still leaves at once: numbers only.
    numbers = reviewed.cli("export", "ward", "--to", str(reviewed.root / "n"), "--role", "compliance_officer",
                           "--include", "aggregates")
    assert numbers.returncode == 0, numbers.stderr


def test_the_review_holds_the_redacted_text_sealed_and_the_log_only_its_digest(reviewed: Appliance, kek: Kek) -> None:
    review_id = _request(reviewed)
    review = reviews_folder(kek).load(review_id)
    answer = next(m for m in review.items if MISSED in m.text)
    assert answer.where[0] == "completions" and answer.where[1] == PRIVATE_RUN and answer.where[2].startswith("i-")
    # Every redaction is marked where it sits, with its type: what the page highlights.
    assert {answer.text[s:e] for s, e, _ in answer.marks} == {"[NAME]", "[MRN]", "[PHONE]"}
    assert sorted(t for _, _, t in answer.marks) == ["MRN", "NAME", "PHONE"]
    sealed = (reviewed.audit.parent / "reviews" / f"{review_id}.sealed").read_bytes()
    assert MISSED.encode() not in sealed and b"meets criteria" not in sealed
    [record] = [r for r in reviewed.audit_records() if r["kind"] == "review.requested"]
    assert record["details"]["digest"] == review.digest and record["actor"] == current_actor()
    assert MISSED not in json.dumps(record)
    listed = reviewed.cli("review", "list", "--json")
    assert json.loads(listed.stdout)["reviews"][0]["status"] == "pending", listed.stderr


def test_the_person_who_asked_cannot_approve_their_own_export(reviewed: Appliance, kek: Kek) -> None:
    review_id = _request(reviewed)
    key = load_signing_key(reviewed.signing_key, kek)
    with pytest.raises(ExportRefusedError, match="another person to approve"):
        approve(AuditLog(reviewed.audit, kek), reviews_folder(kek), review_id, key, current_actor(), True)
    assert _kinds(reviewed)[-1] == "review.approve_refused"
    refused = reviewed.cli("export", "ward", "--to", str(reviewed.root / "out"), "--role", "compliance_officer",
                           "--review", review_id)
    assert refused.returncode == 5 and "not approved" in refused.stderr, refused.stderr
    assert not (reviewed.root / "out").exists()


def test_a_flagged_name_blocks_until_masked_and_reviewed_again(reviewed: Appliance, kek: Kek) -> None:
    review_id = _request(reviewed)
    audit, folder, key = AuditLog(reviewed.audit, kek), reviews_folder(kek), load_signing_key(reviewed.signing_key, kek)
    _flag_missed(reviewed, kek, review_id)
    with pytest.raises(ExportRefusedError, match="missed identifier"):
        approve(audit, folder, review_id, key, OFFICER, True)
    blocked = reviewed.cli("export", "ward", "--to", str(reviewed.root / "out"), "--role", "compliance_officer",
                           "--review", review_id)
    assert blocked.returncode == 5 and not (reviewed.root / "out").exists()
    # Resubmitting the same text does not fix the flag.
    same = reviewed.cli("review", "resubmit", review_id)
    assert same.returncode == 2 and "would still leave" in same.stderr, same.stderr
    fixed = reviewed.cli("review", "resubmit", review_id, "--mask-flagged")
    assert fixed.returncode == 0, fixed.stderr
    again = folder.load(review_id)
    assert again.round == 2 and not again.flags and all(MISSED not in m.text for m in again.items)
    approve(audit, folder, review_id, key, OFFICER, True)
    out = reviewed.root / "out"
    done = reviewed.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", "--review", review_id,
                        "--json")
    assert done.returncode == 0, done.stderr
    blob = b"".join(p.read_bytes() for p in out.iterdir())
    assert MISSED.encode() not in blob
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["review"]["id"] == review_id and manifest["review"]["approved_by"] == OFFICER
    assert manifest["review"]["text_sha256"] == again.digest and manifest["review"]["manual_masks"] == 1
    assert reviewed.cli("verify", str(out), "--public-key", str(reviewed.public_key)).returncode == 0
    assert _kinds(reviewed)[-8:] == ["export.refused", "review.requested", "review.flagged", "review.approve_refused",
                                     "export.refused", "review.resubmitted", "review.approved", "export.started",
                                     "export.allowed"][-8:]


def test_the_approval_is_for_exactly_the_reviewed_text_and_request(reviewed: Appliance, kek: Kek) -> None:
    review_id = _request(reviewed)
    approve(AuditLog(reviewed.audit, kek), reviews_folder(kek), review_id, load_signing_key(reviewed.signing_key, kek),
            OFFICER, True)
    other = reviewed.cli("export", "ward", "--to", str(reviewed.root / "a"), "--role", "compliance_officer",
                         "--include", "completions", "--review", review_id)
    assert other.returncode == 5 and "another export" in other.stderr, other.stderr
    # The store changes after the approval: the text built now is not the text approved.
    handle = open_store(reviewed.store, kek)
    try:
        handle.con.execute("UPDATE completions SET text = text || ' Also seen by the night team.' "
                           "WHERE run_id = ? AND ok", [PRIVATE_RUN])
    finally:
        handle.close()
    changed = reviewed.cli("export", "ward", "--to", str(reviewed.root / "b"), "--role", "compliance_officer",
                           "--review", review_id)
    assert changed.returncode == 5 and "not the text reviewed" in changed.stderr, changed.stderr
    assert not (reviewed.root / "b").exists() and not list(reviewed.root.glob(".b.*"))


def test_an_approval_without_the_signing_keys_signature_does_not_count(reviewed: Appliance, kek: Kek) -> None:
    review_id = _request(reviewed)
    review = reviews_folder(kek).load(review_id)
    # The KEK holder writes an approval record without the signing key (a signature field of the right shape too).
    AuditLog(reviewed.audit, kek).append("review.approved", {"review": review_id, "round": 1, "digest": review.digest,
                                                             "signature": "AAAA" * 22}, actor=OFFICER)
    refused = [reviewed.cli("export", "ward", "--to", str(reviewed.root / "out"), "--role", "compliance_officer",
                            "--review", review_id) for _ in range(2)]
    # The first refusal's checkpoint, signed with the key, covers the forged record: it still does not count.
    assert reviewed.audit_records()[-1]["kind"] == "audit.checkpoint"
    for done in refused:
        assert done.returncode == 5 and "is not signed with this export signing key" in done.stderr, done.stderr
    assert not (reviewed.root / "out").exists()


def test_the_missed_name_is_one_the_shipped_rules_miss() -> None:
    from medhelm_local.redact.detector import detector_for_pack
    from medhelm_local.redact.pack import read_rule_pack
    from medhelm_local.settings import default_redaction_dir

    detector = detector_for_pack(read_rule_pack(default_redaction_dir()))
    assert detector.detect(f"Sepsis likely; {MISSED} agrees.") == []


def test_the_shipped_policy_and_an_older_file_without_the_block_both_want_a_review(appliance: Appliance) -> None:
    out = appliance.root / "out"
    shipped = appliance.cli("export", "ward", "--to", str(out), "--role", "compliance_officer")
    assert shipped.returncode == 5 and "waits for a review" in shipped.stderr, shipped.stderr
    assert "export.yaml review.required" in " ".join(shipped.stderr.split())
    # A hospital's own export.yaml from before reviews existed (no `review:` block) gets the safe side, and the
    # refusal says how to go on: a review, numbers only, or a policy that says `required: false`.
    appliance.edit_policy("export.yaml", REQUIRED, "")
    older = appliance.cli("export", "ward", "--to", str(out), "--role", "compliance_officer")
    message = " ".join(older.stderr.split())
    assert older.returncode == 5 and "Traceback" not in older.stderr, older.stderr
    assert "has no `review: required:` setting" in message and "review request ward" in message
    assert "--include aggregates,scores" in message and "required: false" in message
    assert not out.exists()


def test_a_policy_that_says_required_false_lets_redacted_text_leave_as_before(appliance: Appliance) -> None:
    review_not_required(appliance, "the hospital's explicit choice, approved like any policy change")
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "out"), "--role", "compliance_officer")
    assert done.returncode == 0, done.stderr
    assert "review" not in json.loads((appliance.root / "out" / "MANIFEST.json").read_text())


def test_a_review_id_that_is_not_one_is_a_clear_error(reviewed: Appliance) -> None:
    for bad in ("../../etc/passwd", "rv-nothere"):
        done = reviewed.cli("review", "show", bad)
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr


def test_review_lives_beside_the_audit_log(reviewed: Appliance) -> None:
    _request(reviewed)
    assert [p.suffix for p in (reviewed.audit.parent / "reviews").glob("rv-*")] == [".sealed"]
    assert (reviewed.audit.parent / "reviews").stat().st_mode & 0o077 == 0





def test_a_text_sent_back_is_resubmitted_by_anyone_in_the_role_and_approved_by_someone_else(
        reviewed: Appliance, kek: Kek) -> None:
    # alice asked for the export; the officer flags the missed name and sends it back; alice is away, and the CLI's
    # user, who may also export as compliance_officer, fixes and resubmits it.
    review_id = requested_by(reviewed, kek, "alice")
    audit, folder, key = AuditLog(reviewed.audit, kek), reviews_folder(kek), load_signing_key(reviewed.signing_key, kek)
    _flag_missed(reviewed, kek, review_id)
    send_back(audit, folder, review_id, OFFICER)
    fixed = reviewed.cli("review", "resubmit", review_id, "--mask-flagged")
    assert fixed.returncode == 0, fixed.stderr
    [resubmitted] = [r for r in reviewed.audit_records() if r["kind"] == "review.resubmitted"]
    assert resubmitted["actor"] == current_actor() and resubmitted["details"]["requested_by"] == "alice"
    # Whoever resubmitted asked for this round: they may not approve it (nor may alice, who asked for the export).
    for asker in (current_actor(), "alice"):
        with pytest.raises(ExportRefusedError, match="resubmitted this round"):
            approve(audit, folder, review_id, key, asker, True)
    approve(audit, folder, review_id, key, OFFICER, True)
    done = reviewed.cli("export", "ward", "--to", str(reviewed.root / "out"), "--role", "compliance_officer",
                        "--review", review_id)
    assert done.returncode == 0, done.stderr
    assert all(MISSED.encode() not in p.read_bytes() for p in (reviewed.root / "out").iterdir())


def test_an_approval_by_whoever_resubmitted_the_round_does_not_count_at_export(reviewed: Appliance, kek: Kek) -> None:
    # alice asked; carol (another account in the role) resubmitted round 2 and approved it herself: the approval is
    # appended with the signing key's signature, as an older build's viewer would have written it. The export gate
    # refuses it, though carol neither asked for the export nor runs it.
    review_id = requested_by(reviewed, kek, "alice")
    audit, folder, key = AuditLog(reviewed.audit, kek), reviews_folder(kek), load_signing_key(reviewed.signing_key, kek)
    send_back(audit, folder, review_id, OFFICER)
    again = replace(folder.load(review_id), round=2)
    record_request(audit, folder, again, "review.resubmitted", actor="carol")
    _, store_id = trusted_records(audit, key)
    signature = key.sign(approval_message(store_id, review_id, again.round, again.digest, "carol"))
    audit.append("review.approved", {"review": review_id, "round": again.round, "digest": again.digest,
                                     "signature": base64.b64encode(signature).decode()}, actor="carol")
    refused = reviewed.cli("export", "ward", "--to", str(reviewed.root / "out"), "--role", "compliance_officer",
                           "--review", review_id)
    assert refused.returncode == 5 and "who also asked for or runs this export" in refused.stderr, refused.stderr
    assert not (reviewed.root / "out").exists()


def test_resubmitting_needs_the_reviews_role(reviewed: Appliance, kek: Kek) -> None:
    review_id = requested_by(reviewed, kek, "alice")
    send_back(AuditLog(reviewed.audit, kek), reviews_folder(kek), review_id, OFFICER)
    # The role now names its members, and the CLI's user is not one of them.
    reviewed.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", f"    members: [alice, {OFFICER}]")
    refused = reviewed.cli("review", "resubmit", review_id)
    assert refused.returncode == 5 and "does not hold role 'compliance_officer'" in refused.stderr, refused.stderr
    assert "review.resubmitted" not in _kinds(reviewed)
