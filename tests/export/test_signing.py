"""Export signing keys: sealed under the KEK like store keys, never overwritten, resealed on rotation."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from support.appliance import Appliance

from medhelm_local.errors import ConfigError, SigningKeyError
from medhelm_local.export import load_public_key, load_signing_key, rewrap_signing_key, write_signing_key
from medhelm_local.store.keys import Kek, write_new_kek


def test_the_private_key_is_sealed_and_owner_only(tmp_path: Path, kek: Kek) -> None:
    key = write_signing_key(tmp_path / "sign.key", kek)
    sealed = (tmp_path / "sign.key").read_bytes()
    assert stat.S_IMODE((tmp_path / "sign.key").stat().st_mode) == 0o600
    assert b"PRIVATE" not in sealed and key.key_id.encode() in sealed
    assert load_signing_key(tmp_path / "sign.key", kek).key_id == key.key_id
    assert load_public_key(tmp_path / "sign.pub") is not None
    raw = key.private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                    serialization.NoEncryption())
    assert raw.hex() not in repr(key) and raw.hex() not in sealed.decode() and key.key_id in repr(key)


def test_another_kek_or_an_edited_file_cannot_open_it(tmp_path: Path, kek: Kek) -> None:
    write_signing_key(tmp_path / "sign.key", kek)
    other = write_new_kek(tmp_path / "other-kek")
    with pytest.raises(SigningKeyError, match=f"key-encryption key {other.fingerprint} does not open"):
        load_signing_key(tmp_path / "sign.key", other)
    text = (tmp_path / "sign.key").read_text()
    (tmp_path / "sign.key").write_text(text.replace('"key_id": "', '"key_id": "0'))
    with pytest.raises(SigningKeyError):
        load_signing_key(tmp_path / "sign.key", kek)


def test_keys_are_never_overwritten(tmp_path: Path, kek: Kek) -> None:
    write_signing_key(tmp_path / "sign.key", kek)
    before = (tmp_path / "sign.key").read_bytes(), (tmp_path / "sign.pub").read_bytes()
    with pytest.raises(ConfigError, match="never overwritten"):
        write_signing_key(tmp_path / "sign.key", kek)
    assert ((tmp_path / "sign.key").read_bytes(), (tmp_path / "sign.pub").read_bytes()) == before


def test_a_link_where_the_public_key_goes_is_never_followed(tmp_path: Path, kek: Kek) -> None:
    (tmp_path / "sign.pub").symlink_to(tmp_path / "elsewhere.pem")
    with pytest.raises(ConfigError, match="never overwritten"):
        write_signing_key(tmp_path / "sign.key", kek)
    assert not (tmp_path / "elsewhere.pem").exists() and not (tmp_path / "sign.key").exists()


def test_rotation_reseals_under_the_new_kek_and_old_bundles_still_verify(appliance: Appliance, tmp_path: Path
                                                                          ) -> None:
    done = appliance.cli("export", "ward", "--to", str(tmp_path / "b1"), "--role", "data_scientist")
    assert done.returncode == 0, done.stderr
    new_kek = tmp_path / "new-kek"
    write_new_kek(new_kek)
    rotated = appliance.cli("keys", "rotate", "--new-kek-file", str(new_kek), "--signing-key",
                            str(appliance.signing_key), "--store", str(appliance.store), "--store",
                            str(appliance.audit))
    assert rotated.returncode == 0, rotated.stderr
    appliance.env["MEDHELM_KEK_FILE"] = str(new_kek)
    again = appliance.cli("export", "ward", "--to", str(tmp_path / "b2"), "--role", "data_scientist")
    assert again.returncode == 0, again.stderr
    for bundle in ("b1", "b2"):
        ok = appliance.cli("verify", str(tmp_path / bundle), "--public-key", str(appliance.public_key))
        assert ok.returncode == 0, ok.stderr
    assert appliance.cli("audit", "verify").returncode == 0


def test_rewrap_with_the_wrong_old_kek_changes_nothing(tmp_path: Path, kek: Kek) -> None:
    write_signing_key(tmp_path / "sign.key", kek)
    before = (tmp_path / "sign.key").read_bytes()
    wrong = write_new_kek(tmp_path / "wrong")
    with pytest.raises(SigningKeyError):
        rewrap_signing_key(tmp_path / "sign.key", wrong, wrong)
    assert (tmp_path / "sign.key").read_bytes() == before
