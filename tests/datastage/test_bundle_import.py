"""`medhelm-local data import BUNDLE` on the appliance: verified, copied with its checksums, audited."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from support.mirror_server import serve_mirror
from support.staging import mirror_folders, published_mirror, served_plan

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.data.stage import stage
from medhelm_local.export.signing import SigningKey, public_key_path, write_signing_key
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.store.keys import Kek

FOLDERS = ["medcalc_bench", "pubmedqa"]


def staged(tmp_path: Path, key: SigningKey | None, folders: list[str] = FOLDERS) -> Path:
    """A bundle staged from the local mirror (signed with `key` when given)."""
    bundle = tmp_path / "carried" / "bundle"
    with serve_mirror(mirror_folders()) as mirror:
        stage(served_plan(mirror.url, folders), bundle, Allowlist([("127.0.0.1", mirror.port)]), key)
    return bundle


class Appliance:
    """An appliance's data root, audit log and KEK, and its CLI."""

    def __init__(self, tmp_path: Path, kek_file: Path) -> None:
        self.data = tmp_path / "appliance" / "data"
        self.config = tmp_path / "appliance.toml"
        self.config.write_text(f'data_root = "{self.data}"\n')
        self.env = {"MEDHELM_KEK_FILE": str(kek_file)}

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_cli("-c", str(self.config), *args, env=self.env)

    def audit(self, kind: str) -> list[dict[str, object]]:
        shown = self.cli("audit", "show", "--kind", kind, "--json")
        assert shown.returncode == 0, shown.stderr
        records: list[dict[str, object]] = json.loads(shown.stdout)
        return records


@pytest.fixture
def appliance(tmp_path: Path, kek_file: Path) -> Appliance:
    return Appliance(tmp_path, kek_file)


@pytest.fixture
def signing_key(tmp_path: Path, kek: Kek) -> SigningKey:
    return write_signing_key(tmp_path / "staging-host" / "staging.key", kek)


def pub(key: SigningKey) -> str:
    return str(public_key_path(Path(key.source)))


def test_a_signed_bundle_is_imported_with_its_checksums_and_recorded(
        tmp_path: Path, appliance: Appliance, signing_key: SigningKey) -> None:
    bundle = staged(tmp_path, signing_key)

    result = appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key))

    assert result.returncode == 0, result.stderr
    assert f"signature valid (key {signing_key.key_id})" in " ".join(result.stdout.split())
    for folder in FOLDERS:
        recorded = json.loads((appliance.data / folder / "MANIFEST.json").read_text())
        carried = json.loads((bundle / "MANIFEST.json").read_text())["datasets"][folder]
        assert recorded["files"] == {n: f["sha256"] for n, f in carried["files"].items()}
        assert recorded["bundle"]["signing_key_id"] == signing_key.key_id
        assert recorded["licence"] == carried["licence"] and recorded["commit"] == carried["commit"]
    assert len(create("medcalc_bench").load(DataRoot(appliance.data))) > 0
    [record] = appliance.audit("data_import")
    assert record["kind"] == "data_import.done"
    details = record["details"]
    assert isinstance(details, dict)
    assert sorted(details["imported"]) == FOLDERS and details["signing_key_id"] == signing_key.key_id


def _edit_a_file(bundle: Path) -> None:
    path = bundle / "datasets" / "pubmedqa" / "ori_pqal.json"
    path.write_bytes(path.read_bytes().replace(b"yes", b"no!", 1))


def _edit_the_manifest(bundle: Path) -> None:
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    manifest["datasets"]["pubmedqa"]["licence"] = "public domain"
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def _add_a_file(bundle: Path) -> None:
    (bundle / "datasets" / "pubmedqa" / "extra.json").write_text("{}")


def _link_a_system_file(bundle: Path) -> None:
    target = bundle / "datasets" / "pubmedqa" / "ori_pqal.json"
    target.unlink()
    target.symlink_to("/etc/passwd")


@pytest.mark.parametrize("tamper", [_edit_a_file, _edit_the_manifest, _add_a_file, _link_a_system_file])
def test_a_tampered_bundle_is_refused_with_exit_4_and_nothing_is_imported(
        tmp_path: Path, appliance: Appliance, signing_key: SigningKey, tamper: object) -> None:
    bundle = staged(tmp_path, signing_key)
    tamper(bundle)  # type: ignore[operator]

    result = appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key))

    assert result.returncode == 4, result.stderr
    assert "the bundle does not verify" in " ".join(result.stderr.split())
    assert "Traceback" not in result.stderr
    assert not appliance.data.exists() or not any(appliance.data.iterdir())
    [record] = appliance.audit("data_import")
    assert record["kind"] == "data_import.refused"


def test_a_bundle_signed_by_another_key_is_refused(
        tmp_path: Path, appliance: Appliance, signing_key: SigningKey, kek: Kek) -> None:
    bundle = staged(tmp_path, signing_key)
    other = write_signing_key(tmp_path / "other" / "other.key", kek)

    result = appliance.cli("data", "import", str(bundle), "--public-key", pub(other))

    assert result.returncode == 4
    assert "signed by another key" in " ".join(result.stderr.split())
    assert not appliance.data.exists() or not any(appliance.data.iterdir())


def test_an_unsigned_bundle_needs_the_explicit_flag(tmp_path: Path, appliance: Appliance) -> None:
    bundle = staged(tmp_path, None)

    refused = appliance.cli("data", "import", str(bundle))

    assert refused.returncode == 2
    assert "no public key was given" in " ".join(refused.stderr.split())
    assert not appliance.data.exists() or not any(appliance.data.iterdir())
    accepted = appliance.cli("data", "import", str(bundle), "--allow-unsigned")
    if published_mirror():
        assert accepted.returncode == 0, accepted.stderr
        assert "unsigned, every file matching the checksums shipped with medhelm-local" in " ".join(
            accepted.stdout.split())
        assert sorted(p.name for p in appliance.data.iterdir()) == FOLDERS
    else:  # the fixtures are subsets, so nothing vouches for an unsigned bundle of them
        assert accepted.returncode == 4
        assert "is not the published version" in " ".join(accepted.stderr.split())


def test_an_unsigned_bundle_rewritten_consistently_is_still_refused(tmp_path: Path, appliance: Appliance) -> None:
    bundle = staged(tmp_path, None, ["pubmedqa"])
    _edit_a_file(bundle)
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    from medhelm_local.scenarios.datafiles import sha256_file

    new = sha256_file(bundle / "datasets" / "pubmedqa" / "ori_pqal.json")
    manifest["files"]["datasets/pubmedqa/ori_pqal.json"]["sha256"] = new
    manifest["datasets"]["pubmedqa"]["files"]["ori_pqal.json"]["sha256"] = new
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest))

    result = appliance.cli("data", "import", str(bundle), "--allow-unsigned")

    assert result.returncode == 4
    assert "pubmedqa is not the published version" in " ".join(result.stderr.split())
    assert not appliance.data.exists() or not any(appliance.data.iterdir())


def test_reimporting_leaves_identical_folders_and_refuses_to_overwrite_different_ones(
        tmp_path: Path, appliance: Appliance, signing_key: SigningKey) -> None:
    bundle = staged(tmp_path, signing_key)
    assert appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key)).returncode == 0

    again = appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key))

    assert again.returncode == 0, again.stderr
    assert "pubmedqa is already in the data root with exactly these files" in again.stdout
    shutil.rmtree(appliance.data / "pubmedqa")
    shutil.copytree(mirror_folders()["medqa_usmle_4opt"], appliance.data / "pubmedqa")
    different = appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key))
    assert different.returncode == 2
    assert "already holds a different pubmedqa" in " ".join(different.stderr.split())
    assert appliance.cli("data", "import", str(bundle), "--public-key", pub(signing_key),
                         "--replace").returncode == 0


def test_importing_needs_the_audit_log(tmp_path: Path, signing_key: SigningKey) -> None:
    bundle = staged(tmp_path, signing_key, ["pubmedqa"])
    config = tmp_path / "no-kek.toml"
    config.write_text(f'data_root = "{tmp_path / "data"}"\n')

    result = run_cli("-c", str(config), "data", "import", str(bundle), "--public-key", pub(signing_key))

    assert result.returncode == 2
    assert "no key-encryption key is configured" in result.stderr
    assert not (tmp_path / "data").exists()


def test_a_dataset_folder_still_imports_on_its_own(tmp_path: Path) -> None:
    result = run_cli("data", "import", str(mirror_folders()["pubmedqa"]), "--data-root", str(tmp_path / "data"))

    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "pubmedqa" / "MANIFEST.json").is_file()


@pytest.mark.parametrize("option", [["--allow-unsigned"], ["--public-key", "staging.pub"]])
def test_a_bundle_option_given_with_a_plain_folder_is_refused_not_ignored(tmp_path: Path, option: list[str]) -> None:
    """Issue 29, finding 8: `--allow-unsigned` was silently ignored for a plain folder."""
    result = run_cli("data", "import", str(mirror_folders()["pubmedqa"]), "--data-root", str(tmp_path / "data"),
                     *option)

    said = " ".join(result.stderr.split())
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert option[0] in said and "is a dataset folder, not a bundle written by `data stage`" in said
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(("folder", "name", "why"), [
    ("..evil", None, "starts with '.', which makes a hidden folder"),
    ("pubmedqa", ".hidden", "starts with '.', which makes a hidden folder"),
    ("pubmedqa", "-rf", "starts with '-', which commands would read as an option"),
    ("pubmedqa", "bad\nname", "holds a control character"),
])
def test_a_dataset_folder_name_that_is_hidden_or_unsafe_is_refused(tmp_path: Path, folder: str, name: str | None,
                                                                     why: str) -> None:
    """Issue 29, finding 8: a folder named `..evil` imported as a hidden dataset."""
    source = tmp_path / "usb" / folder
    shutil.copytree(mirror_folders()["pubmedqa"], source)
    root = tmp_path / "data"
    result = run_cli("data", "import", str(source), "--data-root", str(root), *(["--name", name] if name else []))

    said = " ".join(result.stderr.split())
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{name or folder!r} cannot name a dataset folder: it {why}" in said and "--name" in said
    assert not root.exists() or list(root.iterdir()) == []
