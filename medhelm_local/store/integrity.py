"""Damage on disk, found and named: corrupted pages and a torn write-ahead log.

Every page of a store is sealed with AES-GCM, so a changed byte is found when the page is read;
DuckDB then raises a bare error, often well after the store was opened. `explain_failure` turns
such an error into a StoreCorruptError that names the file and says to restore it from backup.

DuckDB replays a store's write-ahead log (`<store>.wal`) when it opens it, and stops without a
word at an entry that is cut short, so rows committed in it are silently missing. `torn_wal`
walks the log's entry frames (their lengths are written in clear, encrypted or not) and says
whether the last one is incomplete; `open_store` warns when it is.
"""

from __future__ import annotations

import struct
from pathlib import Path

import duckdb

from medhelm_local.errors import StoreCorruptError, StoreError

_DAMAGE = ("Computed AES tag differs", "Corrupt database file", "Corrupt WAL file", "Corrupt Encrypted WAL",
           "does not match stored checksum", "Failed to decrypt", "Serialization Error")
_RESTORE = ("restore {name} and {name}.key from your last backup (medhelm-local never repairs a store in place); "
            "for a suite store, runs can also be rerun into a new store")

# Stores opened by this process, newest last: which file a late DuckDB error most likely came from.
_opened: list[Path] = []


def note_opened(path: Path) -> None:
    """Remember that `path` was opened (for `explain_failure` without a path)."""
    if path in _opened:
        _opened.remove(path)
    _opened.append(path)


def last_opened() -> Path | None:
    """The store this process opened most recently."""
    return _opened[-1] if _opened else None


def is_damage(exc: BaseException) -> bool:
    """True if a DuckDB error says a page or log entry does not decrypt or check out."""
    return isinstance(exc, duckdb.Error) and any(marker in str(exc) for marker in _DAMAGE)


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether DuckDB failed for want of memory: directly, or as the reason a commit or checkpoint failed."""
    text = str(exc)
    return isinstance(exc, duckdb.OutOfMemoryException) or (
        isinstance(exc, duckdb.Error) and ("failed to pin block" in text or "Out of Memory Error" in text))


def explain_failure(exc: duckdb.Error, path: Path | None = None) -> StoreError:
    """A DuckDB error met while reading or writing the store at `path` (default: the last one opened),
    as a clear error: damage is a StoreCorruptError that says to restore from backup."""
    where = path or last_opened()
    name = str(where) if where else "the store"
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if is_damage(exc):
        return StoreCorruptError(f"the store is damaged: a page does not decrypt or check out ({first})",
                                 where=name, fix=_RESTORE.format(name=name))
    if is_out_of_memory(exc):
        return StoreError(f"DuckDB ran out of the memory it may use for the store ({first})", where=name,
                          fix="raise the store_memory_limit setting (e.g. store_memory_limit = \"1GB\"; DuckDB holds "
                              "2,048 values of a text column at once: a run of 100 KB notes needs 512MB, a report "
                              "on them over 1GB); "
                              "everything committed so far is kept: rerun the same command to go on")
    return StoreError(f"DuckDB failed while using the store ({first})", where=name,
                      fix="check the disk (space, errors) and try again; if it repeats, "
                          + _RESTORE.format(name=name))


def wal_path(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside a store."""
    return path.with_name(path.name + ".wal")


_NONCE, _TAG, _CHECKSUM = 16, 16, 8  # DuckDB 1.4 WAL v3 frame: size, nonce, checksum + entry (sealed), tag


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """An unsigned LEB128 number at `at`, and where it ends (IndexError past the end)."""
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def _header(data: bytes) -> tuple[int, int] | None:
    """(format version, where the first entry starts) from the WAL's version entry, a serialized object:
    field 100 the entry type, 101 the version, 102 the database id (16 numbers), 103 the checkpoint
    iteration, then 0xFFFF. None if it is cut short or laid out otherwise."""
    at, version = 0, None
    try:
        while True:
            (field,) = struct.unpack_from("<H", data, at)
            at += 2
            if field == 0xFFFF:
                return (version, at) if version is not None else None
            if field in (100, 101, 103):
                value, at = _varint(data, at)
                version = value if field == 101 else version
            elif field == 102:
                count, at = _varint(data, at)
                for _ in range(count):
                    _, at = _varint(data, at)
            else:
                return None
    except (struct.error, IndexError):
        return None


def torn_wal(path: Path) -> str | None:
    """A sentence saying where a store's write-ahead log is cut short, or None when it is whole (or absent)."""
    wal = wal_path(path)
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if not data:
        return None
    header = _header(data)
    if header is None:
        return f"the log ends inside its header ({len(data)} bytes)" if len(data) < 64 else None
    version, end = header
    if version not in (2, 3):
        return None
    offset = end
    while offset < len(data):
        if offset + 8 > len(data):
            return f"the log ends inside an entry's header at byte {offset} of {len(data)}"
        (size,) = struct.unpack_from("<Q", data, offset)
        frame = 8 + (_NONCE + _CHECKSUM + size + _TAG if version == 3 else _CHECKSUM + size)
        if offset + frame > len(data):
            return f"the last entry, at byte {offset}, needs {frame} bytes and {len(data) - offset} are there"
        offset += frame
    return None
