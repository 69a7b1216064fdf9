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

from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.safe_parse import Limits, decode, read_bounded

# Far above any policy file or dictionary the project ships (the largest is redaction's surnames.txt); a
# file larger than this is a mistake or an attack, and is refused before it is read into memory.
MAX_TRUST_FILE_BYTES = 32 << 20


def read_regular(path: Path, what: str, error: type[ConfigError] = ConfigError,
                 limit: int = MAX_TRUST_FILE_BYTES) -> bytes:
    """Every byte of the regular file at `path`, read through one open descriptor (`safe_parse.read_bounded`,
    the one reader of files from outside); `error` naming `what` and the path if it is missing, unreadable,
    too large, or not a regular file."""
    return read_bounded(path, what, limits=Limits(max_bytes=limit), error=error,
                        if_missing="check the path, or restore the file")


def decode_text(data: bytes, path: Path, what: str, error: type[ConfigError] = ConfigError) -> str:
    """`data` as UTF-8 text; `error` naming the line and byte that are not."""
    return decode(data, str(path), what, error)
