"""Issue 29, finding 3: every trust input is read once, from a regular file.

A policy file read twice (parsed, then read again for its digest) let a FIFO serve the approved bytes to
the digest and other bytes to the parser: a non-member exported while the manifest and the audit log
named the approved policy. These tests serve exactly that, from a real FIFO with a writer thread.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPO
from support.appliance import Appliance

from medhelm_local.errors import ConfigError
from medhelm_local.policy.loader import load_policy

MEMBERS = ("    # members: [jdoe, asmith]", "    members: [jdoe, asmith]")  # the caller is neither


class FifoServer:
    """A FIFO at `path` whose n-th reader gets `texts[n % len(texts)]`, served by a thread until stopped."""

    def __init__(self, path: Path, texts: list[str]) -> None:
        self.path, self.texts, self.served = path, [t.encode() for t in texts], 0
        path.unlink(missing_ok=True)
        os.mkfifo(path)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)  # fails until a reader has it open
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
                time.sleep(0.002)
                continue
            try:
                os.set_blocking(fd, True)
                os.write(fd, self.texts[self.served % len(self.texts)])
            except BrokenPipeError:  # the reader looked and went away without reading
                pass
            finally:
                os.close(fd)
            self.served += 1
            time.sleep(0.2)  # let this reader see the end before the next one is served

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


@pytest.fixture
def fifos() -> Iterator[list[FifoServer]]:
    made: list[FifoServer] = []
    yield made
    for server in made:
        server.stop()


def _export(appliance: Appliance, name: str) -> tuple[int, str]:
    from conftest import run_cli

    done = run_cli("-c", str(appliance.config), "export", "ward", "--to", str(appliance.root / name), "--role",
                   "compliance_officer", env=appliance.env, timeout=120)
    return done.returncode, done.stdout + done.stderr


def _drop_members(text: str) -> str:
    return text.replace(MEMBERS[1], MEMBERS[0])


def _private_prompts_out(text: str) -> str:
    private = text.index("\n  private:")
    return text[:private] + text[private:].replace("prompts: never", "prompts: redacted", 1)


@pytest.mark.parametrize(("name", "approved", "evil"), [
    # The approved roles list members the caller is not one of; the parser is served the file without them.
    ("roles.yaml", MEMBERS, _drop_members),
    # The approved export policy says private prompts never leave; the parser is served one that lets them out.
    ("export.yaml", ("style: mask", "style: mask"), _private_prompts_out),
])
def test_a_fifo_serving_other_bytes_to_the_parser_cannot_pass_for_the_approved_policy(
        appliance: Appliance, fifos: list[FifoServer], name: str, approved: tuple[str, str],
        evil: Callable[[str], str]) -> None:
    appliance.edit_policy(name, *approved)
    path = appliance.root / "policies" / name
    approved_text = path.read_text()
    served = evil(approved_text)
    assert served != approved_text
    # Each load read the file to parse it, then again for its digest: the served bytes first, the approved second.
    fifos.append(FifoServer(path, [served, approved_text]))
    code, said = _export(appliance, "bundle")
    assert code == 2, said
    assert "is a FIFO (named pipe), not a regular file" in said and str(path) in said
    assert not (appliance.root / "bundle").exists()
    fifos.pop().stop()
    path.unlink()
    path.write_text(approved_text)  # every command reads the policy: put the reviewed file back to look at the log
    assert not [r for r in appliance.audit_records() if r["kind"] == "export.allowed"]


def test_the_digest_is_of_the_bytes_that_were_parsed(tmp_path: Path) -> None:
    policies = shutil.copytree(REPO / "policies", tmp_path / "policies")
    policy = load_policy(policies)
    for name, text in policy.texts.items():
        assert text == (policies / name).read_text()
    import hashlib

    assert policy.file_sha256 == {n: hashlib.sha256(t.encode()).hexdigest() for n, t in policy.texts.items()}


def _policy_check(policies: Path) -> subprocess.CompletedProcess[str]:
    """`policy check` on `policies` as a user runs it, in a process that may not hang or grow without end."""
    from conftest import CLI

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    try:
        return subprocess.run([str(CLI), "policy", "check", "--policy-dir", str(policies)], capture_output=True,
                              text=True, timeout=60, preexec_fn=limits, env={**os.environ, "COLUMNS": "200"})
    except subprocess.TimeoutExpired:
        pytest.fail("reading the policy hung (a FIFO with no writer, or an endless device, was read)")


def test_a_fifo_policy_file_is_refused_at_once_without_a_writer(tmp_path: Path) -> None:
    policies = shutil.copytree(REPO / "policies", tmp_path / "policies")
    (policies / "retention.yaml").unlink()
    os.mkfifo(policies / "retention.yaml")  # nobody writes: a reader that waited for one would hang here
    done = _policy_check(policies)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "the retention policy is a FIFO (named pipe), not a regular file" in done.stderr
    assert str(policies / "retention.yaml") in done.stderr and "Traceback" not in done.stderr


def test_a_device_or_a_socket_as_a_policy_file_is_refused(tmp_path: Path) -> None:
    policies = shutil.copytree(REPO / "policies", tmp_path / "policies")
    (policies / "egress.yaml").unlink()
    (policies / "egress.yaml").symlink_to("/dev/zero")  # endless: reading it whole would never finish
    done = _policy_check(policies)
    assert done.returncode == 2 and "the egress policy is a character device" in done.stderr, done.stderr
    (policies / "egress.yaml").unlink()
    shutil.copy(REPO / "policies" / "egress.yaml", policies / "egress.yaml")
    (policies / "roles.yaml").unlink()
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(policies / "roles.yaml"))
        with pytest.raises(ConfigError, match="roles policy is a socket"):
            load_policy(policies)


def test_a_symlink_to_a_regular_file_is_read_and_digested_as_that_file(tmp_path: Path) -> None:
    # Kubernetes mounts each ConfigMap key as a symlink; what counts is the bytes read through it.
    policies = shutil.copytree(REPO / "policies", tmp_path / "policies")
    target = tmp_path / "reviewed" / "roles.yaml"
    target.parent.mkdir()
    shutil.move(policies / "roles.yaml", target)
    (policies / "roles.yaml").symlink_to(target)
    linked = load_policy(policies)
    assert linked.digest == load_policy(REPO / "policies").digest
    (policies / "audit.yaml").symlink_to(tmp_path / "gone.yaml")  # dangling: refused, not taken for absent
    with pytest.raises(ConfigError, match="audit policy does not exist"):
        load_policy(policies)


def test_a_rule_pack_with_a_fifo_is_refused_and_nothing_leaves(appliance: Appliance, fifos: list[FifoServer]) -> None:
    pack = shutil.copytree(REPO / "redaction", appliance.root / "pack")
    with appliance.config.open("a") as fh:
        fh.write(f'redaction_dir = "{pack}"\n')
    appliance.approve()
    rules = (pack / "rules.yaml").read_text()
    start, end = rules.index("\npatterns:\n"), rules.index("\nlabels:")
    weak = rules[:start] + "\npatterns: []\n" + rules[end:]
    fifos.append(FifoServer(pack / "rules.yaml", [rules, weak]))  # digest first, rules second (the old order)
    code, said = _export(appliance, "bundle")
    assert code == 2, said
    assert "redaction rule file is a FIFO" in said and str(pack / "rules.yaml") in said
    assert not (appliance.root / "bundle").exists()
    refused = appliance.cli("policy", "approve", "--role", "compliance_officer")
    assert refused.returncode == 2 and "FIFO" in refused.stderr


def test_a_symlinked_folder_in_a_rule_pack_is_refused(tmp_path: Path) -> None:
    # Its files would be used by the detector but left out of the digest that approvals pin.
    from medhelm_local.redact.pack import read_rule_pack

    pack = shutil.copytree(REPO / "redaction", tmp_path / "pack")
    shutil.move(pack / "dictionaries", tmp_path / "elsewhere")
    (pack / "dictionaries").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="symlinked folder"):
        read_rule_pack(pack)


def test_the_rule_pack_digest_is_unchanged_for_a_plain_pack() -> None:
    # Approvals recorded before this change name the same digest for the same files.
    import hashlib

    from medhelm_local.redact.pack import read_rule_pack

    folder = REPO / "redaction"
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(folder)}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    assert read_rule_pack(folder).digest == h.hexdigest()
    assert json.dumps(sorted(read_rule_pack(folder).files)) == json.dumps(
        sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()))
