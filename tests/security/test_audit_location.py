"""Issue 29, finding 4: the audit log's place is the installation's, and an empty or replaced log cannot
bootstrap trust.

Before, `MEDHELM_AUDIT_STORE` chose the log per command: in a fresh log the first approval trusted the
policy being approved, so a non-member holding the signing key exported a bundle that verified while the
real log held no record; and a copied old log brought back a superseded approval. These tests run a
second installation of the program (its own prefix, its own installation file, as IT makes one).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SHIPPED_POLICIES
from support.installation import RELATIVE_PATH, Installed, install
from support.phi_store import write_ward_store

from medhelm_local.store.keys import Kek

ME = pwd.getpwuid(os.getuid()).pw_name
NOT_ME = "    members: [jdoe, asmith]"
JUST_ME = f"    members: [{ME}]"


@dataclass
class Appliance:
    """An installed appliance: IT's installation file and policy, the compliance officer's keys, a results folder."""

    root: Path
    installed: Installed
    config: Path
    env: dict[str, str]

    @property
    def audit(self) -> Path:
        return self.root / "var" / "audit.duckdb"

    def cli(self, *args: str, env: dict[str, str] | None = None, config: Path | None = None):  # type: ignore[no-untyped-def]
        return self.installed.run("-c", str(config or self.config), *args, env={**self.env, **(env or {})})

    def export(self, name: str, role: str = "compliance_officer", env: dict[str, str] | None = None
               ) -> tuple[int, str]:
        # Numbers only: these exports test where the log lives, and need no person's review of free text.
        done = self.cli("export", "ward", "--to", str(self.root / name), "--role", role, "--include",
                        "aggregates,scores", env=env)
        return done.returncode, done.stdout + done.stderr

    def records(self) -> list[dict[str, object]]:
        shown = self.cli("audit", "show", "--json")
        assert shown.returncode == 0, shown.stderr
        return json.loads(shown.stdout)  # type: ignore[no-any-return]


def _policy(folder: Path, members: str) -> Path:
    """A copy of the shipped policy whose compliance officers are `members`."""
    shutil.copytree(SHIPPED_POLICIES, folder)
    roles = folder / "roles.yaml"
    roles.write_text(roles.read_text().replace("    # members: [jdoe, asmith]", members))
    return folder


def _appliance(tmp_path: Path, kek_file: Path, kek: Kek, it_members: str) -> Appliance:
    installed = install(tmp_path / "opt")
    installed.write(tmp_path / "var" / "audit.duckdb", _policy(tmp_path / "etc-policies", it_members))
    (tmp_path / "var").mkdir()
    results = tmp_path / "results"
    results.mkdir()
    write_ward_store(results / "ward.duckdb", kek)
    config = tmp_path / "config.toml"
    signing = tmp_path / "keys" / "export-signing.key"
    config.write_text(f'output_dir = "{results}"\nsigning_key_file = "{signing}"\n')
    app = Appliance(tmp_path, installed, config, {"MEDHELM_KEK_FILE": str(kek_file)})
    made = app.cli("keys", "signing-init", "--out", str(signing))
    assert made.returncode == 0, made.stderr
    return app


def test_the_installation_file_is_where_the_program_looks() -> None:
    from medhelm_local.installation import RELATIVE_PATH as LOOKED_FOR

    assert RELATIVE_PATH == LOOKED_FOR


def test_a_non_member_cannot_bootstrap_trust_in_a_log_of_their_choosing(tmp_path: Path, kek_file: Path,
                                                                         kek: Kek) -> None:
    # IT installed a policy whose compliance officers are jdoe and asmith; the caller holds the KEK and the
    # signing key, and writes a policy of their own in which anyone may approve and export.
    app = _appliance(tmp_path, kek_file, kek, NOT_ME)
    own = _policy(tmp_path / "own-policy", "")
    fresh = tmp_path / "mine" / "audit.duckdb"
    by_env = {"MEDHELM_POLICY_DIR": str(own), "MEDHELM_AUDIT_STORE": str(fresh)}
    approved = app.cli("policy", "approve", "--role", "compliance_officer", env=by_env)
    assert approved.returncode == 2, approved.stdout + approved.stderr
    assert "'audit_store' is no longer a setting" in approved.stderr and "installation" in approved.stderr
    code, said = app.export("by-env", env=by_env)
    assert code == 2 and not (app.root / "by-env").exists(), said
    own_config = tmp_path / "own.toml"
    own_config.write_text(app.config.read_text() + f'policy_dir = "{own}"\naudit_store = "{fresh}"\n')
    by_config = app.cli("policy", "approve", "--role", "compliance_officer", config=own_config)
    assert by_config.returncode == 2 and "'audit_store' is no longer a setting" in by_config.stderr
    assert not fresh.exists()
    # In the installation's own log, still empty, the first approval is checked against IT's policy, not theirs.
    by_own = {"MEDHELM_POLICY_DIR": str(own)}
    refused = app.cli("policy", "approve", "--role", "compliance_officer", env=by_own)
    assert refused.returncode == 5, refused.stdout + refused.stderr
    assert f"user '{ME}' does not hold role 'compliance_officer'" in refused.stderr
    code, said = app.export("by-own", env=by_own)
    assert code == 5 and "no policy and redaction rule pack have been approved" in said
    assert not (app.root / "by-own").exists()
    kinds = [r["kind"] for r in app.records()]
    assert "policy.approve_refused" in kinds and "export.refused" in kinds and "policy.approved" not in kinds


def test_a_copied_old_log_cannot_bring_back_a_superseded_approval(tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    app = _appliance(tmp_path, kek_file, kek, JUST_ME)
    first = shutil.copytree(tmp_path / "etc-policies", tmp_path / "policy-v1")
    with app.config.open("a") as fh:
        fh.write(f'policy_dir = "{first}"\n')
    assert app.cli("policy", "approve", "--role", "compliance_officer").returncode == 0
    assert app.export("v1")[0] == 0
    old = tmp_path / "old-copy"
    old.mkdir()
    for name in ("audit.duckdb", "audit.duckdb.key"):  # the log (a store and its key), not the appliance's note
        shutil.copy(app.audit.parent / name, old / name)
    # The compliance officer approves a stricter policy: private completions no longer leave.
    second = shutil.copytree(first, tmp_path / "policy-v2")
    export = second / "export.yaml"
    text = export.read_text()
    private = text.index("\n  private:")
    export.write_text(text[:private] + text[private:].replace("completions: redacted", "completions: never", 1))
    assert app.cli("policy", "approve", "--role", "compliance_officer",
                   env={"MEDHELM_POLICY_DIR": str(second)}).returncode == 0
    code, said = app.export("v1-again")
    assert code == 5 and "not the approved one" in said
    # Pointing the program at the old copy is not possible any more...
    code, said = app.export("by-env", env={"MEDHELM_AUDIT_STORE": str(old / "audit.duckdb")})
    assert code == 2 and not (app.root / "by-env").exists(), said
    # ... and putting it in the log's place is found: the appliance noted a newer checkpoint beside the log.
    for path in old.iterdir():
        shutil.copy(path, app.audit.parent / path.name)
    code, said = app.export("replayed")
    assert code == 4, said
    assert "does not continue the last checkpoint this appliance recorded" in said and "older copy" in said
    assert not (app.root / "replayed").exists()
    verified = app.cli("audit", "verify")
    assert verified.returncode == 4 and "does not continue" in verified.stderr
    assert app.cli("policy", "approve", "--role", "compliance_officer").returncode == 4


def test_a_removed_log_is_not_replaced_by_a_fresh_one(tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    app = _appliance(tmp_path, kek_file, kek, JUST_ME)
    assert app.cli("policy", "approve", "--role", "compliance_officer").returncode == 0
    for path in app.audit.parent.glob("audit.duckdb*"):
        if not path.name.endswith(".head"):
            path.unlink()
    approved = app.cli("policy", "approve", "--role", "compliance_officer")
    assert approved.returncode == 4 and "the audit log is missing" in approved.stderr
    code, said = app.export("after-removal")
    assert code == 4 and "the audit log is missing" in said
    assert not app.audit.exists()  # nothing started a new log in its place


def test_the_first_approval_is_checked_against_the_installed_policy(tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    app = _appliance(tmp_path, kek_file, kek, JUST_ME)
    approved = app.cli("policy", "approve", "--role", "compliance_officer",
                       env={"MEDHELM_POLICY_DIR": str(_policy(tmp_path / "own", ""))})
    assert approved.returncode == 0, approved.stderr
    [record] = [r for r in app.records() if r["kind"] == "policy.approved"]
    assert str(tmp_path / "etc-policies") in record["details"]["checked_against"]  # type: ignore[index]
    doctor = app.cli("doctor", "--json", "--no-settings")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert checks["installation"]["ok"] and str(app.installed.file) in checks["installation"]["detail"]
    assert str(app.audit) in checks["installation"]["detail"]


def test_a_log_kept_without_a_note_is_refused_until_adopted(tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    # A log kept by a version that wrote no note beside it: the compliance officer adopts it once.
    app = _appliance(tmp_path, kek_file, kek, JUST_ME)
    assert app.cli("policy", "approve", "--role", "compliance_officer").returncode == 0
    (app.audit.parent / "audit.duckdb.head").unlink()
    code, said = app.export("no-note")
    assert code == 4 and "has no note of its last one" in said
    assert app.cli("audit", "checkpoint").returncode == 4
    adopted = app.cli("audit", "checkpoint", "--adopt")
    assert adopted.returncode == 0, adopted.stderr
    assert app.export("adopted")[0] == 0
    assert [r for r in app.records() if r["kind"] == "audit.checkpoint" and r["details"].get("adopted")]  # type: ignore[union-attr]


@pytest.mark.parametrize(("text", "message"), [
    ('audit_log = "relative/audit.duckdb"\n', "entry 'audit_log': must be an absolute path"),
    ('audit_log = "/var/x.duckdb"\naudit_stor = "/x"\n', "entry 'audit_stor': unknown setting"),
    ("audit_log = \n", "not valid TOML"),
])
def test_a_bad_installation_file_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    installed = install(tmp_path / "opt")
    installed.file.parent.mkdir(parents=True)
    installed.file.write_text(text)
    done = installed.run("policy", "check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr and str(installed.file) in done.stderr and "Traceback" not in done.stderr
