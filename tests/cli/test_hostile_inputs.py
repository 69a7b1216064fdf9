"""Item 15: broken or hostile inputs that used to crash or mislead, each now a clear error."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config
from support.appliance import Appliance

BINARY = bytes(range(256)) * 4
ENTRY = "pubmed_qa:model=local/fake,model_deployment=fake"


def _clear(done: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert done.returncode == code and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_binary_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(BINARY)
    _clear(run_cli("-c", str(config), "runs", "list"), 2, "the config file is not UTF-8 text")


def test_a_binary_conf_file_and_an_unknown_benchmark_in_one(tmp_path: Path, kek_file: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    conf = tmp_path / "entries.conf"
    conf.write_bytes(BINARY)
    _clear(run_cli("run", "--conf", str(conf), env=env), 2, "not UTF-8 text")
    conf.write_text('entries: [\n  {description: "pubmed_qa:model=a/b,model_deployment=d", priority: 1},\n'
                    '  {description: "no_such_bench:model=a/b,model_deployment=d", priority: 1},\n]\n')
    _clear(run_cli("run", "--conf", str(conf), env=env), 2, f"no benchmark is called 'no_such_bench'. Where: {conf}, "
                                                            "line 3")


@pytest.mark.parametrize("url", ["http://127.0.0.1:99999/v1", "http://127.0.0.1:port/v1", "http://[::1/v1"])
def test_a_malformed_base_url(tmp_path: Path, data_root: Path, kek_file: Path, url: str) -> None:
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {"base_url": url}},
                          allow_deployments=False)
    done = run_cli("-c", str(config), "run", ENTRY, env={"MEDHELM_KEK_FILE": str(kek_file)})
    _clear(done, 2, "setting 'deployments.fake.base_url' is invalid")


@pytest.fixture
def unwritable(tmp_path: Path) -> Path:
    """A folder in which nothing can be created, even by root (a read-only file system, else mode 0555)."""
    if os.getuid() == 0:
        target = Path("/sys/medhelm-local-test")
    else:
        target = tmp_path / "read-only"
        target.mkdir()
        target.chmod(0o555)
    try:
        (target / "probe").mkdir(parents=True)
    except OSError:
        return target
    pytest.skip(f"{target} is writable here")


def test_a_read_only_output_folder_or_key_target(tmp_path: Path, data_root: Path, kek_file: Path,
                                                 fake_server: Callable[..., FakeServer], unwritable: Path) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, unwritable / "results",
                          {"fake": {"base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    _clear(run_cli("-c", str(config), "run", ENTRY, "-m", "2", env=env), 2, str(unwritable))
    assert server.stats()["requests"] == 0
    _clear(run_cli("keys", "init", "--out", str(unwritable / "kek")), 2, str(unwritable))
    _clear(run_cli("keys", "signing-init", "--out", str(unwritable / "signing.key"), env=env), 2, str(unwritable))


def test_duplicate_keys_in_a_policy_file(tmp_path: Path) -> None:
    from conftest import write_policy_dir

    policies = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000)])
    export = policies / "export.yaml"
    export.write_text(export.read_text().replace("redaction:\n  style: mask\n",
                                                 "redaction:\n  style: mask\n  style: surrogate\n"))
    done = run_cli("policy", "check", "--policy-dir", str(policies))
    _clear(done, 2, "gives 'redaction.style' twice")
    assert f"{export}, line" in done.stderr


def test_audit_show_with_a_kind_that_does_not_exist(appliance: Appliance) -> None:
    _clear(appliance.cli("audit", "show", "--kind", "bogus"), 2, "no audit record kind is 'bogus'")
    shown = appliance.cli("audit", "show", "--kind", "policy", "--json")
    assert shown.returncode == 0 and [r["kind"] for r in json.loads(shown.stdout)] == ["policy.approved"]


def test_audit_verify_with_a_bundle_checks_its_files_not_only_its_manifest(appliance: Appliance) -> None:
    bundle = appliance.root / "b"
    assert appliance.cli("export", "ward", "--to", str(bundle), "--role", "data_scientist").returncode == 0
    assert appliance.cli("audit", "verify", "--bundle", str(bundle)).returncode == 0
    scores = bundle / "scores.jsonl"
    scores.write_text(scores.read_text().replace('"value": 1.0', '"value": 0.0'))
    _clear(appliance.cli("audit", "verify", "--bundle", str(bundle)), 4,
           "scores.jsonl differs from the signed manifest")
