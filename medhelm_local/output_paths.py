"""Where a command may write a file it was given: a new path, or a regular file it replaces.

A path that exists but is not a regular file is refused before anything is written. Writing there
would do something the user did not ask for: replacing a symbolic link (or, for a plain write,
following it to wherever it points), blocking on a FIFO or feeding its reader, or writing into a
device. Which regular files a command may replace is its own rule (`redact apply` replaces its
output; `redact store` never replaces anything).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from medhelm_local.errors import MedhelmError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def refuse_unsafe_output(path: Path, error: type[MedhelmError], option: str) -> None:
    """Raise `error` (naming `option`) if `path` exists and is not a regular file; a link is never followed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise error(f"cannot check the output path ({exc.strerror})", where=f"{option} {path}",
                    fix="give the path of a new file in a folder you can write to") from None
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise error(f"the output path is {kind}, not a regular file, so nothing is written there",
                where=f"{option} {path}",
                fix="give the path of a new file (or of a regular file to replace); to write where a link points, "
                    "give that path itself")
