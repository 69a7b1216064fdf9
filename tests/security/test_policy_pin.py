"""Item 2: the policy and rule pack an export uses are the approved ones, never what the caller points at."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import REPO, SHIPPED_POLICIES
from support.appliance import Appliance
from support.phi_store import PLANTED
from support.review import review_not_required

from medhelm_local.audit import AuditLog
from medhelm_local.export.approval import approvers_of
from medhelm_local.policy.loader import load_policy
from medhelm_local.store.keys import Kek


def _weak_pack(folder: Path) -> Path:
    """The shipped rule pack with its patterns and name lists emptied: phone numbers and names go undetected."""
    shutil.copytree(REPO / "redaction", folder)
    rules = (folder / "rules.yaml").read_text()
    start, end = rules.index("\npatterns:\n"), rules.index("\nlabels:")
    (folder / "rules.yaml").write_text(rules[:start] + "\npatterns: []\n" + rules[end:])
    for name in ("first_names.txt", "surnames.txt"):
        (folder / "dictionaries" / name).write_text("")
    return folder


def _export(appliance: Appliance, name: str, role: str = "compliance_officer",
            include: str = "aggregates,scores") -> subprocess.CompletedProcess[str]:
    """An export under the pinned policy; numbers only unless told (these tests are about the pin, and numbers need
    no person's review)."""
    return appliance.cli("export", "ward", "--to", str(appliance.root / name), "--role", role, "--include", include)


def test_a_policy_folder_swapped_in_by_environment_is_refused_and_recorded(appliance: Appliance) -> None:
    appliance.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")
    weak = shutil.copytree(SHIPPED_POLICIES, appliance.root / "weak-policy")  # no members: anyone may export
    appliance.env["MEDHELM_POLICY_DIR"] = str(weak)
    done = _export(appliance, "swapped")
    assert done.returncode == 5, done.stdout + done.stderr
    assert "rules nobody approved" in done.stderr and str(weak) in done.stderr
    assert not (appliance.root / "swapped").exists()
    [record] = appliance.audit_records(outcomes_only=True)
    assert record["kind"] == "export.refused" and "nobody approved" in json.dumps(record["details"])


def test_a_rule_pack_swapped_in_by_environment_is_refused(appliance: Appliance) -> None:
    appliance.env["MEDHELM_REDACTION_DIR"] = str(_weak_pack(appliance.root / "weak-pack"))
    done = _export(appliance, "swapped")
    assert done.returncode == 5 and "redaction rule pack" in done.stderr and "not the approved one" in done.stderr
    assert not (appliance.root / "swapped").exists()


def test_even_an_approved_weak_rule_pack_cannot_weaken_the_rescan(appliance: Appliance) -> None:
    # A compliance officer approves a pack that misses phone numbers: the shipped rules beneath the
    # rescan still find what it left, and nothing leaves.
    with appliance.config.open("a") as fh:
        fh.write(f'redaction_dir = "{_weak_pack(appliance.root / "weak-pack")}"\n')
    appliance.approve()
    review_not_required(appliance, "this test is about the gate's rescan under an approved weak pack")
    done = _export(appliance, "weak", include="aggregates,scores,completions")
    assert done.returncode == 5, done.stdout + done.stderr
    assert "still holds detectable PHI" in done.stderr and "PHONE" in done.stderr
    assert not (appliance.root / "weak").exists()
    for value in PLANTED:
        assert value not in done.stderr


def test_someone_outside_the_approving_role_cannot_approve_a_change(appliance: Appliance) -> None:
    appliance.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")
    # The caller edits the policy folder to drop the members and tries to approve the result.
    policies = appliance.root / "policies"
    roles = policies / "roles.yaml"
    roles.write_text(roles.read_text().replace("    members: [jdoe, asmith]\n", ""))
    refused = appliance.cli("policy", "approve", "--role", "compliance_officer")
    assert refused.returncode == 5 and "does not hold role 'compliance_officer'" in refused.stderr
    other_role = appliance.cli("policy", "approve", "--role", "data_scientist")
    assert other_role.returncode == 5 and "may not approve" in other_role.stderr
    kinds = [r["kind"] for r in appliance.audit_records()]
    assert kinds.count("policy.approve_refused") == 2
    assert _export(appliance, "still-refused").returncode == 5  # the edited folder is still not approved


def test_an_approval_written_with_the_kek_alone_does_not_count(appliance: Appliance, kek: Kek) -> None:
    weak = shutil.copytree(SHIPPED_POLICIES, appliance.root / "weak-policy")
    (weak / "export.yaml").write_text((weak / "export.yaml").read_text().replace("prompts: never", "prompts: redacted"))
    forged = load_policy(weak)
    from medhelm_local.export.approval import rule_pack_digest

    AuditLog(appliance.audit, kek).append("policy.approved", {
        "policy_sha256": forged.digest, "rule_pack_sha256": rule_pack_digest(REPO / "redaction"),
        "approvers": approvers_of(forged), "role": "compliance_officer"})
    appliance.env["MEDHELM_POLICY_DIR"] = str(weak)
    # Twice: the first refusal writes a signed checkpoint that covers the forged record; it still must not count.
    for attempt in ("forged", "forged-again"):
        done = _export(appliance, attempt)
        assert done.returncode == 5 and "rules nobody approved" in done.stderr, done.stderr
        assert not (appliance.root / attempt).exists()


def test_an_older_approval_copied_to_the_end_of_the_log_does_not_count(appliance: Appliance, kek: Kek) -> None:
    before = shutil.copytree(SHIPPED_POLICIES, appliance.root / "policy-before")  # what the appliance runs under
    appliance.edit_policy("export.yaml", "style: mask", "style: surrogate")  # approved: the older one is replaced
    older = next(r for r in appliance.audit_records() if r["kind"] == "policy.approved")
    assert older["details"]["policy_sha256"] == load_policy(before).digest
    AuditLog(appliance.audit, kek).append("policy.approved", older["details"], actor=older["actor"])
    appliance.env["MEDHELM_POLICY_DIR"] = str(before)
    for attempt in ("replayed", "replayed-again"):
        done = _export(appliance, attempt)
        assert done.returncode == 5 and "not the approved one" in done.stderr, done.stderr
    del appliance.env["MEDHELM_POLICY_DIR"]
    assert _export(appliance, "current").returncode == 0  # the approval in force still counts


def test_the_legitimate_path_edit_approve_export(appliance: Appliance) -> None:
    appliance.edit_policy("export.yaml", "style: mask", "style: surrogate", approve=False)
    before = _export(appliance, "before")
    assert before.returncode == 5 and "not the approved one" in before.stderr
    approved = appliance.approve()
    assert "Approved" in approved.stdout
    after = _export(appliance, "after")
    assert after.returncode == 0, after.stderr
    manifest = json.loads((appliance.root / "after" / "MANIFEST.json").read_text())
    approvals = [r for r in appliance.audit_records() if r["kind"] == "policy.approved"]
    assert manifest["policy"]["approved_in_audit_record"] == approvals[-1]["seq"]
    assert manifest["redactor"]["style"] == "surrogate"
    verified = appliance.cli("audit", "verify", "--bundle", str(appliance.root / "after"))
    assert verified.returncode == 0, verified.stderr
