"""The event loop every network command runs on: uvloop's (a dependency), asyncio's if it is missing.

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
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's loop constructor, or None (asyncio's own) where uvloop is not installed."""
    try:
        import uvloop
    except ImportError:  # an install without it (it is a dependency): asyncio's loop does the same work, slower
        return None
    return uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion on a new event loop (as `asyncio.run` does) and close the loop."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(main)
