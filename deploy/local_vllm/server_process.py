"""One local inference server process on 127.0.0.1: start it, wait until it serves, stop its whole group.

Shared by the vLLM launcher (`vllm_server.py`) and the llama.cpp launcher (`../local_llama/llama_server.py`):
both start an OpenAI-compatible server in its own session, log to a file, poll GET /v1/models until it
answers, and stop by signalling the process group. Standard library only, like the launchers.
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Self

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_LOG_DIR = REPO_ROOT / ".cache" / "logs"


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tail(path: Path, lines: int = 40) -> str:
    """Return the last `lines` lines of a text file, or a note when it cannot be read."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"(no log at {path}: {exc})"


def _group_alive(pgid: int) -> bool:
    """Return True while any process is left in process group `pgid`."""
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def stop_process_group(pgid: int, grace: float = 15, process: subprocess.Popen[bytes] | None = None) -> None:
    """SIGTERM process group `pgid`, wait up to `grace` seconds, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if process is not None:
                process.poll()  # Reap our own child: a zombie would keep the group "alive".
            if not _group_alive(pgid):
                return
            time.sleep(0.1)


class ServerProcess:
    """Start/stop behaviour of a local server; a dataclass subclass supplies `port`, `log_path`,
    `stop_at_exit`, `process` and `command()`, and names its engine in the class attributes."""

    ENGINE = "server"  # in messages: "vLLM", "llama.cpp"
    LOG_PREFIX = "server"  # the default log file: .cache/logs/<prefix>-<port>.log
    CMDLINE_MARK = b""  # a byte string its command line contains (a stale pid file's pid is checked for it)
    POLL_S = 0.5
    START_TIMEOUT_S = 240.0
    STOP_GRACE_S = 15.0

    port: int | None
    log_path: Path | None
    stop_at_exit: bool
    process: subprocess.Popen[bytes] | None
    _log_start: int = 0

    def command(self) -> list[str]:
        """The server command line."""
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        """What the server's environment adds to ours."""
        return {}

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, e.g. http://127.0.0.1:8000/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server's pid (its process group id too), or None when not started."""
        return self.process.pid if self.process else None

    def start(self, timeout: float | None = None) -> None:
        """Start the server and wait until GET /v1/models answers; RuntimeError with the log tail on failure."""
        if self.process and self.process.poll() is None:
            return
        python = Path(self.command()[0])
        if not python.exists():
            raise RuntimeError(f"no {self.ENGINE} environment at {python.parents[1]}: run the launcher's "
                               "`ensure` first")
        pick_port = self.port is None
        # A picked port can be taken between the check and the bind; retry with another one.
        for attempt in range(3 if pick_port else 1):
            if pick_port:
                self.port = free_port()
            try:
                self._launch_and_wait(self.START_TIMEOUT_S if timeout is None else timeout)
                return
            except RuntimeError as exc:
                if attempt == 2 or not pick_port or "address already in use" not in str(exc).lower():
                    raise

    def _launch_and_wait(self, timeout: float) -> None:
        """Launch one server process and block until it serves /v1/models."""
        if self.log_path is None:
            DEFAULT_LOG_DIR.mkdir(parents=True, exist_ok=True)
            self.log_path = DEFAULT_LOG_DIR / f"{self.LOG_PREFIX}-{self.port}.log"
        log_path = Path(self.log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            self._log_start = log.tell()
            log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(self.command())}\n".encode())
            log.flush()
            # A new session makes the server its own process group leader (stop() kills the whole group)
            # and detaches it from the terminal, so Ctrl-C there does not reach it.
            self.process = subprocess.Popen(
                self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, **self.environment()}, cwd=REPO_ROOT, start_new_session=True,
            )
        if self.stop_at_exit:
            atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code, self.process = self.process.returncode, None
                raise RuntimeError(f"{self.ENGINE} server exited with code {code} before it was ready; "
                                   f"log {log_path}:\n{tail(log_path)}")
            if self._ready():
                return
            time.sleep(self.POLL_S)
        self.stop()
        raise RuntimeError(f"{self.ENGINE} server not ready after {timeout:.0f} s; log {log_path}:\n{tail(log_path)}")

    def _ready(self) -> bool:
        """Return True when GET /v1/models answers 200."""
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self, grace: float | None = None) -> None:
        """Stop the whole process group: SIGTERM, then SIGKILL after `grace` seconds."""
        if self.process is None:
            return
        stop_process_group(self.process.pid, self.STOP_GRACE_S if grace is None else grace, self.process)
        self.process = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def add_start_stop(sub: argparse._SubParsersAction[argparse.ArgumentParser], venv: Path) -> argparse.ArgumentParser:
    """The `start` and `stop` subcommands every launcher offers; returns `start`'s parser for engine options."""
    p_start = sub.add_parser("start", help="start a server in the background and wait until it is ready")
    p_start.add_argument("--port-file", type=Path, required=True, help="where to write the port it listens on")
    p_start.add_argument("--pid-file", type=Path, required=True, help="where to write its pid (for `stop`)")
    p_start.add_argument("--log", type=Path, help="the server's log file (default: .cache/logs/ENGINE-PORT.log)")
    p_start.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one; the shipped egress policy "
                                                  "allows only 8000 and 11434, so give one of those for medhelm-local)")
    p_start.add_argument("--served-model-name", default="tiny-llama",
                         help="the model name the server answers to: a deployment's `model`")
    p_start.add_argument("--venv", type=Path, default=venv, help="the engine's virtual environment")
    p_start.add_argument("--timeout", type=float, help="seconds to wait until it is ready")
    p_stop = sub.add_parser("stop", help="stop the server whose pid is in --pid-file")
    p_stop.add_argument("--pid-file", type=Path, required=True, help="the pid file `start` wrote")
    return p_start


def start_in_background(server: ServerProcess, args: argparse.Namespace) -> int:
    """`start`: the server left running, its port and pid written where asked; 1 with the log tail if it fails."""
    import sys

    started = time.monotonic()
    try:
        server.start(timeout=args.timeout)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    args.port_file.write_text(f"{server.port}\n")
    args.pid_file.write_text(f"{server.pid}\n")
    print(f"{server.ENGINE} server ready at {server.base_url} (pid {server.pid}, "
          f"{time.monotonic() - started:.1f} s, log {server.log_path})")
    return 0


def stop_by_pid_file(pid_file: Path, engine: str, cmdline_mark: bytes) -> int:
    """`stop`: the server whose pid the file holds, and only such a server (a stale pid may be reused)."""
    if not pid_file.is_file():
        print(f"no pid file {pid_file}; nothing to stop")
        return 0
    pid = int(pid_file.read_text().strip())
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists() and cmdline_mark not in cmdline.read_bytes():
        print(f"pid {pid} is not a {engine} server; removing stale pid file")
        pid_file.unlink(missing_ok=True)
        return 0
    stop_process_group(pid)
    pid_file.unlink(missing_ok=True)
    print(f"{engine} server {pid} stopped")
    return 0
