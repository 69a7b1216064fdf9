"""Run `medhelm-local ARGS...` and die, as `kill -9` would, at the Nth step that writes something.

Steps counted: each file opened for writing under KILL_UNDER (the bundle's parent folder, or the folder of
the audit log and its reviews), each rename there, and each audit record and signed checkpoint (just before
it is written and just after it is committed). KILL_AT=N dies at the Nth step with exit status 137; with
fewer steps the command finishes.

`--approve REVIEW ACTOR SIGNING_KEY` instead approves a review as the viewer's page does (the library call
its POST makes, as ACTOR), with the KEK of MEDHELM_KEK_FILE.
"""

from __future__ import annotations

import os
import sys
from typing import Any

KILL_AT = int(os.environ["KILL_AT"])
UNDER = os.environ["KILL_UNDER"]
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


if __name__ == "__main__":
    main()
