"""Egress layer (c) from the program's side: the chart's values come from egress.yaml, and `policy check`
explains what the chart rendered, or says the layer is not in use."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml
from conftest import CLI, write_policy_dir

from medhelm_local.policy.loader import load_policy
from medhelm_local.policy.networkpolicy import chart_values, egress_digest, values_file


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=120, env=None)


def _policy(tmp_path: Path, hosts: list[tuple[str, int]]) -> Path:
    return write_policy_dir(tmp_path / "policies", hosts)


def _network_rows(stdout: str) -> dict[str, str]:
    return {r["subject"]: r["rule"] for r in json.loads(stdout)["rules"] if r["section"] == "network"}


def test_each_host_becomes_the_peer_a_networkpolicy_can_express(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000), ("fd00::7", 8000), ("vllm.medhelm.svc.cluster.local", 8000),
                                ("judge.models.svc", 9000), ("gpu01.hospital.example", 8443)])
    endpoints = chart_values(load_policy(folder))["policy"]["egress"]
    assert [(e["kind"], e.get("cidr"), e.get("namespace"), e.get("service")) for e in endpoints] == [
        ("address", "10.0.0.5/32", None, None), ("address", "fd00::7/128", None, None),
        ("service", None, "medhelm", "vllm"), ("service", None, "models", "judge"), ("name", None, None, None)]


def test_the_values_file_carries_the_policy_files_byte_for_byte(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000)])
    policy = load_policy(folder)
    parsed = yaml.safe_load(values_file(policy))
    assert parsed == chart_values(policy)
    for name, text in parsed["policy"]["files"].items():
        assert text.encode() == (folder / name).read_bytes()
    assert parsed["policy"]["digest"] == policy.digest
    assert parsed["policy"]["egressDigest"] == egress_digest(parsed["policy"]["egress"])


def test_chart_values_writes_the_file_and_refuses_a_bad_policy(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000)])
    out = tmp_path / "site-policy.yaml"
    done = _cli("policy", "chart-values", "--policy-dir", str(folder), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text() == values_file(load_policy(folder))

    (folder / "egress.yaml").write_text("default: allow\nallow: []\n")
    refused = tmp_path / "refused.yaml"
    done = _cli("policy", "chart-values", "--policy-dir", str(folder), "--out", str(refused))
    assert done.returncode == 2 and "egress policy field 'default'" in done.stderr and "Traceback" not in done.stderr
    assert not refused.exists() and list(tmp_path.glob(".refused*")) == []


def test_chart_values_onto_a_symlink_or_fifo_is_refused(tmp_path: Path) -> None:
    """Issue 29, finding 8 (outputs that are not regular files), for `policy chart-values --out`."""
    folder = _policy(tmp_path, [("10.0.0.5", 8000)])
    target = tmp_path / "somewhere.yaml"
    target.write_text("keep me\n")
    link, fifo = tmp_path / "link.yaml", tmp_path / "fifo.yaml"
    link.symlink_to(target)
    os.mkfifo(fifo)
    for out, kind in ((link, "a symbolic link"), (fifo, "a FIFO")):
        done = _cli("policy", "chart-values", "--policy-dir", str(folder), "--out", str(out))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"the output path is {kind}" in " ".join(done.stderr.split())
    assert link.is_symlink() and target.read_text() == "keep me\n" and fifo.is_fifo()


def test_check_outside_the_chart_says_the_layer_is_not_in_use(tmp_path: Path) -> None:
    done = _cli("policy", "check", "--json", "--policy-dir", str(_policy(tmp_path, [("10.0.0.5", 8000)])))
    assert done.returncode == 0, done.stderr
    rule = _network_rows(done.stdout)["NetworkPolicy (layer c)"]
    assert rule.startswith("not in use here: no rendered NetworkPolicy is described at "
                           "/etc/medhelm-local/networkpolicy.json")


def _described(policy_digest: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": 1, "release": "r1", "namespace": "medhelm", "enabled": True, "policy_digest": policy_digest,
            "rules": rules, "dns": None}


def test_check_flags_a_networkpolicy_that_differs_from_egress_yaml(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000), ("10.0.0.6", 8000)])
    rule = {"host": "10.0.0.5", "port": 8000, "purpose": "inference", "to": [{"ipBlock": {"cidr": "10.0.0.5/32"}}],
            "ports": [{"protocol": "TCP", "port": 8000}]}
    stale = {**rule, "host": "10.0.0.9", "to": [{"ipBlock": {"cidr": "10.0.0.9/32"}}]}
    described = tmp_path / "networkpolicy.json"
    described.write_text(json.dumps(_described("0" * 64, [rule, stale])))

    done = _cli("policy", "check", "--json", "--policy-dir", str(folder), "--networkpolicy", str(described))

    rows = _network_rows(done.stdout)
    assert rows["egress 10.0.0.5:8000"] == "allowed (inference) to address 10.0.0.5/32 on TCP 8000"
    assert rows["DNS"] == "none: every allowed host is an IP address"
    agreement = rows["agreement with egress.yaml"]
    assert agreement.startswith("DIFFERS: egress.yaml allows 10.0.0.6:8000 but the NetworkPolicy does not")
    assert "the NetworkPolicy allows 10.0.0.9:8000 which egress.yaml does not" in agreement
    assert "rendered from policy sha256 0000000000000000..." in agreement
    shown = _cli("policy", "check", "--policy-dir", str(folder), "--networkpolicy", str(described))
    assert "The cluster's NetworkPolicy and egress.yaml disagree" in shown.stdout


def test_an_unreadable_description_or_a_missing_given_path_is_an_error(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000)])
    broken = tmp_path / "networkpolicy.json"
    broken.write_text("{not json")
    done = _cli("policy", "check", "--policy-dir", str(folder), "--networkpolicy", str(broken))
    assert done.returncode == 2 and "the NetworkPolicy description is not valid JSON" in done.stderr
    missing = _cli("policy", "check", "--policy-dir", str(folder), "--networkpolicy", str(tmp_path / "absent.json"))
    assert missing.returncode == 2 and "there is no NetworkPolicy description at the path given" in missing.stderr


def test_a_staging_entry_never_reaches_the_cluster(tmp_path: Path) -> None:
    folder = _policy(tmp_path, [("10.0.0.5", 8000)])
    (folder / "egress.yaml").write_text((folder / "egress.yaml").read_text() + (
        "  - host: raw.githubusercontent.com\n    port: 443\n    purpose: staging\n    why: public benchmark data\n"))
    done = _cli("policy", "chart-values", "--policy-dir", str(folder), "--out", str(tmp_path / "values.yaml"))
    assert done.returncode == 2 and "raw.githubusercontent.com:443 with purpose staging" in done.stderr
    assert "never in the cluster's" in done.stderr and not (tmp_path / "values.yaml").exists()
