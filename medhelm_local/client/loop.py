"""The event loop every network command runs on: uvloop's.

uvloop (libuv under asyncio's interface) takes less of the interpreter per request than asyncio's
selector loop: on bench/suite.py's three endpoints, 8 % less CPU and the requests done ~0.07 s
sooner (4.41 s against 4.48 s, floor 4.0 s; medians of six paired runs on a 2-core machine).

libuv connects and resolves names in C, where the egress guard's audit hook (policy/guard.py)
does not see them. The one HTTP client therefore never asks the loop to resolve a name or open a
connection: it resolves with `socket.getaddrinfo` and connects a Python socket
(`client.http.HttpClient._connect`), both audited, and hands the loop a connected socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on a new uvloop event loop (as `asyncio.run` does) and close the loop."""
    import uvloop  # here, not at the top: only the commands that send requests load it

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
