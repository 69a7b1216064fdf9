"""Open an encrypted DuckDB store, offline, and lock it down.

DuckDB 1.4.4 writes encrypted files only with its httpfs extension (OpenSSL) loaded. The
extension file ships in the PyPI wheel `duckdb-ext-httpfs` and is loaded from site-packages
by path, with auto-install and auto-load off, so nothing is ever downloaded; its bytes are
checked first (`store/extension.py`). Spilled temp files are encrypted too (`temp_file_encryption`, off by default
in DuckDB). A store that does not report `encrypted, GCM` is refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.abc
import importlib.util
import os
import shutil
import stat
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb

from medhelm_local.errors import (
    ConfigError,
    MedhelmWarning,
    NotAStoreError,
    StoreError,
    StoreKeyError,
    StoreLockedError,
    StoreNotEncryptedError,
    StoreNotFoundError,
    StoreSchemaError,
)
from medhelm_local.store.extension import Extension, httpfs_extension
from medhelm_local.store.integrity import explain_failure, is_damage, note_opened, torn_wal
from medhelm_local.store.keys import Envelope, Kek, seal_new_data_key, unwrap
from medhelm_local.store.memory import STREAMING, fitted_memory
from medhelm_local.store.schema import SCHEMAS, StoreKind
from medhelm_local.store.schema_versions import apply_migration, create_schema, original_kept_aside, stored_version

DUCKDB_MAGIC = b"DUCK"  # bytes 8..12 of every DuckDB database file
ALIAS = "store"


def _refuse_other_than_a_file(path: Path) -> None:
    """NotAStoreError unless `path` is missing or (through any links) a regular file: DuckDB would wait forever
    on a FIFO, and read a device without end."""
    if not os.path.lexists(path):
        return
    try:
        mode = path.stat().st_mode
    except OSError as exc:  # a link that loops, or leads nowhere
        raise NotAStoreError(f"the store path leads to no file ({exc.strerror})", where=str(path),
                             fix="give the path of a medhelm-local store (.duckdb)") from None
    if stat.S_ISDIR(mode):
        raise NotAStoreError("the path is a folder, not a store file", where=str(path),
                             fix="give a .duckdb file path, e.g. medhelm-results/my-suite.duckdb")
    if not stat.S_ISREG(mode):
        raise NotAStoreError("the path is not a regular file (a pipe, device or socket), so it is not a store",
                             where=str(path), fix="give the path of a medhelm-local store (.duckdb)")


def _is_duckdb_file(path: Path) -> bool:
    with path.open("rb") as fh:
        head = fh.read(12)
    return head[8:12] == DUCKDB_MAGIC


@dataclass
class StoreHandle:
    """An open store: the DuckDB connection (store attached as default) and its identity."""

    path: Path
    store_id: str
    con: duckdb.DuckDBPyConnection

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A connection to the same store for another thread, with the store as its default (a plain DuckDB
        cursor starts on an empty in-memory database); the caller closes it."""
        cursor = self.con.cursor()
        cursor.execute(f"USE {ALIAS}")
        return cursor

    def close(self) -> None:
        """Checkpoint and close; safe to call twice."""
        try:
            self.con.close()
        except duckdb.Error:
            pass


class _Absent(importlib.abc.MetaPathFinder):
    """Says at once that a module found absent is absent, as a full search of sys.path would.

    DuckDB's Python binding looks for pandas (not a dependency) at every query with parameters, about
    three times a query, and each look searched sys.path with the GIL held: ~0.3 ms a look, a quarter of
    the time a run's aggregates took (bench/suite.py).
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        """Refuse the absent module at once; leave every other to the finders after this one."""
        if fullname == self.name:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)


def _skip_absent_pandas() -> None:
    if not any(isinstance(f, _Absent) for f in sys.meta_path) and importlib.util.find_spec("pandas") is None:
        sys.meta_path.insert(0, _Absent("pandas"))


def connect(streaming: bool = False, extension: Extension | None = None) -> duckdb.DuckDBPyConnection:
    """DuckDB with the store's extension loaded and nothing attached, for `open_store(connection=...)`.

    Loading the extension is most of opening a store and needs no file, so a command can start it
    beside its other start-up work; `streaming` as `open_store`'s; `extension`: the installed one unless given.
    """
    _skip_absent_pandas()
    extension = extension or httpfs_extension()
    con = duckdb.connect(":memory:", config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        # Only a file whose bytes are pinned skips DuckDB's signature check: ours is stricter (one file, not
        # any file DuckDB signed). No SQL from outside the program reaches a store's connection to LOAD another.
        "allow_unsigned_extensions": extension.pinned,
        "allow_community_extensions": False,
        **(STREAMING if streaming else {}),
    })
    con.execute(f"LOAD '{_sql_path(extension.path)}'")
    con.execute("SET temp_file_encryption = true")
    return con


def _spill_beside(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Spilled pages go to `<store>.tmp/` (created only if DuckDB spills), encrypted."""
    con.execute("SET temp_directory = ?", [str(path.with_name(path.name + ".tmp"))])


def _attach(con: duckdb.DuckDBPyConnection, path: Path, data_key: bytes, read_only: bool) -> None:
    options = f"ENCRYPTION_KEY '{data_key.hex()}', ENCRYPTION_CIPHER 'GCM'"
    if read_only:
        options += ", READ_ONLY"
    try:
        con.execute(f"ATTACH '{_sql_path(path)}' AS {ALIAS} ({options})")
    except duckdb.Error as exc:
        raise _explain_attach_error(str(exc), path) from None
    con.execute(f"USE {ALIAS}")


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def _explain_attach_error(text: str, path: Path) -> StoreError | StoreKeyError:
    if "Wrong encryption key" in text:
        return StoreKeyError("the store's data key does not open it (the key envelope belongs to another store)",
                         where=str(path), fix="restore the matching .key file from the same backup")
    if "is not encrypted" in text:
        return StoreNotEncryptedError("this DuckDB file is not encrypted, and medhelm-local only uses encrypted stores",
                                      where=str(path), fix="give a path to a medhelm-local store, or a new path")
    if "not a valid DuckDB database" in text:
        return NotAStoreError("the file is not a DuckDB database", where=str(path),
                              fix="give the path of a medhelm-local store (a .duckdb file with its .key beside it)")
    if is_damage(duckdb.Error(text)):
        return explain_failure(duckdb.Error(text), path)
    if "Could not set lock" in text or "Conflicting lock" in text:
        return StoreLockedError("another process has this store open for writing", where=str(path),
                                fix="wait for that run to finish, or stop it, then try again")
    return StoreError(f"DuckDB could not open the store ({text.splitlines()[0]})", where=str(path),
                      fix="check the file is a medhelm-local store and the disk is healthy")


def _check_encrypted(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    row = con.execute(
        "SELECT encrypted, cipher FROM duckdb_databases() WHERE database_name = ?", [ALIAS]
    ).fetchone()
    if row is None or not row[0] or row[1] != "GCM":
        raise StoreNotEncryptedError("the store is not encrypted with AES-GCM", where=str(path),
                                     fix="create a new store; medhelm-local never writes an unencrypted one")


def _lock_down(con: duckdb.DuckDBPyConnection, memory_limit: str | None) -> None:
    if memory_limit:
        try:
            con.execute("SET memory_limit = ?", [memory_limit])
            # Lets large inserts and sorts spill instead of failing; every read orders explicitly.
            con.execute("SET preserve_insertion_order = false")
        except duckdb.Error:
            raise ConfigError(f"store_memory_limit '{memory_limit}' is not a size DuckDB understands",
                              where="setting store_memory_limit", fix="write it like '4GB' or '512MB'") from None
    # After the store is attached nothing may reach files or the network from SQL, and the
    # settings above cannot be undone.
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def _migrate(path: Path, data_key: bytes, stored: int, kind: StoreKind) -> None:
    """Bring the store at `path` (closed) to the current schema, its original kept aside until that commits."""
    with original_kept_aside(path, stored, kind) as backup:
        con = connect()
        try:
            _spill_beside(con, path)
            _attach(con, path, data_key, read_only=False)
            apply_migration(con, path, stored, kind, backup)
        finally:
            con.close()


def _warn_if_torn(path: Path) -> None:
    """Say so when the write-ahead log is cut short: DuckDB would drop its last entries without a word."""
    torn = torn_wal(path)
    if torn:
        warnings.warn(MedhelmWarning(
            f"the store's write-ahead log {path.name}.wal is cut short ({torn}), so the writes in its last "
            f"entry are lost: {path} opens without them. A run rerun with the same command redoes what is "
            "missing; for anything else, restore the store, its .key and .wal from backup"), stacklevel=3)


def discard_store(path: Path) -> bool:
    """Remove a closed store and what goes with it (its key envelope, write-ahead log and spill folder): only for a
    store the caller made and that holds nothing worth keeping. Kept (False) if another process has it open."""
    with _creation_lock(path.parent):  # a run opens its store under this lock: none attaches this one meanwhile
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False
        try:
            try:
                # DuckDB holds a POSIX lock on a database file it has open: one we cannot take means it is in use.
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return False
            for part in (path, path.with_name(path.name + ".wal"), Envelope.path_for(path)):
                part.unlink(missing_ok=True)
            shutil.rmtree(path.with_name(path.name + ".tmp"), ignore_errors=True)
            return True
        finally:
            os.close(fd)


def _create_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the store's folder ({exc.strerror})", where=str(path.parent),
                         fix="choose an output folder you can write to (the output_dir setting, or the folder "
                             "given)") from None


def _new_envelope(envelope_path: Path, kek: Kek) -> tuple[Envelope, bytes]:
    envelope, data_key = seal_new_data_key(kek)
    try:
        created = envelope.create(envelope_path)
    except OSError as exc:
        raise StoreError(f"cannot write the store's key file ({exc.strerror})", where=str(envelope_path),
                         fix="choose an output folder you can write to (the output_dir setting, or the folder "
                             "given)") from None
    if not created:  # another process is creating the same store
        envelope = Envelope.read(envelope_path)
        data_key = unwrap(envelope, kek, str(envelope_path))
    return envelope, data_key


@contextlib.contextmanager
def _creation_lock(folder: Path | None) -> Iterator[None]:
    """Hold an exclusive lock on `folder` (None: no lock) while a store there may be created.

    Two processes creating one store at once (two appenders to a new audit log) would otherwise race: one
    sees the file the other has just made, before DuckDB has written its header, and calls it no database.
    """
    if folder is None:
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _key_and_attach(path: Path, envelope_path: Path, kek: Kek, create: bool, read_only: bool, streaming: bool,
                    connection: duckdb.DuckDBPyConnection | None
                    ) -> tuple[Envelope, bytes, duckdb.DuckDBPyConnection]:
    """Unwrap (or make) the store's key and attach the database: the step that creates a missing store."""
    if path.exists():
        if not _is_duckdb_file(path):
            raise NotAStoreError("the file is not a DuckDB database", where=str(path),
                                 fix="give the path of a medhelm-local store")
        if not envelope_path.exists():
            raise StoreKeyError("the store's key envelope is missing, so it cannot be opened",
                            where=str(envelope_path), fix="restore the .key file from the same backup as the store")
        envelope = Envelope.read(envelope_path)
        data_key = unwrap(envelope, kek, str(envelope_path))
    elif not create:
        raise StoreNotFoundError("no store exists at this path", where=str(path),
                                 fix="check the path, or list stores with `medhelm-local runs list --output DIR`")
    elif envelope_path.exists():
        # A crash after the envelope was written but before the database: reuse its key.
        envelope = Envelope.read(envelope_path)
        data_key = unwrap(envelope, kek, str(envelope_path))
    else:
        envelope, data_key = _new_envelope(envelope_path, kek)
    _warn_if_torn(path)
    note_opened(path)
    con = connection or connect(streaming)
    try:
        _spill_beside(con, path)
        _attach(con, path, data_key, read_only)
    except duckdb.Error as exc:
        con.close()
        raise explain_failure(exc, path) from None
    except BaseException:
        con.close()
        raise
    return envelope, data_key, con


def open_store(path: Path, kek: Kek, *, create: bool = False, read_only: bool = False,
               memory_limit: str | None = None, kind: StoreKind = "suite", streaming: bool = False,
               migrate: bool = True, default_memory_mb: int | None = None,
               connection: duckdb.DuckDBPyConnection | None = None) -> StoreHandle:
    """Open (or create) the encrypted store at `path`; every failure says what to do.

    Beyond `memory_limit` DuckDB spills to `<store>.tmp/`, encrypted with the store's key. Without one,
    `default_memory_mb` is the limit, raised as far as the store's longest texts need to be read
    (`store.memory`); a configured `memory_limit` is kept as given. `connection`: one made ahead by
    `connect` (with the same `streaming`); it becomes the store's, or is closed if the store cannot open.
    `streaming`: tuned for a run's stream of small writes (see STREAMING), not for large reads.
    `migrate=False` refuses a store of an older schema version instead of migrating it.
    """
    try:
        return _open(path, kek, create, read_only, memory_limit, kind, streaming, migrate, default_memory_mb,
                     connection)
    except BaseException:
        if connection is not None:
            connection.close()
        raise


def _open(path: Path, kek: Kek, create: bool, read_only: bool, memory_limit: str | None, kind: StoreKind,
          streaming: bool, migrate: bool, default_memory_mb: int | None,
          connection: duckdb.DuckDBPyConnection | None) -> StoreHandle:
    envelope_path = Envelope.path_for(path)
    _refuse_other_than_a_file(path)
    if create:
        _create_folder(path)
    with _creation_lock(path.parent if create else None):
        envelope, data_key, con = _key_and_attach(path, envelope_path, kek, create, read_only, streaming,
                                                  connection)
    try:
        _check_encrypted(con, path)
        stored = stored_version(con, envelope.store_id, path, read_only, kind)
        if stored is None:
            create_schema(con, envelope.store_id, kind)
        elif stored < SCHEMAS[kind][1] and not migrate:
            raise StoreSchemaError(f"the store has schema version {stored}, and this needs version {SCHEMAS[kind][1]}",
                                   where=str(path), fix="open it once with this version to migrate it (e.g. "
                                   f"`medhelm-local runs list --store {path}`), then try again")
        elif stored < SCHEMAS[kind][1]:
            # Stores written by an earlier version keep opening: migrate, then open as asked.
            con.close()
            _migrate(path, data_key, stored, kind)
            return open_store(path, kek, read_only=read_only, memory_limit=memory_limit, kind=kind,
                              streaming=streaming, migrate=migrate, default_memory_mb=default_memory_mb)
        if memory_limit is None and default_memory_mb is not None:
            memory_limit = fitted_memory(con, kind, default_memory_mb, path)
        _lock_down(con, memory_limit)
    except duckdb.Error as exc:  # a damaged page met while reading the schema
        con.close()
        raise explain_failure(exc, path) from None
    except BaseException:
        con.close()
        raise
    return StoreHandle(path, envelope.store_id, con)
