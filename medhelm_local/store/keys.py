"""Envelope encryption for stores: a random data key per store, wrapped under the hospital's KEK.

The key-encryption key (KEK) comes from a file (a mounted Kubernetes Secret) or, for development,
the environment. Each store has its own 32-byte data key, which DuckDB uses for AES-GCM; the data
key is kept beside the store in `<store>.key`, wrapped with AES-256-GCM under the KEK, with the
store id as associated data so an envelope cannot be swapped onto another store.
Who may read a key file is checked in `medhelm_local.key_files`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import secrets
import tempfile
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from medhelm_local.errors import ConfigError, StoreKeyError
from medhelm_local.key_files import read_key_file
from medhelm_local.settings import Settings

ENVELOPE_FORMAT = "medhelm-local-store-key/1"
KEY_BYTES = 32


@dataclass(frozen=True)
class Kek:
    """A key-encryption key and where it came from (never the key itself in messages)."""

    key: bytes
    source: str

    @property
    def fingerprint(self) -> str:
        """A short public id of the key, safe to print and store."""
        return hashlib.sha256(b"medhelm-kek-fingerprint" + self.key).hexdigest()[:16]

    def __repr__(self) -> str:  # keep the key out of tracebacks and logs
        return f"Kek(source={self.source!r}, fingerprint={self.fingerprint})"


def _decode_key(raw: bytes, source: str) -> bytes:
    text = raw.strip()
    if len(raw) == KEY_BYTES and not text.isascii():
        return raw
    candidates: list[bytes] = []
    try:
        candidates.append(bytes.fromhex(text.decode("ascii")))
    except (ValueError, UnicodeDecodeError):
        pass
    try:
        candidates.append(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        pass
    for key in candidates:
        if len(key) == KEY_BYTES:
            return key
    raise StoreKeyError(
        "the key-encryption key is not 32 bytes written as 64 hex characters or base64",
        where=source,
        fix="create a key with `medhelm-local keys init --out FILE`",
    )


def load_kek(settings: Settings) -> Kek:
    """Read the KEK from `kek_file` (preferred) or `kek`; fail with what to do if neither is set."""
    if settings.kek_file is not None:
        raw = read_key_file(settings.kek_file, StoreKeyError, "key-encryption key", "check MEDHELM_KEK_FILE / "
                            "kek_file, or create one with `medhelm-local keys init --out FILE`")
        return Kek(_decode_key(raw, str(settings.kek_file)), str(settings.kek_file))
    if settings.kek is not None:
        return Kek(_decode_key(settings.kek.get_secret_value().encode(), "MEDHELM_KEK"), "MEDHELM_KEK")
    raise StoreKeyError(
        "no key-encryption key is configured, and stores are always encrypted",
        where="settings kek_file / MEDHELM_KEK_FILE",
        fix="run `medhelm-local keys init --out ~/.config/medhelm-local/kek` and set MEDHELM_KEK_FILE to it",
    )


def write_new_kek(path: Path) -> Kek:
    """Create a new random KEK file readable by its owner only; never overwrite one."""
    key = secrets.token_bytes(KEY_BYTES)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Whole or not at all: a key file cut short by a full disk would be taken for a key, and block the next try.
    if not write_secret_file(path, key.hex() + "\n", replace=False):
        raise ConfigError(
            "a key file already exists there, and replacing it would lock you out of every store it seals",
            where=str(path),
            fix="choose another path, or rotate with `medhelm-local keys rotate`",
        )
    return Kek(key, str(path))


@dataclass(frozen=True)
class Envelope:
    """The wrapped data key of one store, as kept in `<store>.key`."""

    store_id: str
    kek_fingerprint: str
    nonce: bytes
    wrapped: bytes
    created_at: str

    @staticmethod
    def path_for(store_path: Path) -> Path:
        """Where the envelope of a store lives."""
        return store_path.with_name(store_path.name + ".key")

    def to_json(self) -> str:
        """Serialise for the envelope file."""
        return json.dumps({
            "format": ENVELOPE_FORMAT,
            "store_id": self.store_id,
            "kek_fingerprint": self.kek_fingerprint,
            "nonce": base64.b64encode(self.nonce).decode(),
            "wrapped_data_key": base64.b64encode(self.wrapped).decode(),
            "created_at": self.created_at,
        }, indent=2) + "\n"

    @classmethod
    def read(cls, path: Path) -> Envelope:
        """Load an envelope file, refusing anything that is not one."""
        from medhelm_local.safe_parse import Limits, load_json

        try:
            data = load_json(path, "store's key envelope", limits=Limits(max_bytes=64 << 10), error=StoreKeyError)
            if data.get("format") != ENVELOPE_FORMAT:
                raise ValueError("format")
            return cls(data["store_id"], data["kek_fingerprint"], base64.b64decode(data["nonce"]),
                       base64.b64decode(data["wrapped_data_key"]), data["created_at"])
        except (StoreKeyError, AttributeError, ValueError, KeyError, TypeError, binascii.Error):
            raise StoreKeyError(
                "the store's key envelope is missing or damaged, so the store cannot be opened",
                where=str(path),
                fix="restore the .key file from the same backup as the store",
            ) from None

    def write(self, path: Path) -> None:
        """Write atomically, replacing any envelope there (KEK rotation), owner-readable only."""
        write_secret_file(path, self.to_json(), replace=True)

    def create(self, path: Path) -> bool:
        """Write a new envelope only if none exists (False if another process made one first).

        Two processes creating the same store (two runs of one suite, two commands appending to
        the audit log) must end up with one data key.
        """
        return write_secret_file(path, self.to_json(), replace=False)


def write_secret_file(path: Path, text: str, *, replace: bool) -> bool:
    """Write a key file (mode 0600) so that it appears whole or not at all: a synced temp file beside
    it, then renamed over `path` (`replace`) or linked to it only if nothing is there (else False)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, path)
            return True
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        Path(tmp).unlink(missing_ok=True)
    return True


def seal_new_data_key(kek: Kek) -> tuple[Envelope, bytes]:
    """Make a store id and data key, and wrap the key under the KEK."""
    store_id = str(uuid.uuid4())
    data_key = secrets.token_bytes(KEY_BYTES)
    return _wrap(kek, store_id, data_key), data_key


def _wrap(kek: Kek, store_id: str, data_key: bytes) -> Envelope:
    nonce = secrets.token_bytes(12)
    wrapped = AESGCM(kek.key).encrypt(nonce, data_key, store_id.encode())
    created = datetime.now(UTC).isoformat(timespec="seconds")
    return Envelope(store_id, kek.fingerprint, nonce, wrapped, created)


def unwrap(envelope: Envelope, kek: Kek, where: str) -> bytes:
    """Recover a store's data key; a different KEK gives a clear error, not garbage."""
    if envelope.kek_fingerprint != kek.fingerprint:
        raise StoreKeyError(
            f"this store was sealed with another key-encryption key (fingerprint {envelope.kek_fingerprint}, "
            f"yours from {kek.source} is {kek.fingerprint})",
            where=where,
            fix="set MEDHELM_KEK_FILE to the key this store was created with",
        )
    try:
        return AESGCM(kek.key).decrypt(envelope.nonce, envelope.wrapped, envelope.store_id.encode())
    except InvalidTag:
        raise StoreKeyError(
            "the store's key envelope does not decrypt under this key-encryption key (tampered or mismatched)",
            where=where,
            fix="restore the .key file from backup, or use the key this store was created with",
        ) from None


def rewrap(envelope: Envelope, old: Kek, new: Kek, where: str) -> Envelope:
    """Wrap the same data key under a new KEK (KEK rotation; the store itself is unchanged)."""
    data_key = unwrap(envelope, old, where)
    fresh = _wrap(new, envelope.store_id, data_key)
    return Envelope(fresh.store_id, fresh.kek_fingerprint, fresh.nonce, fresh.wrapped, envelope.created_at)
