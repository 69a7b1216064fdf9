"""Signed checkpoints: what makes the audit log unforgeable by someone who holds only the KEK.

Anyone with the KEK can open the log and rewrite it, hashes and all. A checkpoint is a record
(kind `audit.checkpoint`) whose details carry an Ed25519 signature, by the export signing key, over
the log's id and the (seq, hash) of the record just before it. The signing key is the compliance
officer's, not the evaluators': rewrite, remove or insert anything at or before a checkpoint and
its signature no longer matches the chain; forge a checkpoint and it does not verify under the
public key. Records after the newest checkpoint are protected by the copies kept outside the log
(forwarded records, the head each bundle carries), which is also how removing the newest records,
checkpoints included, is found.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from medhelm_local.audit.chain import AuditRecord, ChainProblem

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

CHECKPOINT_KIND = "audit.checkpoint"


class Signer(Protocol):
    """What signs checkpoints: the export signing key (`export.signing.SigningKey`)."""

    @property
    def key_id(self) -> str:
        """The public id of the key."""
        ...

    def sign(self, data: bytes) -> bytes:
        """The signature of `data`."""
        ...


def checkpoint_message(store_id: str, seq: int, digest: str) -> bytes:
    """The bytes a checkpoint signs: the log's id and one record's place and hash."""
    return f"medhelm-local audit checkpoint\0{store_id}\0{seq}\0{digest}".encode()


def checkpoint_details(signer: Signer, store_id: str, seq: int, digest: str) -> dict[str, Any]:
    """The details of a checkpoint record over record `seq` (whose hash is `digest`)."""
    signature = signer.sign(checkpoint_message(store_id, seq, digest))
    return {"covers_seq": seq, "covers_hash": digest, "key_id": signer.key_id,
            "signature": base64.b64encode(signature).decode()}


def _signature(details: Mapping[str, Any]) -> bytes | None:
    try:
        return base64.b64decode(str(details.get("signature", "")), validate=True)
    except (binascii.Error, ValueError):
        return None


def _verdict(record: AuditRecord, store_id: str, keys: Mapping[str, Ed25519PublicKey],
             by_seq: Mapping[int, AuditRecord]) -> str | None:
    """Why a checkpoint record does not vouch for the chain (None when it does)."""
    from medhelm_local.signatures import signature_valid  # here: a command that checks no checkpoint loads no Ed25519

    details = record.details
    seq, digest, signature = details.get("covers_seq"), details.get("covers_hash"), _signature(details)
    public = keys.get(str(details.get("key_id")))
    if public is None:
        return (f"a checkpoint signed by key {details.get('key_id')}, which is not among the export signing keys "
                f"given ({', '.join(keys)})")
    if (not isinstance(seq, int) or not isinstance(digest, str) or signature is None
            or not signature_valid(public, checkpoint_message(store_id, seq, digest), signature)):
        return "a checkpoint whose signature does not verify (forged or edited)"
    if seq not in by_seq or by_seq[seq].hash != digest:
        return (f"a signed checkpoint over record {seq}, which the log no longer holds as signed: records at or "
                "before it were rewritten, removed or inserted")
    return None


def _keys(publics: Iterable[Ed25519PublicKey]) -> dict[str, Ed25519PublicKey]:
    from medhelm_local.signatures import key_id

    return {key_id(public): public for public in publics}


def check_checkpoints(records: Sequence[AuditRecord], store_id: str, publics: Iterable[Ed25519PublicKey],
                      ignore_foreign: bool = False) -> list[ChainProblem]:
    """Every checkpoint that does not vouch for the chain: signed by none of `publics` (unless
    `ignore_foreign`: such a checkpoint then simply vouches for nothing), forged, or over a record the
    log no longer holds as it was signed."""
    keys = _keys(publics)
    by_seq = {r.seq: r for r in records}
    problems = []
    for record in records:
        if record.kind != CHECKPOINT_KIND or (ignore_foreign and str(record.details.get("key_id")) not in keys):
            continue
        verdict = _verdict(record, store_id, keys, by_seq)
        if verdict:
            problems.append(ChainProblem(record.seq, verdict))
    return problems


def covered_seq(records: Sequence[AuditRecord], store_id: str, public: Ed25519PublicKey) -> int:
    """The newest record a valid checkpoint signed by `public` covers (0 if none): everything up to it is
    vouched for by the key's holder."""
    keys = _keys([public])
    by_seq = {r.seq: r for r in records}
    for record in reversed(records):
        if (record.kind == CHECKPOINT_KIND and str(record.details.get("key_id")) in keys
                and _verdict(record, store_id, keys, by_seq) is None):
            return int(record.details["covers_seq"])
    return 0


def latest_checkpoint(records: Sequence[AuditRecord]) -> AuditRecord | None:
    """The newest checkpoint record, if any."""
    return next((r for r in reversed(records) if r.kind == CHECKPOINT_KIND), None)


def uncovered(records: Sequence[AuditRecord]) -> int:
    """How many records come after the newest checkpoint (protected only by copies outside the log)."""
    last = latest_checkpoint(records)
    return len(records) if last is None else sum(1 for r in records if r.seq > last.seq)
