"""Connections opened ahead: each deployment's connections, one per request it will keep in flight, opened
while the store opens, before the event loop that sends runs.

Opened on demand, by the first request of each slot, bench/suite.py's 192 connections came up while the event
loop was busy reading instances, and the suite's first round left 50-60 ms after its first request; opened first
thing in the event loop (~35 ms with asyncio's machinery), they delayed the first request about as much. Here
they are plain non-blocking sockets waited on with one `select` (~10-20 ms: a socket, a connect and the egress
guard's check each), opened while DuckDB attaches the store in another thread, which leaves the interpreter free.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from types import TracebackType

from medhelm_local.client.completions import concurrency_limit
from medhelm_local.client.http import open_sockets
from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.run.plan import PlannedRun

# How long connecting ahead may take. On a hospital network a connection takes milliseconds; one that takes
# longer is left to the request that needs it, which waits up to the deployment's timeout and says why.
WITHIN_S = 1.0


class Connected:
    """Sockets connected ahead, per deployment, until the scheduler takes them; `close` closes the rest."""

    def __init__(self, sockets: dict[str, list[socket.socket]] | None = None) -> None:
        self._sockets = sockets or {}

    def take(self, deployment: str) -> list[socket.socket]:
        """The sockets connected to a deployment (each given out once)."""
        return self._sockets.pop(deployment, [])

    def count(self) -> int:
        """Sockets not taken yet."""
        return sum(len(socks) for socks in self._sockets.values())

    def close(self) -> None:
        """Close every socket not taken (the command stopped before sending)."""
        for socks in self._sockets.values():
            for sock in socks:
                sock.close()
        self._sockets.clear()

    def __enter__(self) -> Connected:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def connect_ahead(planned: Sequence[PlannedRun], allowlist: PolicyAllowlist,
                  concurrency: int | None = None) -> Connected:
    """Connect, per deployment the planned runs use, as many sockets as requests it will keep in flight (no
    more than its runs have instances). Best effort: a deployment that does not answer in time gets fewer or
    none, and its requests open their own (and report why they cannot)."""
    wanted: dict[str, tuple[str, int]] = {}  # deployment -> (its URL, sockets)
    for plan in planned:
        name = plan.entry.deployment
        count = wanted.get(name, ("", 0))[1] + plan.total
        wanted[name] = (plan.deployment.base_url, min(concurrency_limit(plan.deployment, concurrency), count))

    opened = open_sockets(allowlist, list(wanted.values()), WITHIN_S)
    return Connected(dict(zip(wanted, opened, strict=True)))
