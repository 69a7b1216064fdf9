"""Export signing keys: Ed25519, the private half sealed under the KEK exactly as store keys are.

`keys signing-init --out F` writes F (the sealed private key, mode 0600) and F with suffix .pub
(the public key, PEM), which is what a recipient needs to `verify` a bundle: nothing else.
The private key is opened only inside this process, only with the KEK, and never printed.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidTag, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from medhelm_local.errors import ConfigError, SigningKeyError
from medhelm_local.key_files import read_key_file
from medhelm_local.safe_parse import Limits, parse_json, read_bounded
from medhelm_local.signatures import key_id as key_id
from medhelm_local.signatures import signature_valid as signature_valid
from medhelm_local.store.keys import Kek, write_secret_file

SIGNING_FORMAT = "medhelm-local-signing-key/1"


@dataclass(frozen=True)
class SigningKey:
    """An opened export signing key."""

    private: Ed25519PrivateKey
    source: str

    @property
    def key_id(self) -> str:
        """The public id of this key."""
        return key_id(self.private.public_key())

    def sign(self, data: bytes) -> bytes:
        """The Ed25519 signature of `data`."""
        return self.private.sign(data)

    def public_pem(self) -> bytes:
        """The public key as PEM, for recipients."""
        return self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)

    def __repr__(self) -> str:  # keep the key out of tracebacks and logs
        return f"SigningKey(source={self.source!r}, key_id={self.key_id})"


def public_key_path(private_path: Path) -> Path:
    """Where the public half is written beside the sealed private key."""
    return private_path.with_suffix(".pub")


def _seal(private: Ed25519PrivateKey, kek: Kek) -> dict[str, str]:
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
    kid = key_id(private.public_key())
    nonce = secrets.token_bytes(12)
    sealed = AESGCM(kek.key).encrypt(nonce, raw, f"{SIGNING_FORMAT}\0{kid}".encode())
    return {"format": SIGNING_FORMAT, "key_id": kid, "kek_fingerprint": kek.fingerprint,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "nonce": base64.b64encode(nonce).decode(), "sealed_key": base64.b64encode(sealed).decode()}


def _exists_error(path: Path) -> ConfigError:
    return ConfigError("a file already exists there, and a signing key is never overwritten", where=str(path),
                       fix="choose another path; bundles signed with the old key still verify with its .pub")


def write_signing_key(path: Path, kek: Kek) -> SigningKey:
    """Create a new signing key: the sealed private key at `path`, the public key beside it (.pub)."""
    if path.suffix == ".pub":
        raise ConfigError("the signing key path ends in .pub, which is where its public half goes", where=str(path),
                          fix="give a path such as export-signing.key")
    private = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    pub = public_key_path(path)
    if pub.exists() or pub.is_symlink():  # a dangling link too: writing would follow it
        raise _exists_error(pub)
    if not write_secret_file(path, json.dumps(_seal(private, kek), indent=2) + "\n", replace=False):
        raise _exists_error(path)
    opened = SigningKey(private, str(path))
    try:
        pub.write_bytes(opened.public_pem())
        pub.chmod(0o644)  # public on purpose (the process umask makes everything else owner-only)
    except OSError:
        # A sealed key without its public half could never be verified, and would block the next try.
        path.unlink(missing_ok=True)
        pub.unlink(missing_ok=True)
        raise
    return opened


def _read_sealed(path: Path) -> dict[str, str]:
    raw = read_key_file(path, SigningKeyError, "signing key", "check signing_key_file / MEDHELM_SIGNING_KEY_FILE, "
                        "or create one with `medhelm-local keys signing-init --out FILE`")
    try:
        data = parse_json(raw.decode("utf-8"), str(path), "signing key file", error=SigningKeyError)
    except (SigningKeyError, UnicodeDecodeError):
        data = None
    if not isinstance(data, dict) or data.get("format") != SIGNING_FORMAT:
        raise SigningKeyError("the file is not a medhelm-local signing key", where=str(path),
                              fix="give the file written by `medhelm-local keys signing-init` (not its .pub)")
    return data


def load_signing_key(path: Path, kek: Kek) -> SigningKey:
    """Open a sealed signing key with the KEK; a wrong KEK or an edited file is a clear error."""
    data = _read_sealed(path)
    try:
        nonce = base64.b64decode(data["nonce"], validate=True)
        sealed = base64.b64decode(data["sealed_key"], validate=True)
        raw = AESGCM(kek.key).decrypt(nonce, sealed, f"{SIGNING_FORMAT}\0{data['key_id']}".encode())
        private = Ed25519PrivateKey.from_private_bytes(raw)
    except InvalidTag:
        raise SigningKeyError(f"the key-encryption key {kek.fingerprint} does not open this signing key (it was "
                              f"sealed under {data.get('kek_fingerprint', 'another key')}), or the file was changed",
                              where=str(path), fix="use the KEK the key was made with, or restore the file") from None
    except (KeyError, binascii.Error, ValueError):
        raise SigningKeyError("the signing key file is damaged (a field is missing or not base64)", where=str(path),
                              fix="restore it from backup, or make a new key with `keys signing-init`") from None
    opened = SigningKey(private, str(path))
    if opened.key_id != data["key_id"]:
        raise SigningKeyError("the signing key file's key_id does not match its key", where=str(path),
                              fix="restore it from backup")
    return opened


def rewrap_signing_key(path: Path, old: Kek, new: Kek) -> SigningKey:
    """Seal an existing signing key under a new KEK (the key itself, and so its .pub, stay the same)."""
    opened = load_signing_key(path, old)
    write_secret_file(path, json.dumps(_seal(opened.private, new), indent=2) + "\n", replace=True)
    return opened


def load_public_key(path: Path) -> Ed25519PublicKey:
    """A recipient's copy of the public key (PEM, as written by `keys signing-init`)."""
    data = read_bounded(path, "public key file", limits=Limits(max_bytes=64 << 10), error=SigningKeyError,
                        if_missing="give the .pub file written beside the signing key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise SigningKeyError("the file is not a PEM public key", where=str(path),
                              fix="give the .pub file written beside the signing key (not the sealed key)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError("the public key is not an Ed25519 key", where=str(path),
                              fix="give the .pub file written by `medhelm-local keys signing-init`")
    return key
