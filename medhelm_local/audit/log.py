"""The audit log: an encrypted store of its own, append-only, hash-chained.

One log per appliance, where the installation puts it (`installation.py`; no setting, variable or
flag moves it), not one per suite: audit records must outlive the results they describe
(retention.yaml), and a suite store may be deleted when its time is up. Each append opens the log,
adds one record in one transaction and closes it, so several processes take turns (DuckDB's file
lock), and the chain never forks. Committed records are then forwarded to the sinks of the policy's
audit.yaml; holders of the export signing key add signed checkpoints (`checkpoints.py`), which the
KEK alone cannot forge, and each checkpoint is also noted outside the log (`head.py`), so a log
replaced by another or an older copy is found.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from medhelm_local.audit.chain import (
    AuditRecord,
    ChainProblem,
    canonical_details,
    genesis_hash,
    record_hash,
    verify_chain,
)
from medhelm_local.audit.checkpoints import CHECKPOINT_KIND, Signer, check_checkpoints, checkpoint_details
from medhelm_local.audit.forward import Sink, check_forwarded, forward, sinks_for
from medhelm_local.audit.head import (
    RESTORE_LOG,
    Head,
    LogFacts,
    discontinuity,
    read_head,
    refuse_discontinuity,
    write_head,
)
from medhelm_local.errors import IntegrityError, MedhelmError, StoreLockedError, StoreNotFoundError
from medhelm_local.installation import installation
from medhelm_local.policy.identity import current_actor
from medhelm_local.settings import Settings
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek, load_kek

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from medhelm_local.policy.loader import Policy

_LOCK_WAIT_S = 15.0
# Every kind of record the program writes (`audit show --kind` accepts these or the part before a dot);
# a test fails if code appends a kind not listed here.
KINDS = ("audit.checkpoint", "campaign.created", "data_import.done", "data_import.failed", "data_import.refused",
         "egress.refused", "export.allowed", "export.failed", "export.refused", "export.started",
         "policy.approve_refused", "policy.approved", "rater.added", "rater.revoked", "rater.sign_in_refused",
         "rater.signed_in", "rating.recorded", "redact_store.done", "redact_store.failed", "redact_store.refused",
         "review.approve_refused", "review.approved", "review.flagged", "review.requested", "review.resubmitted",
         "review.sent_back", "run.started")
DetailsFor = Callable[[str, int, str], Mapping[str, Any]]  # (store id, seq, hash of the record before) -> details


class AuditLog:
    """The appliance's audit log at `path`, sealed under the KEK like every store, forwarded to `sinks`."""

    def __init__(self, path: Path, kek: Kek, sinks: Sequence[Sink] = ()) -> None:
        self.path = path
        self._kek = kek
        self.sinks = list(sinks)

    def absent(self) -> bool:
        """True if there is no log yet; IntegrityError if there was one (a checkpoint in it was noted) and it is
        gone."""
        if self.path.exists():
            return False
        if read_head(self.path) is not None:
            # Starting a new log here would quietly drop the old one's history: it is restored, not replaced.
            raise IntegrityError("the audit log is missing, though this appliance noted a signed checkpoint in it",
                                 where=str(self.path), fix=RESTORE_LOG)
        return True

    def _open(self, *, write: bool) -> StoreHandle:
        if self.absent() and not write:
            raise StoreNotFoundError("there is no audit log here yet", where=str(self.path),
                                     fix="it is created by the first export, redacted copy or refused connection; "
                                         "the installation decides where the log is (`medhelm-local doctor` "
                                         "shows it)")
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
        """Add one record at the end of the chain and return it (committed, then forwarded, when this returns)."""
        return self._append(kind, lambda _store, _seq, _prev: details, actor)

    def append_computed(self, kind: str, details_for: DetailsFor, actor: str | None = None) -> AuditRecord:
        """Add one record whose details are computed from the log's id, the previous seq and the previous
        record's hash, read under the append's lock (a signature over where the record stands)."""
        return self._append(kind, details_for, actor)

    def checkpoint(self, signer: Signer, adopt: bool = False) -> AuditRecord:
        """Add a checkpoint signed by `signer` over the record now at the end of the chain, and note it outside
        the log; IntegrityError if the log does not continue the last one noted (`adopt`: unless no note exists
        yet, for a log kept by a version that made none)."""
        def details(store: str, seq: int, prev: str) -> Mapping[str, Any]:
            return checkpoint_details(signer, store, seq, prev) | ({"adopted": True} if adopt else {})

        return self._append(CHECKPOINT_KIND, details, adopt=adopt)

    def _append(self, kind: str, details_for: DetailsFor, actor: str | None = None, adopt: bool = False
                ) -> AuditRecord:
        handle = self._open(write=True)
        try:
            con = handle.con
            con.execute("BEGIN")
            last = con.execute("SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1").fetchone()
            seq, prev = (1, genesis_hash(handle.store_id)) if last is None else (int(last[0]) + 1, str(last[1]))
            if kind == CHECKPOINT_KIND:
                # A checkpoint vouches for the log as found: it must be the log this appliance kept.
                head = read_head(self.path)
                if head is not None or not adopt:
                    refuse_discontinuity(head, _facts(con, handle.store_id, seq - 1, head), self.path)
            at = datetime.now(UTC).isoformat(timespec="milliseconds")
            who = actor or current_actor()
            body = canonical_details(details_for(handle.store_id, seq - 1, prev))
            digest = record_hash(seq, at, kind, who, body, prev)
            con.execute("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?)", [seq, at, kind, who, body, prev, digest])
            con.execute("COMMIT")
            store_id = handle.store_id
            if kind == CHECKPOINT_KIND:  # still holding the log: notes are written in the order of checkpoints
                write_head(self.path, Head(store_id, seq, digest))
        finally:
            handle.close()
        record = AuditRecord(seq, at, kind, who, json.loads(body), prev, digest)
        forward(self.sinks, store_id, record)
        return record

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

    def continuity(self, store_id: str, records: Sequence[AuditRecord]) -> str | None:
        """Why this log (read as `records`) does not continue the last checkpoint noted outside it, or None."""
        head = read_head(self.path)
        return discontinuity(head, LogFacts.of(store_id, records, head), self.path)

    def verify(self, anchors: Iterable[tuple[int, str]] = (), exports: Mapping[str, str] | None = None,
               publics: Sequence[Ed25519PublicKey] = (), forwarded: Iterable[Mapping[str, Any]] = ()
               ) -> tuple[list[AuditRecord], list[ChainProblem]]:
        """Every record, and every problem found (empty when intact): a log that does not continue the last
        checkpoint noted outside it, a break in the chain, an unrecorded export, a checkpoint not signed by one
        of `publics` or not matching the chain, a forwarded record the log lost or holds changed. Without
        `publics` checkpoints are not checked."""
        store_id, records = self.records()
        broken = self.continuity(store_id, records)
        problems = [ChainProblem(0, f"the log does not continue the last checkpoint this appliance recorded: "
                                    f"{broken}")] if broken else []
        problems += verify_chain(records, store_id, anchors, exports)
        if publics:
            problems += check_checkpoints(records, store_id, publics)
        problems += check_forwarded(records, store_id, forwarded)
        return records, problems


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


def _facts(con: Any, store_id: str, end: int, head: Head | None) -> LogFacts:
    """The continuity facts of an open log, by two small queries (not a read of every record)."""
    at_head = con.execute("SELECT kind, hash FROM audit WHERE seq = ?", [head.seq]).fetchone() if head else None
    has_checkpoint = con.execute("SELECT count(*) FROM audit WHERE kind = ?", [CHECKPOINT_KIND]).fetchone()[0] > 0
    return LogFacts(store_id, end, has_checkpoint, (str(at_head[0]), str(at_head[1])) if at_head else None)


def audit_path() -> Path:
    """Where the appliance's audit log lives: where the installation put it (never a setting)."""
    return installation().audit_log


def audit_log_for(settings: Settings, policy: Policy | None = None) -> AuditLog:
    """The appliance's audit log, opened with the configured KEK (StoreKeyError if there is none) and
    forwarding to the sinks of the policy's audit.yaml (`policy`, else the policy_dir setting's)."""
    from medhelm_local.policy.loader import load_policy

    chosen = policy if policy is not None else load_policy(settings.policy_dir)
    return AuditLog(audit_path(), load_kek(settings), sinks_for(chosen.audit))
