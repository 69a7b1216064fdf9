"""The container image builds with no registry and runs the program (marker `image`).

`deploy/container/build.sh` (make image) makes the base from Debian packages and builds with buildah;
here the result is started with `buildah run --isolation chroot` (podman's runtime does not work in
this environment) as the image's own non-root user.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import tomllib
from collections.abc import Iterator

import pytest
from conftest import REPO

pytestmark = pytest.mark.image
IMAGE_DIR = REPO / ".cache" / "image"
STORE = ["--root", str(IMAGE_DIR / "storage"), "--runroot", str(IMAGE_DIR / "run"), "--storage-driver", "vfs"]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
IMAGE = f"localhost/medhelm-local:{VERSION}"


def _buildah(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["buildah", *STORE, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def container() -> Iterator[str]:
    """A working container of the freshly built image."""
    missing = [tool for tool in ("buildah", "mmdebstrap") if shutil.which(tool) is None]
    if missing or os.geteuid() != 0:
        pytest.skip(f"needs root and {' and '.join(missing) or 'buildah'}: apt-get install buildah mmdebstrap "
                    "(.ci/run does)")
    if not (REPO / ".cache" / "wheelhouse" / "requirements.lock").exists():
        pytest.skip("no wheelhouse: `make wheelhouse` builds it (make test does)")
    built = subprocess.run(["bash", str(REPO / "deploy" / "container" / "build.sh")], capture_output=True,
                           text=True, timeout=1500)
    assert built.returncode == 0, built.stderr[-4000:]
    made = _buildah("from", "--quiet", IMAGE)
    assert made.returncode == 0, made.stderr
    name = made.stdout.strip()
    yield name
    _buildah("rm", name)


def _run(container: str, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    flags = [arg for k, v in (env or {}).items() for arg in ("--env", f"{k}={v}")]
    return _buildah("run", "--isolation", "chroot", *flags, container, "--", *command)


def test_the_image_runs_the_cli_as_a_non_root_user(container: str) -> None:
    helped = _run(container, "medhelm-local", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "Usage: medhelm-local" in helped.stdout and "doctor" in helped.stdout
    assert _run(container, "id", "-u").stdout.strip() == "10001"
    config = _buildah("inspect", "--type", "image", "--format", "{{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.User}}",
                      IMAGE)
    assert config.stdout.strip() == "[medhelm-local] 10001:10001"


def test_doctor_passes_inside_the_image(container: str) -> None:
    doctor = _run(container, "medhelm-local", "doctor",
                  env={"MEDHELM_KEK": secrets.token_hex(32), "COLUMNS": "200"})
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    for check in ("duckdb + httpfs", "encrypted store"):
        assert re.search(rf"{re.escape(check)}\s+│ ok", doctor.stdout), doctor.stdout
    policy = _run(container, "medhelm-local", "policy", "check", env={"COLUMNS": "200"})
    assert "The policy in /opt/medhelm-local/share/medhelm-local/policies is valid" in policy.stdout, policy.stderr


def test_the_image_holds_no_compiler_pip_or_wheelhouse(container: str) -> None:
    probe = ("for t in gcc cc c++ g++ clang ld make apt-get pip pip3; do command -v $t; done; "
             "ls -d /wheelhouse /opt/medhelm-local/bin/pip* 2>/dev/null; true")
    found = _run(container, "sh", "-c", probe)
    assert found.returncode == 0 and found.stdout.strip() == "", found.stdout


def test_the_archive_for_the_secure_network_is_written() -> None:
    archive = IMAGE_DIR / f"medhelm-local-{VERSION}.oci.tar"
    if not archive.exists():
        pytest.skip("the image was not built here (see the other tests' skip reason)")
    assert archive.stat().st_size > 50 * 2**20
    listing = subprocess.run(["tar", "-tf", str(archive)], capture_output=True, text=True, timeout=60)
    assert "index.json" in listing.stdout.split() and "oci-layout" in listing.stdout.split()
