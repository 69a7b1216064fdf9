"""`data import BUNDLE`: check a staged bundle, copy every dataset into the data root, and record it.

What makes a bundle trustworthy is either its signature (checked with the public key the hospital
holds for its staging host) or, for an unsigned bundle accepted with `--allow-unsigned`, the
package's own published checksums: every file of an unsigned bundle must match them, since anyone
can rewrite an unsigned manifest. Every attempt, done, refused or failed, is an audit record.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from medhelm_local.audit.log import recorded_attempt
from medhelm_local.data.stage import DATA_BUNDLE_FORMAT, DATASETS, valid_folder_name
from medhelm_local.errors import DataImportError, IntegrityError, MedhelmError
from medhelm_local.export.bundle import MANIFEST, SIGNATURE, verify_bundle, verify_unsigned
from medhelm_local.export.signing import key_id
from medhelm_local.scenarios.datafiles import DataRoot, ImportReport, import_dataset
from medhelm_local.scenarios.dataset_sources import dataset_sources

if TYPE_CHECKING:
    from medhelm_local.audit import AuditLog

_REFUSED_FIX = "do not use it: stage the data again on the staging host and carry the new bundle in"


def is_data_bundle(path: Path) -> bool:
    """True if the folder looks like a bundle written by `data stage` (rather than one dataset folder)."""
    # Whatever MANIFEST.json is (a file, or something hostile in its place), the bundle's reader says what is wrong.
    return (path / DATASETS).is_dir() and os.path.lexists(path / MANIFEST)


@dataclass(frozen=True)
class BundleImport:
    """What `import_bundle` did."""

    imported: tuple[ImportReport, ...]
    unchanged: tuple[str, ...]  # folders already in the data root with exactly these files
    signing_key_id: str | None
    manifest_sha256: str
    audit_seq: int


def _refused(bundle: Path, what: str) -> IntegrityError:
    return IntegrityError(what, where=str(bundle), fix=_REFUSED_FIX)


def _datasets(bundle: Path, manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifest's datasets, after checking that they and its file list describe the same files."""
    if manifest.get("format") != DATA_BUNDLE_FORMAT:
        raise _refused(bundle, f"the bundle's format is {manifest.get('format')!r}, not {DATA_BUNDLE_FORMAT}")
    try:
        datasets = {str(k): dict(v) for k, v in dict(manifest["datasets"]).items()}
        listed = {folder: {str(n): str(f["sha256"]) for n, f in dict(entry["files"]).items()}
                  for folder, entry in datasets.items()}
    except (KeyError, TypeError, ValueError):
        raise _refused(bundle, "the bundle's manifest has no readable list of datasets") from None
    files = {rel: str(meta.get("sha256")) for rel, meta in dict(manifest["files"]).items()}
    described = {f"{DATASETS}/{folder}/{name}": sha for folder, names in listed.items() for name, sha in names.items()}
    bad_names = sorted(f for f in datasets if not valid_folder_name(f))
    if bad_names:
        raise _refused(bundle, f"the manifest names dataset folders that are not plain names: {bad_names[:3]}")
    if files != described:
        odd = sorted(set(files) ^ set(described) | {r for r in files if files[r] != described.get(r)})
        raise _refused(bundle, f"the manifest contradicts itself about {', '.join(odd[:3])}")
    return datasets


def _check_unsigned(bundle: Path, datasets: Mapping[str, Mapping[str, Any]]) -> None:
    """An unsigned bundle is only as good as the package's own checksums: every file must match them."""
    published = dataset_sources()
    for folder, entry in datasets.items():
        want = published[folder].checksums if folder in published else None
        got = {name: str(f["sha256"]) for name, f in dict(entry["files"]).items()}
        if want != got:
            raise _refused(bundle, f"the bundle is unsigned and {folder} is not the published version shipped "
                                   "with medhelm-local, so nothing vouches for it")


def _unchanged(root: DataRoot, folder: str, expected: Mapping[str, str], replace: bool) -> bool:
    """True if the data root already holds exactly these files; refuse to overwrite others unless asked."""
    if not (root.root / folder).exists():
        return False
    try:
        recorded = root.recorded(folder)
    except MedhelmError:
        recorded = None
    if recorded == dict(expected):
        return True
    if not replace:
        raise DataImportError(f"the data root already holds a different {folder}", where=str(root.root / folder),
                              fix="pass --replace to replace it with the bundle's copy")
    return False


def _import(bundle: Path, data_root: Path, public: Ed25519PublicKey | None, replace: bool,
            details: dict[str, Any], audit: AuditLog) -> BundleImport:
    result = verify_bundle(bundle, public) if public is not None else verify_unsigned(bundle)
    if not result.ok:
        raise _refused(bundle, "the bundle does not verify: " + "; ".join(result.problems[:5]))
    datasets = _datasets(bundle, result.manifest)
    if public is None:
        _check_unsigned(bundle, datasets)
    manifest_sha = hashlib.sha256((bundle / MANIFEST).read_bytes()).hexdigest()
    details["manifest_sha256"] = manifest_sha
    root = DataRoot(data_root)
    expected = {folder: {n: str(f["sha256"]) for n, f in dict(entry["files"]).items()}
                for folder, entry in datasets.items()}
    unchanged = tuple(f for f in sorted(datasets) if _unchanged(root, f, expected[f], replace))
    signer = result.manifest.get("signing_key_id") if public is not None else None
    imported = []
    for folder in sorted(set(datasets) - set(unchanged)):
        entry = datasets[folder]
        provenance = {"bundle": {"path": str(bundle.resolve()), "manifest_sha256": manifest_sha,
                                 "signing_key_id": signer},
                      **{k: entry.get(k) for k in ("repository", "commit", "licence", "licence_statement")}}
        imported.append(import_dataset(bundle / DATASETS / folder, data_root, replace=True,
                                       expected=expected[folder], provenance=provenance))
    record = audit.append("data_import.done", {
        **details, "signing_key_id": signer, "unchanged": list(unchanged),
        "imported": {r.folder: {"files": len(r.files), "matches_published": r.matches_published} for r in imported}})
    return BundleImport(tuple(imported), unchanged, signer, manifest_sha, record.seq)


def import_bundle(bundle: Path, data_root: Path, audit: AuditLog, public: Ed25519PublicKey | None = None,
                  allow_unsigned: bool = False, replace: bool = False) -> BundleImport:
    """Verify a staged bundle (its signature with `public`, or, if `allow_unsigned`, the shipped checksums),
    copy every dataset into the data root with its checksums, and record the import in the audit log."""
    details: dict[str, Any] = {"bundle": str(bundle.resolve()), "data_root": str(data_root.resolve()),
                               "public_key": key_id(public) if public is not None else None,
                               "allow_unsigned": allow_unsigned}
    with recorded_attempt(audit, "data_import", details, IntegrityError):
        if public is None and not allow_unsigned:
            raise DataImportError("no public key was given to check the bundle's signature",
                                  where=str(bundle / SIGNATURE),
                                  fix="pass --public-key with the staging host's .pub file (or, for an unsigned "
                                      "bundle of published files only, --allow-unsigned)")
        return _import(bundle, data_root, public, replace, details, audit)
