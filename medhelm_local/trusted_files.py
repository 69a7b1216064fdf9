"""Trust inputs read once, from regular files: what decides what may leave is parsed and digested from
the same bytes.

A policy file or rule pack is pinned by the sha256 of its bytes (`policy approve`). Reading it twice,
once to parse and once to digest, lets a FIFO (or a file swapped in between) serve the approved bytes
to the digest and other bytes to the parser. So every trust input is opened once, checked to be a
regular file on the open descriptor (a FIFO, device or socket is refused before a byte is read: it
could serve different bytes to each reader, or never end), and read whole; the caller parses and
digests what was read.

Symlinks are followed: what counts is the file the descriptor reaches, and the bytes read from it are
what the digest covers, so a symlink cannot make the gate enforce one file and pin another. Kubernetes
mounts every ConfigMap key as a symlink, so refusing them would refuse the chart's policy folder.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from medhelm_local.errors import ConfigError

# Far above any policy file or dictionary the project ships (the largest, surnames.txt, is ~0.7 MB); a
# file larger than this is a mistake or an attack, and is refused before it is read into memory.
MAX_TRUST_FILE_BYTES = 32 << 20

_NOT_REGULAR = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device",
                stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}
_REGULAR_FIX = "replace it with a regular file holding the reviewed text (a symlink to one is fine)"


def read_regular(path: Path, what: str, error: type[ConfigError] = ConfigError,
                 limit: int = MAX_TRUST_FILE_BYTES) -> bytes:
    """Every byte of the regular file at `path`, read through one open descriptor; `error` (a ConfigError)
    naming `what` and the path if it is missing, unreadable, too large, or not a regular file."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer before fstat can refuse it.
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"the {what} does not exist", where=str(path), fix="check the path, or restore the file") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # what open() says of a Unix socket
            raise error(f"the {what} is a socket, not a regular file", where=str(path), fix=_REGULAR_FIX) from None
        raise error(f"cannot read the {what} ({exc.strerror})", where=str(path), fix="check its permissions") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _NOT_REGULAR.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise error(f"the {what} is {kind}, not a regular file, so it could serve different bytes to each "
                        "reader", where=str(path), fix=_REGULAR_FIX)
        if info.st_size > limit:
            raise error(f"the {what} is {info.st_size:,} bytes, more than the {limit:,} a file of its kind may hold",
                        where=str(path), fix="give the reviewed file; this one is not it")
        os.set_blocking(fd, True)
        return _read_all(fd, path, what, error, limit)
    finally:
        os.close(fd)


def _read_all(fd: int, path: Path, what: str, error: type[ConfigError], limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError as exc:
            raise error(f"cannot read the {what} ({exc.strerror})", where=str(path),
                        fix="check the disk and the file") from None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:  # it grew while being read
            raise error(f"the {what} grew past {limit:,} bytes while it was read", where=str(path),
                        fix="stop whatever is writing to it, then try again")
        chunks.append(chunk)


def decode_text(data: bytes, path: Path, what: str, error: type[ConfigError] = ConfigError) -> str:
    """`data` as UTF-8 text; `error` naming the byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"the {what} is not UTF-8 text (byte {exc.start + 1} is not)", where=str(path),
                    fix="save it as UTF-8 text") from None
