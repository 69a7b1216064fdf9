"""Files the program writes for the user: each appears whole or not at all, and an operating-system error
while writing one (a full disk, no permission, a read-only file system) is an OutputError that names it."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from medhelm_local.errors import OutputError


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
