"""Exports: the gate that decides what may leave, redaction, signed bundles, verification.

    export(settings, policy, kek, audit, ExportRequest(...)) -> ExportResult   the whole gate, audited
    verify_bundle(folder, public_key) -> Verification                          needs only the public key
    write_signing_key / load_signing_key / load_public_key                     Ed25519, sealed under the KEK
    redact_store_copy(...)                                                     a redacted copy of a store
"""

from medhelm_local.export.bundle import MANIFEST, SIGNATURE, Verification, verify_bundle
from medhelm_local.export.redacted_store import RedactedCopy, redact_store_copy
from medhelm_local.export.service import ExportRequest, ExportResult, export, rule_pack_digest
from medhelm_local.export.signing import (
    SigningKey,
    load_public_key,
    load_signing_key,
    public_key_path,
    rewrap_signing_key,
    write_signing_key,
)
from medhelm_local.export.target import Target, resolve_target

__all__ = [
    "MANIFEST",
    "SIGNATURE",
    "ExportRequest",
    "ExportResult",
    "RedactedCopy",
    "SigningKey",
    "Target",
    "Verification",
    "export",
    "load_public_key",
    "load_signing_key",
    "public_key_path",
    "redact_store_copy",
    "resolve_target",
    "rewrap_signing_key",
    "rule_pack_digest",
    "verify_bundle",
    "write_signing_key",
]
