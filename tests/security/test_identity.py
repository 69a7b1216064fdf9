"""Item 1: who is exporting comes from the operating system or the platform, never from the environment."""

from __future__ import annotations

import base64
import json
import os
import pwd
from pathlib import Path

import pytest
from support.appliance import Appliance

from medhelm_local.policy.identity import os_user, platform_identity

REAL_USER = pwd.getpwuid(os.getuid()).pw_name


def test_a_spoofed_login_name_does_not_pass_a_members_check(appliance: Appliance) -> None:
    assert REAL_USER != "jdoe"
    appliance.edit_policy("roles.yaml", "    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")
    appliance.env.update({"LOGNAME": "jdoe", "USER": "jdoe", "LNAME": "jdoe", "USERNAME": "jdoe"})
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "spoof"), "--role", "compliance_officer")
    assert done.returncode == 5, done.stdout + done.stderr
    assert f"user '{REAL_USER}' does not hold role 'compliance_officer'" in done.stderr
    assert not (appliance.root / "spoof").exists()
    [record] = appliance.audit_records(outcomes_only=True)
    assert record["kind"] == "export.refused" and record["actor"] == REAL_USER  # the real name is what is recorded


def test_the_recorded_actor_is_the_real_user_whatever_the_environment_says(appliance: Appliance) -> None:
    appliance.env.update({"LOGNAME": "jdoe", "USER": "jdoe"})
    done = appliance.cli("export", "ward", "--to", str(appliance.root / "ok"), "--role", "data_scientist")
    assert done.returncode == 0, done.stderr
    manifest = json.loads((appliance.root / "ok" / "MANIFEST.json").read_text())
    assert manifest["created_by"]["user"] == REAL_USER == os_user()
    assert {r["actor"] for r in appliance.audit_records()} == {REAL_USER}


def _token(subject: str) -> str:
    def part(data: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'RS256'})}.{part({'sub': subject, 'iss': 'kubernetes'})}.c2lnbmF0dXJl"


@pytest.mark.skipif(os.getuid() != 0, reason="only root can make the root-owned token file the kubelet would mount")
def test_in_a_pod_the_service_account_is_the_identity(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(_token("system:serviceaccount:medhelm:exporter"))
    token.chmod(0o644)
    assert platform_identity(token) == "system:serviceaccount:medhelm:exporter"


def test_a_token_file_others_could_write_is_not_believed(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text(_token("system:serviceaccount:medhelm:exporter"))
    token.chmod(0o666)
    assert platform_identity(token) is None
    token.chmod(0o644)
    if os.getuid() != 0:  # a file a user made is theirs, not root's: not believed either
        assert platform_identity(token) is None
    token.write_text(_token("jdoe"))  # not a service account subject
    assert platform_identity(token) is None
    assert platform_identity(tmp_path / "absent") is None
