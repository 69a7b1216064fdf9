"""Run many `medhelm-local` command lines fast, each in its own process: `python cli_cases.py CASES OUT [JOBS]`.

The program is imported once, with every command registered; then each case forks, and the child runs the
console entry point (`medhelm_local.cli.entry.main`) with the case's arguments and environment, exactly as
the installed script does: an exception that escapes it is printed as Python prints it (a traceback) and the
child exits 1. So a case shows what a user would see (exit status, stdout, stderr), a crash (a signal such
as SIGSEGV), or a hang (no exit within the case's time; the child is then killed), at ~0.1 s a case instead
of a whole start.

CASES is a JSON list of {"id", "argv", "env" (added to the environment), "timeout" (s), "fsize" (optional:
the most bytes the child may write to a file, SIGXFSZ ignored, so a write past it fails with EFBIG)}. OUT gets
a JSON list of {"id", "exit" (int or null), "signal" (name or null), "hung", "stdout", "stderr", "seconds"}.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: tests/ holds `support`
from support.forked import exit_like_the_script


def _child(case: dict[str, Any], out_fd: int, err_fd: int) -> NoReturn:
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.environ.update(case.get("env") or {})
    if case.get("fsize") is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(case["fsize"]), resource.RLIM_INFINITY))
    sys.argv = ["medhelm-local", *case["argv"]]
    from medhelm_local.cli import entry

    exit_like_the_script(entry.main)


@dataclass
class _Running:
    case: dict[str, Any]
    pid: int
    started: float
    out: BinaryIO
    err: BinaryIO


def _start(case: dict[str, Any], scratch: Path, number: int) -> _Running:
    out, err = (scratch / f"{number}.out").open("w+b"), (scratch / f"{number}.err").open("w+b")
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(case, out.fileno(), err.fileno())
    return _Running(case, pid, started, out, err)


def _ended(run: _Running, status: int, hung: bool) -> dict[str, Any]:
    seconds = time.monotonic() - run.started
    said = []
    for fh in (run.out, run.err):
        fh.seek(0)
        said.append(fh.read().decode(errors="replace"))
        fh.close()
    died = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return {"id": run.case["id"], "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": signal.Signals(died).name if died is not None and not hung else None, "hung": hung,
            "stdout": said[0], "stderr": said[1], "seconds": round(seconds, 3)}


def run_cases(cases: list[dict[str, Any]], scratch: Path, jobs: int) -> list[dict[str, Any]]:
    """Run every case, `jobs` at a time; results in the cases' order."""
    pending = list(enumerate(cases))
    running: dict[int, tuple[int, _Running]] = {}
    results: dict[int, dict[str, Any]] = {}
    while pending or running:
        while pending and len(running) < jobs:
            number, case = pending.pop(0)
            run = _start(case, scratch, number)
            running[run.pid] = (number, run)
        for pid, (number, run) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            hung = not done and time.monotonic() - run.started > float(run.case.get("timeout", 60))
            if hung:
                os.kill(pid, signal.SIGKILL)
                status = os.waitpid(pid, 0)[1]
            if done or hung:
                results[number] = _ended(run, status, hung)
                del running[pid]
        time.sleep(0.005)
    return [results[n] for n in range(len(cases))]


def main() -> None:
    cases = json.loads(Path(sys.argv[1]).read_text())
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    from medhelm_local.cli.main import register_commands

    register_commands()  # every command's module, once, before the first fork
    jobs = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as scratch:
        results = run_cases(cases, Path(scratch), jobs)
    Path(sys.argv[2]).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
