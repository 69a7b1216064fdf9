"""The audit chain: each record's hash covers its fields and the hash before it.

Change a record's text, reorder records, or remove one from the middle, and every hash from that
point on stops matching; remove records from the end, and the head no longer matches the head
that signed export bundles carry (`verify_chain(..., anchors=...)`). The first record chains to a
genesis hash bound to the log's store id, so records copied into another log do not verify there.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AuditRecord:
    """One audit event as stored: what happened, who did it, when, and its place in the chain."""

    seq: int
    at: str
    kind: str
    actor: str
    details: Mapping[str, Any]
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data (for `audit show --json`)."""
        return {"seq": self.seq, "at": self.at, "kind": self.kind, "actor": self.actor,
                "details": dict(self.details), "prev_hash": self.prev_hash, "hash": self.hash}


@dataclass(frozen=True)
class ChainProblem:
    """Where the chain breaks, and how: a record (by number) or a bundle (by name)."""

    seq: int
    problem: str
    bundle: str | None = None

    def describe(self) -> str:
        """One line for messages."""
        return f"bundle {self.bundle}: {self.problem}" if self.bundle else f"record {self.seq}: {self.problem}"


def canonical_details(details: Mapping[str, Any]) -> str:
    """Details as the hash sees them: JSON with sorted keys, no spaces, non-ASCII kept."""
    return json.dumps(details, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def genesis_hash(store_id: str) -> str:
    """What the first record chains to: bound to this log, so records cannot be moved between logs."""
    return hashlib.sha256(f"medhelm-local audit genesis\0{store_id}".encode()).hexdigest()


def record_hash(seq: int, at: str, kind: str, actor: str, details_json: str, prev_hash: str) -> str:
    """The sha256 over one record's fields and the previous hash, each field length-prefixed."""
    h = hashlib.sha256()
    for part in (str(seq), at, kind, actor, details_json, prev_hash):
        data = part.encode()
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def verify_chain(records: Sequence[AuditRecord], store_id: str, anchors: Iterable[tuple[int, str]] = (),
                 exports: Mapping[str, str] | None = None) -> list[ChainProblem]:
    """Every break in the chain: a gap in the numbering, a record whose hash does not match its
    contents, a record that does not point at the one before, an anchor (seq, hash) from a signed
    bundle that the log no longer holds, or a bundle (name -> manifest sha256 in `exports`) whose
    export has no record."""
    problems: list[ChainProblem] = []
    expected_prev = genesis_hash(store_id)
    expected_seq = 1
    by_seq = {r.seq: r for r in records}
    for record in records:
        if record.seq > expected_seq:
            gap = (f"record {expected_seq} is" if record.seq - 1 == expected_seq
                   else f"records {expected_seq} to {record.seq - 1} are")
            problems.append(ChainProblem(record.seq, f"{gap} missing before it (removed)"))
        elif record.seq < expected_seq:
            problems.append(ChainProblem(record.seq, "is numbered out of order"))
        expected_seq = record.seq + 1
        if record.prev_hash != expected_prev:
            problems.append(ChainProblem(record.seq, "does not point at the record before it "
                                                     "(a record was removed or inserted before it)"))
        actual = record_hash(record.seq, record.at, record.kind, record.actor,
                             canonical_details(record.details), record.prev_hash)
        if actual != record.hash:
            problems.append(ChainProblem(record.seq, "its contents do not match its hash (the record was edited)"))
        expected_prev = record.hash
    for seq, digest in anchors:
        held = by_seq.get(seq)
        if held is None:
            problems.append(ChainProblem(seq, "a signed export bundle records this record, and the log no "
                                              "longer holds it (records were removed from the end)"))
        elif held.hash != digest:
            problems.append(ChainProblem(seq, "differs from the copy a signed export bundle holds"))
    recorded = {r.details.get("manifest_sha256") for r in records if r.kind == "export.allowed"}
    problems += [ChainProblem(0, f"its export is not in the audit log (manifest sha256 {digest[:16]}...)", name)
                 for name, digest in (exports or {}).items() if digest not in recorded]
    return problems
