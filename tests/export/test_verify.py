"""`medhelm-local verify`: a recipient with only the public key detects any change to a bundle."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, isolate
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from support.appliance import Appliance, make_appliance
from support.review import approved_review

from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.keys import write_new_kek


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Appliance, Path]]:
    """The ward appliance and one bundle it exported (reviewed and approved), made once for the module: every test
    here changes only its own copy of the bundle (`bundle`), and the recipient checks it with the public key alone."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(tmp_path_factory, monkeypatch)
        root = tmp_path_factory.mktemp("verify")
        kek_file = root / "kek"
        kek = write_new_kek(kek_file)
        data = root / "data"
        for folder in sorted(p for p in DEMO_DATASETS.iterdir() if p.is_dir()):
            import_dataset(folder, data)
        appliance = make_appliance(root, kek_file, kek, data)
        out = root / "bundle"
        done = appliance.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", "--review",
                             approved_review(appliance, kek))  # the private answers leave once a person approved them
        assert done.returncode == 0, done.stderr
        yield appliance, out


@pytest.fixture
def appliance(exported: tuple[Appliance, Path]) -> Appliance:
    return exported[0]


@pytest.fixture
def bundle(exported: tuple[Appliance, Path], tmp_path: Path) -> Path:
    """This test's own copy of the module's bundle, to change as it likes."""
    return Path(shutil.copytree(exported[1], tmp_path / "bundle"))


def _verify(app: Appliance, bundle: Path, key: Path | None = None) -> tuple[int, str]:
    # No config, no KEK: a recipient has neither.
    from conftest import run_cli

    done = run_cli("verify", str(bundle), "--public-key", str(key or app.public_key))
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout + done.stderr


def test_an_untouched_bundle_verifies_with_the_public_key_alone(appliance: Appliance, bundle: Path) -> None:
    code, text = _verify(appliance, bundle)
    assert code == 0 and "signature valid" in text


def test_a_changed_file_is_named(appliance: Appliance, bundle: Path) -> None:
    path = bundle / "completions.jsonl"
    path.write_text(path.read_text().replace('"ok": false', '"ok": true'))
    code, text = _verify(appliance, bundle)
    assert code == 4 and "completions.jsonl differs from the signed manifest" in text
    assert "scores.jsonl" not in text  # only what changed is named


def test_added_and_removed_files_are_named(appliance: Appliance, bundle: Path) -> None:
    (bundle / "scores.jsonl").unlink()
    (bundle / "extra.csv").write_text("a,b\n")
    code, text = _verify(appliance, bundle)
    assert code == 4
    assert "scores.jsonl is listed in the manifest and missing" in text
    assert "extra.csv is in the bundle and not in the manifest" in text


def test_a_changed_manifest_breaks_the_signature(appliance: Appliance, bundle: Path) -> None:
    manifest = json.loads((bundle / "MANIFEST.json").read_text())
    manifest["created_by"]["role"] = "it_admin"
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    code, text = _verify(appliance, bundle)
    assert code == 4 and "the signature does not match MANIFEST.json" in text


def test_a_forged_signature_and_a_foreign_key_are_refused(appliance: Appliance, bundle: Path) -> None:
    forger = Ed25519PrivateKey.generate()
    data = (bundle / "MANIFEST.json").read_bytes()
    (bundle / "MANIFEST.json.sig").write_text(base64.b64encode(forger.sign(data)).decode())
    code, text = _verify(appliance, bundle)
    assert code == 4 and "the signature does not match" in text
    from cryptography.hazmat.primitives import serialization

    foreign = bundle.parent / "foreign.pub"
    foreign.write_bytes(forger.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo))
    code, text = _verify(appliance, bundle, foreign)  # the forger's own key: signature fine, key id differs
    assert code == 4 and "the manifest names signing key" in text


def test_bad_arguments_are_clear_errors(appliance: Appliance, bundle: Path) -> None:
    code, text = _verify(appliance, bundle, appliance.signing_key)  # the sealed private key, not the .pub
    assert code == 2 and "not a PEM public key" in text
    code, text = _verify(appliance, appliance.root / "nowhere")
    assert code == 2 and "not a folder" in text
    (bundle / "MANIFEST.json").unlink()
    code, text = _verify(appliance, bundle)
    assert code == 4 and "no MANIFEST.json" in text
