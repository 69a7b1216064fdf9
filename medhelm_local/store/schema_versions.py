"""A store's schema version: written when the store is created, checked each time it opens, and migrated in one
transaction, the original kept aside until the migration has committed (store/database.py opens; this decides
what it has opened)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from medhelm_local.errors import NotAStoreError, StoreError, StoreKeyError, StoreSchemaError
from medhelm_local.store.schema import SCHEMAS, StoreKind, ddl, migration

_KIND_NAMES = {"suite": "a suite's result store", "audit": "the audit log"}


def create_schema(con: duckdb.DuckDBPyConnection, store_id: str, kind: StoreKind) -> None:
    """Create the current schema of a store of this kind in the attached, empty database, and its meta rows."""
    version = SCHEMAS[kind][1]
    con.execute("BEGIN")
    con.execute(ddl(kind))
    now = datetime.now(UTC).isoformat(timespec="seconds")
    con.executemany("INSERT INTO meta VALUES (?, ?)", [
        ["schema_version", str(version)], ["store_id", store_id], ["created_at", now], ["kind", kind]])
    con.execute("COMMIT")


def stored_version(con: duckdb.DuckDBPyConnection, store_id: str, path: Path, read_only: bool,
                   kind: StoreKind) -> int | None:
    """The attached store's schema version after checking it is this store and this kind; None for a new file."""
    tables = {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_catalog = current_database()").fetchall()}
    if "meta" not in tables:
        if read_only:
            raise NotAStoreError("the database has no medhelm-local tables", where=str(path),
                                 fix="give the path of a store written by `medhelm-local run`")
        return None
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("store_id") != store_id:
        raise StoreKeyError("the key envelope belongs to another store (store ids differ)", where=str(path),
                            fix="restore the .key file that was created with this store")
    found: StoreKind = "audit" if meta.get("kind") == "audit" else "suite"  # stores before kinds were suites
    if found != kind:
        raise NotAStoreError(f"this file is {_KIND_NAMES[found]}, not {_KIND_NAMES[kind]}", where=str(path),
                             fix="give the path of " + _KIND_NAMES[kind])
    version = SCHEMAS[kind][1]
    stored = meta.get("schema_version", "")
    if not stored.isdigit() or int(stored) > version:
        raise StoreSchemaError(
            f"the store has schema version {stored or 'none'}, this program knows {version} and older",
            where=str(path), fix="use the medhelm-local version that wrote it, or a newer one")
    return int(stored)


def backup_path(path: Path, version: int) -> Path:
    """Where the original of a store being migrated from `version` is kept until the migration commits."""
    return path.with_name(f"{path.name}.v{version}.bak")


@contextmanager
def original_kept_aside(path: Path, stored: int, kind: StoreKind) -> Iterator[Path]:
    """Copy the closed store (and its write-ahead log) aside; remove the copy once the block ends without an
    error, keep it otherwise. Yields where the copy is."""
    backup = backup_path(path, stored)
    wal = path.with_name(path.name + ".wal")
    try:
        shutil.copy2(path, backup)
        if wal.exists():
            shutil.copy2(wal, backup.with_name(backup.name + ".wal"))
    except OSError as exc:
        raise StoreError(f"the store needs migrating to schema version {SCHEMAS[kind][1]}, and its original "
                         f"could not be copied aside first ({exc.strerror})", where=str(path),
                         fix="free disk space and make the store's folder writable, then run the command "
                             "again") from None
    yield backup
    backup.unlink(missing_ok=True)
    backup.with_name(backup.name + ".wal").unlink(missing_ok=True)


def apply_migration(con: duckdb.DuckDBPyConnection, path: Path, stored: int, kind: StoreKind, backup: Path) -> None:
    """Bring the attached store from schema version `stored` to the current one in one transaction, checkpointed."""
    try:
        con.execute("BEGIN")
        for statement in migration(kind, stored):
            con.execute(statement)
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMAS[kind][1])])
        con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                    [f"migrated_from_v{stored}", datetime.now(UTC).isoformat(timespec="seconds")])
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise StoreError(f"migrating the store from schema version {stored} failed ({str(exc).splitlines()[0]}); "
                         "the store is unchanged", where=str(path),
                         fix=f"the original is also kept at {backup}; report the error") from None
