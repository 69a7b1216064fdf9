"""`medhelm-local policy check` as a user runs it: the CLI's own main(), in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import SHIPPED_POLICIES, write_config, write_policy_dir

# The real entry point of the command line.
_MAIN = """
import sys
from medhelm_local.cli import main as m
sys.argv = ["medhelm-local", *sys.argv[1:]]
m.main()
"""


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _MAIN, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {}), "COLUMNS": "200"})


def test_check_explains_the_shipped_policy() -> None:
    done = _cli("policy", "check")
    assert done.returncode == 0, done.stderr
    assert f"The policy in {SHIPPED_POLICIES} is valid" in done.stdout
    assert "everything not listed" in done.stdout and "deny" in done.stdout
    assert "127.0.0.1:11434" in done.stdout and "gated data" in done.stdout


def test_check_as_json_carries_the_fingerprint_and_every_rule(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [("10.0.0.5", 8000)])
    done = _cli("policy", "check", "--json", env={"MEDHELM_POLICY_DIR": str(folder)})
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["directory"] == str(folder) and len(data["digest"]) == 64
    assert data["egress"]["allow"] == [{"host": "10.0.0.5", "port": 8000, "purpose": "inference",
                                        "why": "test model server"}]
    assert {"section": "egress", "subject": "10.0.0.5:8000", "rule": "allowed (inference): test model server",
            "source": "egress.yaml"} in data["rules"]


def test_a_bad_policy_stops_with_file_line_and_key(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [("10.0.0.5", 8000)])
    (folder / "export.yaml").write_text((folder / "export.yaml").read_text().replace("redaction:", "redact:"))
    done = _cli("policy", "check", "--policy-dir", str(folder))
    assert done.returncode == 2
    assert "Error: export policy field 'redact': unknown field (did you mean 'redaction'?)" in done.stderr
    assert f"{folder / 'export.yaml'}, line" in done.stderr and "Traceback" not in done.stderr
    missing = _cli("policy", "check", "--policy-dir", str(tmp_path / "absent"))
    assert missing.returncode == 2 and "the policy folder does not exist" in missing.stderr


def test_deployments_off_the_allowlist_are_flagged(tmp_path: Path) -> None:
    folder = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000)])
    config = write_config(tmp_path / "config.toml", tmp_path / "data", tmp_path / "out", {
        "near": {"base_url": "http://127.0.0.1:8000/v1"}, "far": {"base_url": "https://llm.example/v1"}})
    done = _cli("-c", str(config), "policy", "check", "--policy-dir", str(folder))
    assert done.returncode == 0, done.stderr
    assert "deployment near" in done.stdout and "127.0.0.1:8000 permitted" in done.stdout
    assert "llm.example:443 NOT permitted" in done.stdout
    assert "1 configured endpoint(s) are not on the egress allowlist" in done.stdout
