"""Where a command may write a file it was given (a new path, or a regular file it replaces), and how.

A path that exists but is not a regular file is refused before anything is written. Writing there
would do something the user did not ask for: replacing a symbolic link (or, for a plain write,
following it to wherever it points), blocking on a FIFO or feeding its reader, or writing into a
device. Which regular files a command may replace is its own rule (`redact apply` replaces its
output; `redact store` never replaces anything).

What is written appears whole or not at all, and an operating-system error while writing it (a full
disk, no permission, a read-only file system) is an OutputError that names it.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from medhelm_local.errors import MedhelmError, OutputError

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


def _fix(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return "free space on that disk (or raise the quota, or choose another folder), then run the command again"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "choose a folder you can write to, or ask for write permission there"
    return "check the path and the disk it is on"


def output_error(exc: OSError, path: Path, what: str) -> OutputError:
    """The clear error for an operating-system error while writing `path`."""
    return OutputError(f"cannot write the {what} ({exc.strerror or exc}); nothing was left half-written",
                       where=str(path), fix=_fix(exc))


@contextmanager
def writing(path: Path, what: str) -> Iterator[None]:
    """Any OSError in the block becomes an OutputError naming `path` (the block cleans up after itself)."""
    try:
        yield
    except OSError as exc:
        raise output_error(exc, path, what) from None


@contextmanager
def atomic_text(path: Path, what: str) -> Iterator[IO[str]]:
    """A text file that appears at `path` only once the block has written all of it; if anything fails,
    nothing is left behind (an earlier file at `path` stays as it was), and an OSError is an OutputError."""
    folder = path.parent if str(path.parent) else Path(".")
    with writing(path, what):
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                yield handle
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
