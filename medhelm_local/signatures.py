"""Ed25519 signature checks shared by signed export bundles (`export.signing`) and the audit log's signed
checkpoints (`audit.checkpoints`): a key's short public id, and whether a signature verifies."""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def key_id(public: Ed25519PublicKey) -> str:
    """A short public id of a signing key, recorded in manifests and audit records."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def signature_valid(public: Ed25519PublicKey, data: bytes, signature: bytes) -> bool:
    """True if `signature` is the key's signature over `data`."""
    try:
        public.verify(signature, data)
    except InvalidSignature:
        return False
    return True
