"""The offline install: from the wheelhouse alone, inside a network namespace with no route anywhere.

`make wheelhouse` (which `make test` runs first) fills .cache/wheelhouse; this test installs it into
a new virtual environment where any attempt to reach an index fails at once, then runs the
program's own checks there.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

WHEELHOUSE = REPO / ".cache" / "wheelhouse"
LOCKS = REPO / "deploy" / "wheelhouse"


def _pins(text: str) -> dict[str, str]:
    return {re.sub(r"[-_.]+", "-", m[1]).lower(): m[2] for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)}


def test_the_locks_pin_every_runtime_dependency_at_pyprojects_version() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    locked = _pins((LOCKS / "wheels.lock").read_text()) | _pins((LOCKS / "sources.lock").read_text())
    for requirement in pyproject["project"]["dependencies"]:
        name, version = requirement.split("==")
        assert locked.get(re.sub(r"[-_.]+", "-", name).lower()) == version, (
            f"{requirement} is not what deploy/wheelhouse locks: run `make wheelhouse-lock`")
    assert all("--hash=sha256:" in block for block in (LOCKS / "wheels.lock").read_text().split("==")[1:])


@pytest.fixture
def offline_namespace() -> Iterator[str]:
    """A network namespace holding only a loopback interface that is down: no route to anything."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and ip (iproute2) to make a network namespace; CI runs as root")
    if not (WHEELHOUSE / "requirements.lock").exists():
        pytest.skip("no wheelhouse: `make wheelhouse` builds it (make test does)")
    name = f"mhl-wh{os.getpid() % 100000}"
    subprocess.run(["ip", "netns", "add", name], check=True, capture_output=True, timeout=60)
    try:
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=60)


def _in(namespace: str, *args: str, env: dict[str, str], timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", "netns", "exec", namespace, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.mark.netns
def test_the_wheelhouse_installs_and_runs_with_no_network(offline_namespace: str, tmp_path: Path) -> None:
    base_python = getattr(sys, "_base_executable", sys.executable)
    # Nothing from this machine's pip configuration (extra indexes, find-links) may help.
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PIP_CONFIG_FILE": os.devnull,
           "PIP_DISABLE_PIP_VERSION_CHECK": "1", "COLUMNS": "200"}
    venv = tmp_path / "venv"
    made = _in(offline_namespace, base_python, "-m", "venv", str(venv), env=env)
    assert made.returncode == 0, made.stderr
    pip = str(venv / "bin" / "pip")

    online = _in(offline_namespace, pip, "download", "--no-deps", "--retries", "0", "--timeout", "5", "-d",
                 str(tmp_path / "dl"), "six", env=env, timeout=120)
    installed = _in(offline_namespace, pip, "install", "--no-index", "--find-links", str(WHEELHOUSE),
                    "--require-hashes", "-r", str(WHEELHOUSE / "requirements.lock"), env=env)

    assert online.returncode != 0  # the index is unreachable from here
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    cli = str(venv / "bin" / "medhelm-local")
    run_env = env | {"MEDHELM_KEK": secrets.token_hex(32), "MEDHELM_SECRETS_DIR": str(tmp_path / "none")}
    doctor = _in(offline_namespace, cli, "doctor", env=run_env, timeout=120)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    for check in ("duckdb + httpfs", "encrypted store"):
        assert re.search(rf"{re.escape(check)}\s+│ ok", doctor.stdout), doctor.stdout
    policy = _in(offline_namespace, cli, "policy", "check", env=run_env, timeout=120)
    assert policy.returncode == 0, policy.stderr
    assert f"The policy in {venv / 'share' / 'medhelm-local' / 'policies'} is valid" in policy.stdout
