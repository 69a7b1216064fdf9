"""Key-encryption keys and the envelope that wraps each store's data key."""

from __future__ import annotations

import base64
import dataclasses
import os
import stat
import tempfile
from pathlib import Path

import pytest

from medhelm_local.errors import ConfigError, StoreKeyError
from medhelm_local.settings import Settings, load_settings
from medhelm_local.store.keys import Envelope, Kek, load_kek, rewrap, seal_new_data_key, unwrap, write_new_kek

KEY = bytes(range(32))


def test_a_new_kek_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "kek"

    kek = write_new_kek(path)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert bytes.fromhex(path.read_text().strip()) == kek.key
    assert len(kek.key) == 32


def test_two_new_keks_differ(tmp_path: Path) -> None:
    assert write_new_kek(tmp_path / "a").key != write_new_kek(tmp_path / "b").key


def test_a_new_kek_never_overwrites_an_existing_file(kek_file: Path) -> None:
    before = kek_file.read_bytes()

    with pytest.raises(ConfigError) as caught:
        write_new_kek(kek_file)

    assert "already exists" in str(caught.value)
    assert str(kek_file) in str(caught.value)
    assert kek_file.read_bytes() == before


def test_the_kek_file_written_by_keys_init_loads_back(kek_file: Path, kek: Kek) -> None:
    loaded = load_kek(load_settings(kek_file=kek_file))

    assert loaded.key == kek.key
    assert loaded.source == str(kek_file)


@pytest.mark.parametrize("written", [KEY.hex(), KEY.hex().upper() + "\n", base64.b64encode(KEY).decode(),
                                     "  " + base64.b64encode(KEY).decode() + "\n"])
def test_a_kek_file_may_hold_hex_or_base64(tmp_path: Path, written: str) -> None:
    path = tmp_path / "kek"
    path.write_text(written)
    path.chmod(0o600)

    assert load_kek(load_settings(kek_file=path)).key == KEY


def test_the_kek_file_can_be_named_in_the_environment(kek_file: Path, kek: Kek,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_KEK_FILE", str(kek_file))

    assert load_kek(load_settings()).key == kek.key


def test_the_kek_can_come_from_medhelm_kek(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_KEK", KEY.hex())

    kek = load_kek(load_settings())

    assert kek.key == KEY
    assert kek.source == "MEDHELM_KEK"


def test_the_kek_file_is_preferred_over_medhelm_kek(kek_file: Path, kek: Kek,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_KEK", KEY.hex())

    assert load_kek(load_settings(kek_file=kek_file)).key == kek.key


@pytest.mark.parametrize("written", ["ab" * 16, "ab" * 33, base64.b64encode(bytes(16)).decode(), "not a key", ""])
def test_a_kek_of_the_wrong_length_is_refused_with_what_to_do(tmp_path: Path, written: str) -> None:
    path = tmp_path / "kek"
    path.write_text(written)
    path.chmod(0o600)

    with pytest.raises(StoreKeyError) as caught:
        load_kek(load_settings(kek_file=path))

    message = str(caught.value)
    assert "not 32 bytes" in message
    assert str(path) in message
    assert "What to do:" in message and "keys init" in message
    assert written.strip() == "" or written not in message


def test_a_wrong_length_medhelm_kek_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEDHELM_KEK", "ab" * 31)

    with pytest.raises(StoreKeyError, match="Where: MEDHELM_KEK"):
        load_kek(load_settings())


def test_no_kek_configured_says_how_to_make_one() -> None:
    with pytest.raises(StoreKeyError) as caught:
        load_kek(load_settings())

    assert "no key-encryption key" in str(caught.value)
    assert "keys init" in str(caught.value)


def test_a_missing_kek_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(StoreKeyError, match="the key-encryption key file does not exist"):
        load_kek(load_settings(kek_file=tmp_path / "gone"))


@pytest.mark.parametrize(("mode", "who"), [(0o644, "others (mode 0644)"), (0o604, "others (mode 0604)"),
                                         (0o640, "its group (mode 0640)"), (0o620, "its group (mode 0620)")])
def test_a_kek_file_anyone_but_its_owner_may_read_is_refused_with_the_chmod(kek_file: Path, kek: Kek, mode: int,
                                                                            who: str) -> None:
    """Issue 29, finding 8: a KEK readable by others (mode 0644) was used without a word."""
    kek_file.chmod(mode)

    with pytest.raises(StoreKeyError) as caught:
        load_kek(load_settings(kek_file=kek_file))

    message = str(caught.value)
    assert f"the key-encryption key file may be read or changed by {who}" in message
    assert f"Where: {kek_file}" in message and f"chmod 600 {kek_file}" in message
    assert kek.key.hex() not in message


@pytest.mark.parametrize("mode", [0o600, 0o400])
def test_an_owner_only_kek_file_is_used(kek_file: Path, kek: Kek, mode: int) -> None:
    kek_file.chmod(mode)

    assert load_kek(load_settings(kek_file=kek_file)).key == kek.key


def _load_as(path: Path, uid: int, groups: list[int]) -> str:
    """load_kek in a forked child running as uid with these groups (as a pod's process runs): the
    fingerprint, or the error's message."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to the pod's identity, then read the key as the program does
        os.close(read)
        try:
            os.setgroups(groups)
            os.setgid(uid)
            os.setuid(uid)
            try:
                said = load_kek(Settings(kek_file=path)).fingerprint
            except Exception as err:
                said = f"{type(err).__name__}: {err}"
            os.write(write, said.encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        said = fh.read().decode()
    os.waitpid(pid, 0)
    return said


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a root-owned file and run a process as another user")
def test_a_kubernetes_secret_mounted_for_the_pods_fsgroup_is_used(kek: Kek) -> None:
    """In a pod with an fsGroup the kubelet mounts a Secret's file root-owned, group fsGroup, mode 0440: the
    non-root process reads it through its group. That is allowed; a group that may write it, or others, are not."""
    pod_user, fs_group = 10001, 10002
    folder = Path(tempfile.mkdtemp(prefix="medhelm-secret-"))
    try:
        folder.chmod(0o755)
        secret = folder / "kek"
        secret.write_text(kek.key.hex() + "\n")
        os.chown(secret, 0, fs_group)
        secret.chmod(0o440)
        assert _load_as(secret, pod_user, [fs_group]) == kek.fingerprint
        for mode, who in ((0o460, "its group (mode 0460)"), (0o444, "others (mode 0444)")):
            secret.chmod(mode)
            said = _load_as(secret, pod_user, [fs_group])
            assert who in said and f"chmod 600 {secret}" in said
        secret.chmod(0o440)
        assert "cannot read" in _load_as(secret, pod_user, [])  # not in the group: the system refuses it
        # The same bits are refused to root, the owner: it does not read the file through a group.
        with pytest.raises(StoreKeyError, match="its group"):
            load_kek(load_settings(kek_file=secret))
    finally:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


def test_a_sealed_data_key_unwraps_with_the_same_kek(kek: Kek) -> None:
    envelope, data_key = seal_new_data_key(kek)

    assert len(data_key) == 32
    assert data_key not in envelope.wrapped
    assert envelope.kek_fingerprint == kek.fingerprint
    assert unwrap(envelope, kek, "store.duckdb") == data_key


def test_every_store_gets_its_own_id_and_data_key(kek: Kek) -> None:
    (one, key_one), (two, key_two) = seal_new_data_key(kek), seal_new_data_key(kek)

    assert one.store_id != two.store_id
    assert key_one != key_two


def test_an_envelope_survives_being_written_and_read(kek: Kek, tmp_path: Path) -> None:
    envelope, data_key = seal_new_data_key(kek)
    path = Envelope.path_for(tmp_path / "suite.duckdb")

    envelope.write(path)

    assert path.name == "suite.duckdb.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert data_key.hex() not in path.read_text()
    assert unwrap(Envelope.read(path), kek, str(path)) == data_key


def test_a_damaged_envelope_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "suite.duckdb.key"
    path.write_text('{"format": "something else"}')

    with pytest.raises(StoreKeyError, match="missing or damaged"):
        Envelope.read(path)


def test_another_kek_is_refused_naming_both_fingerprints(kek: Kek, tmp_path: Path) -> None:
    envelope, _ = seal_new_data_key(kek)
    other = write_new_kek(tmp_path / "other-kek")

    with pytest.raises(StoreKeyError) as caught:
        unwrap(envelope, other, "store.duckdb")

    message = str(caught.value)
    assert kek.fingerprint in message
    assert other.fingerprint in message
    assert "Where: store.duckdb" in message
    assert kek.key.hex() not in message and other.key.hex() not in message


def test_an_envelope_moved_onto_another_store_does_not_open(kek: Kek) -> None:
    envelope, _ = seal_new_data_key(kek)
    moved = dataclasses.replace(envelope, store_id="00000000-0000-4000-8000-000000000000")

    with pytest.raises(StoreKeyError, match="tampered or mismatched"):
        unwrap(moved, kek, "other.duckdb")


def test_a_flipped_bit_in_the_wrapped_key_is_detected(kek: Kek) -> None:
    envelope, _ = seal_new_data_key(kek)
    flipped = bytes([envelope.wrapped[0] ^ 1]) + envelope.wrapped[1:]

    with pytest.raises(StoreKeyError, match="tampered or mismatched"):
        unwrap(dataclasses.replace(envelope, wrapped=flipped), kek, "store.duckdb")


def test_rewrap_keeps_the_data_key_under_a_new_kek(kek: Kek, tmp_path: Path) -> None:
    envelope, data_key = seal_new_data_key(kek)
    new = write_new_kek(tmp_path / "new-kek")

    rotated = rewrap(envelope, kek, new, "store.duckdb")

    assert unwrap(rotated, new, "store.duckdb") == data_key
    assert rotated.store_id == envelope.store_id
    assert rotated.created_at == envelope.created_at
    assert rotated.kek_fingerprint == new.fingerprint
    with pytest.raises(StoreKeyError):
        unwrap(rotated, kek, "store.duckdb")


def test_rewrap_with_the_wrong_old_kek_is_refused(kek: Kek, tmp_path: Path) -> None:
    envelope, _ = seal_new_data_key(kek)
    stranger = write_new_kek(tmp_path / "stranger")

    with pytest.raises(StoreKeyError):
        rewrap(envelope, stranger, write_new_kek(tmp_path / "new"), "store.duckdb")


def test_a_kek_never_shows_its_key(kek: Kek) -> None:
    shown = [repr(kek), str(kek), f"{kek}", repr([kek])]

    for text in shown:
        assert kek.key.hex() not in text
        assert kek.key.hex().upper() not in text
        assert base64.b64encode(kek.key).decode() not in text
        assert kek.fingerprint in text


def test_the_fingerprint_is_stable_and_differs_between_keys() -> None:
    assert Kek(KEY, "a").fingerprint == Kek(KEY, "b").fingerprint
    assert Kek(KEY, "a").fingerprint != Kek(bytes(32), "a").fingerprint
    assert KEY.hex()[:16] != Kek(KEY, "a").fingerprint
