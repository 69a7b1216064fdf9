"""Egress layer (b), the audit-hook guard, run in subprocesses (an audit hook cannot be removed).

Two loopback servers stand by: one on the allowed port, one on a refused port. Every way out
is tried from a guarded process; the refused server must never see a connection.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, dev_audit_log, run_cli, write_config, write_policy_dir

from medhelm_local.audit.log import AuditLog
from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.policy.guard import EgressGuard, GuardRefusedError
from medhelm_local.store.keys import Kek

HERE = Path(__file__).resolve().parent


class _Reply(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        server: CountingServer = self.server  # type: ignore[assignment]
        server.connections += 1
        self.request.settimeout(2)
        try:
            self.request.recv(65536)
        except OSError:
            pass
        self.request.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\na,b\n")


class CountingServer(socketserver.ThreadingTCPServer):
    """A threaded loopback server that answers HTTP 200 and counts connections."""

    daemon_threads = True
    connections = 0


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[CountingServer, CountingServer]]:
    pair = (CountingServer(("127.0.0.1", 0), _Reply), CountingServer(("127.0.0.1", 0), _Reply))
    for server in pair:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield pair
    for server in pair:
        server.shutdown()
        server.server_close()


def _port(server: CountingServer) -> int:
    return int(server.server_address[1])


@pytest.fixture(scope="module")
def probed(servers: tuple[CountingServer, CountingServer],
           tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The probe's report (results and refusals) and its stderr, from one guarded subprocess."""
    allowed, refused = servers
    proc = subprocess.run([sys.executable, str(HERE / "guard_probe.py"), str(_port(allowed)), str(_port(refused)),
                           str(tmp_path_factory.mktemp("probe"))], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1]), proc.stderr


def test_every_way_out_is_refused_except_the_allowed_endpoint(
        servers: tuple[CountingServer, CountingServer], probed: tuple[dict[str, Any], str]) -> None:
    allowed, refused = servers
    results: dict[str, str] = probed[0]["results"]
    for name, outcome in results.items():
        if name.endswith("_refused"):
            assert outcome == "refused", f"{name}: {outcome}"
        elif name.endswith(("_allowed", "_works", "_degrades")):
            assert outcome == "ok", f"{name}: {outcome}"
    # DuckDB never reaches the network from a store, whatever the port: external access is off and locked.
    assert "file system operations are disabled" in results["duckdb_refused_port"]
    assert "file system operations are disabled" in results["duckdb_allowed_port"]
    assert "locked" in results["duckdb_unlock"]
    assert results["find_library_result"] == "None"
    assert refused.connections == 0
    assert allowed.connections == 3  # raw socket, urllib, httpx2


def test_refusals_are_recorded_without_phi(servers: tuple[CountingServer, CountingServer],
                                          probed: tuple[dict[str, Any], str]) -> None:
    refused = servers[1]
    refusals: list[dict[str, Any]] = probed[0]["refusals"]
    events = {r["event"] for r in refusals}
    assert {"socket.connect", "socket.sendto", "socket.getaddrinfo", "socket.gethostbyname", "subprocess.Popen",
            "os.system", "ctypes.dlopen"} <= events
    text = json.dumps(refusals) + probed[1]
    assert "example.com" not in text  # refused host names are fingerprinted: DNS names can carry data out
    assert "x.csv" not in text and "-s" not in json.dumps([r["target"] for r in refusals])  # never arguments
    assert f"127.0.0.1:{_port(refused)}" in text
    assert all(set(r) == {"layer", "event", "target", "reason", "pid", "at"} for r in refusals)


def test_allowlisted_names_may_be_looked_up_and_reached_by_address() -> None:
    guard = EgressGuard(Allowlist([("localhost", 8000), ("10.0.0.5", 9000)]))
    tcp = socket.socket()
    try:
        assert guard.check("socket.getaddrinfo", ("localhost", 8000, 0, 0, 0)) is None
        assert guard.check("socket.getaddrinfo", ("10.9.9.9", 80, 0, 0, 0)) is None  # numeric: no query sent
        assert guard.check("socket.getaddrinfo", (None, 0, 0, 0, 0)) is None
        assert guard.check("socket.getaddrinfo", ("evil.example", 80, 0, 0, 0)) is not None
        assert guard.check("socket.connect", (tcp, ("127.0.0.1", 8000))) is None  # localhost resolves here
        assert guard.check("socket.connect", (tcp, ("127.0.0.1", 8001))) is not None
        assert guard.check("socket.connect", (tcp, ("::ffff:10.0.0.5", 9000))) is None  # IPv4-mapped form
        assert guard.check("socket.connect", (tcp, ("10.0.0.5", 9001))) is not None
        assert guard.check("socket.gethostbyaddr", ("10.0.0.6",)) is not None
    finally:
        tcp.close()


def test_local_sockets_pass_and_listed_programs_may_start(tmp_path: Path) -> None:
    guard = EgressGuard(Allowlist([]), programs=[sys.executable])
    unix = socket.socket(socket.AF_UNIX)
    try:
        assert guard.check("socket.connect", (unix, str(tmp_path / "sock"))) is None
    finally:
        unix.close()
    assert guard.check("subprocess.Popen", (sys.executable, [sys.executable], None, None)) is None
    assert guard.check("os.posix_spawn", ("/bin/sh", ["/bin/sh"], {})) is not None
    assert guard.check("os.system", (b"true",)) is not None


def test_the_refusal_is_an_egress_error_and_a_permission_error() -> None:
    assert issubclass(GuardRefusedError, PermissionError)
    seen: list[dict[str, Any]] = []
    guard = EgressGuard(Allowlist([]), on_refusal=seen.append)
    with pytest.raises(GuardRefusedError, match="refused by the egress guard") as err:
        guard.hook("os.system", (b"curl http://x",))
    assert "What to do" in err.value.message and seen[0]["event"] == "os.system"
    guard.hook("open", ("/etc/hosts", "r", 0))  # events it does not watch pass untouched


def _kinds(path: Path, kek: Kek) -> list[str]:
    """The kinds of the audit log's records, in order."""
    return [record.kind for record in AuditLog(path, kek).records()[1]]


def test_the_cli_works_with_the_guard_on_and_records_nothing(tmp_path: Path, data_root: Path, kek_file: Path,
                                                             kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    # The installed `medhelm-local` installs the guard before anything else; a normal session
    # (run, list, doctor) must never trip it, or the audit log would fill with noise.
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {
        "base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    ran = run_cli("-c", str(config), "run", "pubmed_qa:model=local/fake,model_deployment=fake", "-m", "5",
                  "--suite", "guarded", "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["runs"][0]["run"]["n_failed"] == 0
    for args in (["runs", "list"], ["benchmarks", "list"], ["taxonomy"], ["--help"], ["policy", "check"],
                 ["doctor", "--json"]):
        done = run_cli("-c", str(config), *args, env=env)
        assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
        assert "refused" not in done.stderr, f"{args}: {done.stderr}"
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert checks["deployment: fake"]["ok"] and checks["encrypted store"]["ok"]
    assert _kinds(dev_audit_log(), kek) == ["run.started"]  # nothing was refused, so nothing else
    assert server.stats()["requests"] == 5


def test_a_deployment_named_by_host_name_is_looked_up_and_reached_with_the_guard_on(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    """Hospitals name their model servers (vllm.internal). On the program's event loop (uvloop) the name is looked
    up and its address reached through Python's socket module, so the guard checks both (tests/client/test_loop.py):
    an allowlisted name must pass both checks, and nothing is refused."""
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"named": {
        "base_url": f"http://localhost:{server.port}/v1"}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    ran = run_cli("-c", str(config), "run", "pubmed_qa:model=local/fake,model_deployment=named", "-m", "5",
                  "--suite", "named", "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["runs"][0]["run"]["n_failed"] == 0
    assert "refused" not in ran.stderr
    assert _kinds(dev_audit_log(), kek) == ["run.started"]  # the run's start; nothing was refused
    assert server.stats()["requests"] == 5


def test_a_deployment_off_the_allowlist_is_refused_before_any_request(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {
        "base_url": server.base_url}}, allow_deployments=False)
    policies = write_policy_dir(tmp_path / "policies", [("127.0.0.1", 8000)])
    ran = run_cli("-c", str(config), "run", "pubmed_qa:model=local/fake,model_deployment=fake", "-m", "5",
                  env={"MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_POLICY_DIR": str(policies)})
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert f"'fake' (127.0.0.1:{server.port}) is not on the egress allowlist" in ran.stderr
    assert str(tmp_path / "policies" / "egress.yaml") in ran.stderr
    assert server.stats()["requests"] == 0 and not (tmp_path / "results").exists()


def test_a_model_on_a_staging_only_host_is_refused_before_any_request(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """Issue 29, finding 7: an endpoint listed only for `data stage` (purpose staging) received evaluation
    prompts. A model needs purpose inference (or judge: a judge endpoint may also serve models)."""
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {
        "base_url": server.base_url}})
    egress = tmp_path / "config.policies" / "egress.yaml"
    egress.write_text(f"default: deny\nallow:\n  - host: 127.0.0.1\n    port: {server.port}\n"
                      "    purpose: staging\n    why: a mirror of published benchmark data\n")
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    entry = "pubmed_qa:model=local/fake,model_deployment=fake"
    ran = run_cli("-c", str(config), "run", entry, "-m", "5", env=env)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    said = " ".join(ran.stderr.split())
    assert f"model deployment 'fake' (127.0.0.1:{server.port}) is on the egress allowlist with purpose staging, " \
           "not inference" in said
    assert str(egress) in said and "purpose: inference" in said
    doctor = run_cli("-c", str(config), "doctor", "--json", env=env)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert not checks["deployment: fake"]["ok"] and "purpose staging" in checks["deployment: fake"]["detail"]
    assert server.stats()["requests"] == 0 and not (tmp_path / "results").exists()
    # A judge endpoint may also serve the models under evaluation, as the demo's one server does.
    egress.write_text(egress.read_text().replace("purpose: staging", "purpose: judge"))
    ran = run_cli("-c", str(config), "run", entry, "-m", "5", "--json", env=env)
    assert ran.returncode == 0, ran.stderr
    assert server.stats()["requests"] == 5


def test_a_refusal_inside_the_cli_lands_in_the_audit_log_without_phi(
        tmp_path: Path, kek_file: Path, servers: tuple[CountingServer, CountingServer]) -> None:
    _, refused = servers
    before = refused.connections
    config = tmp_path / "config.toml"
    config.write_text(f'policy_dir = "{write_policy_dir(tmp_path / "policies", [])}"\n')
    env = {**os.environ, "MEDHELM_KEK_FILE": str(kek_file), "COLUMNS": "200"}
    probe = subprocess.run([sys.executable, str(HERE / "entry_probe.py"), str(_port(refused)),
                            "Wojciech-Przybylski.example.org", "-c", str(config), "probe-egress"],
                           capture_output=True, text=True, timeout=120, env=env)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == ["connect:refused", "dns:refused"]
    assert "2 connection(s); each is in the audit log" in probe.stderr
    assert refused.connections == before
    shown = run_cli("-c", str(config), "audit", "show", "--kind", "egress", "--json", env={
        "MEDHELM_KEK_FILE": str(kek_file)})
    records = json.loads(shown.stdout)
    assert [r["details"]["event"] for r in records] == ["socket.connect", "socket.getaddrinfo"]
    assert records[0]["details"]["target"] == f"127.0.0.1:{_port(refused)}"
    # A host name can carry data out through DNS: it is recorded as a length and a hash prefix only.
    assert "Przybylski" not in shown.stdout and "Przybylski" not in probe.stderr
