"""`medhelm-local doctor` checks an installation the way an operator would: everything, one table."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import FakeServer, run_cli, write_config


def test_doctor_passes_on_a_working_installation_and_notes_absent_data(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"local": {"base_url": server.base_url}})
    result = run_cli("-c", str(config), "doctor", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert result.returncode == 0, result.stdout
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["encrypted store"]["ok"] and checks["data: pubmed_qa"]["ok"]
    assert "fake" in checks["deployment: local"]["detail"]
    assert checks["data: not imported"]["note"] and "head_qa" in checks["data: not imported"]["detail"]


def test_doctor_fails_on_changed_data_missing_key_and_dead_endpoint(
        tmp_path: Path, data_root: Path) -> None:
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"local": {"base_url": "http://127.0.0.1:9/v1"}})
    path = data_root / "pubmedqa" / "ori_pqal.json"
    path.write_bytes(path.read_bytes()[:-5])
    result = run_cli("-c", str(config), "doctor", "--json")
    assert result.returncode == 1
    failed = {c["name"]: c["detail"] for c in json.loads(result.stdout) if not c["ok"]}
    assert "sha256" in failed["data: pubmed_qa"]
    assert "no key-encryption key" in failed["key-encryption key"]
    assert "nothing answered" in failed["deployment: local"]


def test_doctor_checks_each_jury_and_names_a_judge_not_listed_for_judging(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    judge, other = fake_server(), fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"judge-a": {"base_url": judge.base_url, "model": "j"},
                           "judge-b": {"base_url": other.base_url, "model": "k"}}, judges=("judge-a",),
                          extra='jury = "good"\n[juries.good]\njudges = ["judge-a"]\n'
                                '[juries.bad]\njudges = ["judge-b"]')
    result = run_cli("-c", str(config), "doctor", "--json", env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert result.returncode == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)}
    assert checks["jury: good"]["ok"]
    assert "judge-a (j, 16 in flight); the default jury" in checks["jury: good"]["detail"]
    assert not checks["jury: bad"]["ok"] and "purpose inference, not judge" in checks["jury: bad"]["detail"]
