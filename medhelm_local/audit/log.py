"""The audit log: an encrypted store of its own, append-only, hash-chained.

One log per appliance (setting `audit_store`), not one per suite: audit records must outlive the
results they describe (retention.yaml), and a suite store may be deleted when its time is up.
Each append opens the log, adds one record in one transaction and closes it, so several
processes take turns (DuckDB's file lock), and the chain never forks.
"""

from __future__ import annotations

import getpass
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from medhelm_local.audit.chain import (
    AuditRecord,
    ChainProblem,
    canonical_details,
    genesis_hash,
    record_hash,
    verify_chain,
)
from medhelm_local.errors import MedhelmError, StoreLockedError, StoreNotFoundError
from medhelm_local.settings import Settings, default_audit_store
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek, load_kek

_LOCK_WAIT_S = 15.0


def current_actor() -> str:
    """Who runs this process, as the operating system knows them."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a container user with no passwd entry
        return f"uid {os.getuid()}"


class AuditLog:
    """The appliance's audit log at `path`, sealed under the KEK like every store."""

    def __init__(self, path: Path, kek: Kek) -> None:
        self.path = path
        self._kek = kek

    def _open(self, *, write: bool) -> StoreHandle:
        if not write and not self.path.exists():
            raise StoreNotFoundError("there is no audit log here yet", where=str(self.path),
                                     fix="it is created by the first export, redacted copy or refused connection; "
                                         "check the audit_store setting if you expected one")
        deadline = time.monotonic() + _LOCK_WAIT_S
        while True:
            try:
                return open_store(self.path, self._kek, create=write, read_only=not write, kind="audit")
            except StoreLockedError:
                # Another process is appending one record: it holds the lock for milliseconds.
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def append(self, kind: str, details: Mapping[str, Any], actor: str | None = None) -> AuditRecord:
        """Add one record at the end of the chain and return it (committed when this returns)."""
        handle = self._open(write=True)
        try:
            con = handle.con
            con.execute("BEGIN")
            last = con.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (1, genesis_hash(handle.store_id)) if last is None else (int(last[0]) + 1, str(last[1]))
            at = datetime.now(UTC).isoformat(timespec="milliseconds")
            who = actor or current_actor()
            body = canonical_details(details)
            digest = record_hash(seq, at, kind, who, body, prev)
            con.execute("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?)", [seq, at, kind, who, body, prev, digest])
            con.execute("COMMIT")
        finally:
            handle.close()
        return AuditRecord(seq, at, kind, who, json.loads(body), prev, digest)

    def records(self) -> tuple[str, list[AuditRecord]]:
        """The log's store id and every record in chain order."""
        handle = self._open(write=False)
        try:
            rows = handle.con.execute("SELECT seq, recorded_at, kind, actor, details_json, prev_hash, hash "
                                      "FROM audit ORDER BY seq").fetchall()
            store_id = handle.store_id
        finally:
            handle.close()
        return store_id, [AuditRecord(int(r[0]), r[1], r[2], r[3], _details(r[4]), r[5], r[6]) for r in rows]

    def head(self) -> tuple[int, str] | None:
        """(seq, hash) of the last record, or None for an empty or absent log."""
        if not self.path.exists():
            return None
        _, records = self.records()
        return (records[-1].seq, records[-1].hash) if records else None

    def verify(self, anchors: Iterable[tuple[int, str]] = (), exports: Mapping[str, str] | None = None
               ) -> tuple[list[AuditRecord], list[ChainProblem]]:
        """Every record, and every break in the chain or unrecorded export (empty when intact)."""
        store_id, records = self.records()
        return records, verify_chain(records, store_id, anchors, exports)


@contextmanager
def recorded_attempt(audit: AuditLog, kind: str, details: Mapping[str, Any],
                     refusal: type[MedhelmError]) -> Iterator[None]:
    """Record an attempt that ends in an error: `<kind>.refused` (with its reasons) for `refusal`,
    `<kind>.failed` for any other expected error; the error is then raised on. The caller records success."""
    try:
        yield
    except refusal as exc:
        audit.append(f"{kind}.refused", {**details, "reasons": [exc.what]})
        raise
    except MedhelmError as exc:
        audit.append(f"{kind}.failed", {**details, "error": type(exc).__name__, "message": exc.message})
        raise


def _details(text: str) -> Mapping[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        # Kept as found so that verification reports the edit instead of crashing on it.
        return {"unreadable": "details are not JSON"}
    return value if isinstance(value, dict) else {"unreadable": "details are not a JSON object"}


def audit_path(settings: Settings) -> Path:
    """Where the appliance's audit log lives: the `audit_store` setting, else the default."""
    return settings.audit_store or default_audit_store()


def audit_log_for(settings: Settings) -> AuditLog:
    """The appliance's audit log, opened with the configured KEK (StoreKeyError if there is none)."""
    return AuditLog(audit_path(settings), load_kek(settings))
