"""The event loop network commands run on (uvloop), and the egress guard still seeing every connection on it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from medhelm_local.client import loop

# Run in a subprocess (an audit hook cannot be removed): the real guard, allowing what argv[2] names, then the
# one HTTP client on the program's loop, by address and by name. Prints the loop's module, each request's
# outcome, the audit events the connections raised, and the guard's refusals.
PROBE = """
import asyncio, json, sys
from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.http import HttpClient
from medhelm_local.client.wire import HttpError
from medhelm_local.client.loop import run
from medhelm_local.policy.guard import install_guard

port, guarded = int(sys.argv[1]), json.loads(sys.argv[2])
refusals, events = [], []
install_guard(Allowlist([(host, port) for host in guarded]), on_refusal=refusals.append)
sys.addaudithook(lambda e, a: events.append([e, str(a[1] if e == "socket.connect" else a[0])])
                 if e in ("socket.connect", "socket.getaddrinfo") else None)

async def main():
    outcomes = {}
    # The client's own allowlist (layer a) lets both through: only the guard (layer b) decides here.
    async with HttpClient(Allowlist([("127.0.0.1", port), ("localhost", port)]), 5, 2) as client:
        for host in ("127.0.0.1", "localhost"):
            try:
                async with client.request("GET", f"http://{host}:{port}/") as reply:
                    outcomes[host] = f"{reply.status} {(await reply.read()).decode()}"
            except HttpError as exc:
                outcomes[host] = f"error: {exc}"
    return type(asyncio.get_running_loop()).__module__, outcomes

kind, outcomes = run(main())
print(json.dumps({"loop": kind, "outcomes": outcomes, "events": events,
                  "refused": [(r["event"], r["target"]) for r in refusals]}))
"""


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def _probe(port: int, guarded: list[str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(port), json.dumps(guarded)], capture_output=True,
                          text=True, timeout=60, check=True)
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_network_commands_run_on_uvloop() -> None:
    async def kind() -> str:
        return type(asyncio.get_running_loop()).__module__

    assert loop.run(kind()).startswith("uvloop")


def test_the_guard_sees_and_allows_every_connection_the_client_makes_on_the_programs_loop(server_port: int) -> None:
    """uvloop resolves and connects in C, out of the audit hook's sight: the client resolves and connects
    through Python's socket module, so the guard checks each connection, by address and by name."""
    seen = _probe(server_port, ["127.0.0.1", "localhost"])
    assert seen["loop"].startswith("uvloop")
    assert seen["outcomes"] == {"127.0.0.1": "200 hello", "localhost": "200 hello"}
    connects = [target for event, target in seen["events"] if event == "socket.connect"]
    assert connects.count(f"('127.0.0.1', {server_port})") == 2  # one connection per host name
    assert ["socket.getaddrinfo", "localhost"] in seen["events"]
    assert seen["refused"] == []


def test_the_guard_stops_a_connection_the_clients_allowlist_let_through(server_port: int) -> None:
    """Layer (b) under layer (a): with the guard allowing nothing, neither request leaves, on uvloop."""
    seen = _probe(server_port, [])
    assert seen["loop"].startswith("uvloop")
    assert all(outcome.startswith("error: ") for outcome in seen["outcomes"].values()), seen["outcomes"]
    assert ("socket.connect", f"127.0.0.1:{server_port}") in [tuple(r) for r in seen["refused"]]
    # The address's connection, and the name's look-up (shown by a fingerprint: a name can carry data out).
    assert sorted(event for event, _ in seen["refused"]) == ["socket.connect", "socket.getaddrinfo"]
