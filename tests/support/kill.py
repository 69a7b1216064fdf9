"""Killing a run mid-way, at a moment that tests resumption: once answers are committed, before it ends."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from support.holding_proxy import HoldingProxy


def kill_after_commits(proc: subprocess.Popen[bytes], ready: Callable[[], bool], wal: Path,
                       timeout: float = 60) -> None:
    """SIGKILL once `ready()` holds and the store's write-ahead log has grown twice more (rows committed).

    A fixed pause instead would be too long once a run is fast enough to finish within it.
    """
    deadline = time.monotonic() + timeout
    while not ready() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    size, grown = (wal.stat().st_size if wal.exists() else 0), 0
    while grown < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
        now = wal.stat().st_size if wal.exists() else 0
        grown, size = grown + (now > size), now
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "it finished before it could be killed"


def kill_while_held(proc: subprocess.Popen[bytes], proxy: HoldingProxy, wal: Path, timeout: float = 120) -> None:
    """SIGKILL once the proxy holds a request and the store's write-ahead log has settled.

    The run cannot finish while its request is held, so this lands midway however fast the server is; the
    writer commits once a second, so a log unchanged for 2.5 s holds every answer received before the hold.
    """
    deadline = time.monotonic() + timeout
    while not proxy.held.is_set() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    size, since = (wal.stat().st_size if wal.exists() else 0), time.monotonic()
    while time.monotonic() - since < 2.5 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        now = wal.stat().st_size if wal.exists() else 0
        if now != size:
            size, since = now, time.monotonic()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "it finished before it could be killed"
