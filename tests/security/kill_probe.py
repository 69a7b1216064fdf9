"""Run `medhelm-local ARGS...` and die, as `kill -9` would, at the Nth step that writes something.

Steps counted: each file opened for writing under KILL_UNDER (the bundle's parent folder, or the folder of
the audit log and its reviews), each rename there, and each audit record and signed checkpoint (just before
it is written and just after it is committed). KILL_AT=N dies at the Nth step with exit status 137; with
fewer steps the command finishes.

`--approve REVIEW ACTOR SIGNING_KEY` instead approves a review as the viewer's page does (the library call
its POST makes, as ACTOR), with the KEK of MEDHELM_KEK_FILE.

`--serve` imports the program once and then, for each JSON line {"argv", "kill_at", "under"} on stdin, forks a
child that does what a start with those arguments, KILL_AT and KILL_UNDER does (the steps are counted in the child
alone, from its start); it answers {"exit", "stdout", "stderr"} on a line. A kill loop then pays one start of the
program, not one a step (`Probe` below).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script: tests/ holds `support`
from support.forked import exit_like_the_script

KILL_AT = int(os.environ.get("KILL_AT", "0"))
UNDER = os.environ.get("KILL_UNDER", "")
_count = 0


def _step() -> None:
    global _count
    _count += 1
    if _count == KILL_AT:
        os._exit(137)  # no cleanup, no flush: what kill -9 leaves


def _path(value: Any) -> str:
    try:
        return os.fsdecode(os.fspath(value))
    except TypeError:
        return ""


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _path(args[0]).startswith(UNDER):
        mode, flags = args[1], args[2]
        if (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                mode is None and isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR)):
            _step()
    elif event == "os.rename" and _path(args[0]).startswith(UNDER):
        _step()


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        _serve()
        return
    sys.addaudithook(_hook)
    from medhelm_local.audit.log import AuditLog

    # Every record (plain, computed or a checkpoint) is written by `_append`: a kill point before and after each.
    append = AuditLog._append

    def counted_append(self: AuditLog, *args: Any, **kwargs: Any) -> Any:
        _step()
        record = append(self, *args, **kwargs)
        _step()
        return record

    AuditLog._append = counted_append  # type: ignore[method-assign]
    if sys.argv[1:2] == ["--approve"]:
        _approve(*sys.argv[2:5])
        return
    sys.argv = ["medhelm-local", *sys.argv[1:]]
    from medhelm_local.cli.entry import main as cli_main

    cli_main()


def _approve(review_id: str, actor: str, signing_key: str) -> None:
    from pathlib import Path

    from medhelm_local.audit.log import AuditLog
    from medhelm_local.export.review import reviews_folder
    from medhelm_local.export.review_gate import approve
    from medhelm_local.export.signing import load_signing_key
    from medhelm_local.installation import installation
    from medhelm_local.store.keys import Kek

    path = Path(os.environ["MEDHELM_KEK_FILE"])
    kek = Kek(bytes.fromhex(path.read_text().strip()), str(path))
    approve(AuditLog(installation().audit_log, kek), reviews_folder(kek), review_id,
            load_signing_key(Path(signing_key), kek), actor, different_person=True)


def _serve() -> None:
    global KILL_AT, UNDER
    from medhelm_local.cli.main import register_commands

    register_commands()  # every command's module, once, before the first fork (as tests/support/cli_cases.py)
    # and what the export and review commands import when they run (reading files only: no step is counted)
    import medhelm_local.export.review_gate
    import medhelm_local.export.service  # noqa: F401
    for line in sys.stdin:
        asked = json.loads(line)
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            sys.stdout.flush()
            pid = os.fork()
            if pid == 0:
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the requests' pipe is the server's alone
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                KILL_AT, UNDER = int(asked["kill_at"]), str(asked["under"])
                sys.argv = [__file__, *asked["argv"]]
                exit_like_the_script(main)
            status = os.waitpid(pid, 0)[1]
            said = []
            for fh in (out, err):
                fh.seek(0)
                said.append(fh.read().decode(errors="replace"))
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -os.WTERMSIG(status)
        print(json.dumps({"exit": code, "stdout": said[0], "stderr": said[1]}), flush=True)


class Probe:
    """`kill_probe.py --serve` for a test: `run(kill_at, under, *argv)` is what a start of this script with those
    arguments and KILL_AT, KILL_UNDER returns (exit status, stderr). Use as a context manager."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen([sys.executable, str(Path(__file__)), "--serve"], env=env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, kill_at: int, under: Path, *argv: str) -> tuple[int, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"argv": list(argv), "kill_at": kill_at, "under": str(under)}) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the probe server ended (exit {self.process.poll()})"
        answer = json.loads(line)
        return int(answer["exit"]), str(answer["stderr"])

    def __enter__(self) -> Probe:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


if __name__ == "__main__":
    main()
