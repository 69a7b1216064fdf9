"""Signed export bundles: files, a manifest with the sha256 of each, and an Ed25519 signature over it.

    BUNDLE/
      MANIFEST.json        what is inside and where it came from (see `build_manifest`)
      MANIFEST.json.sig    base64 Ed25519 signature over the exact bytes of MANIFEST.json
      runs.json ...        the artifacts, each listed in the manifest with its sha256 and size

A bundle is written into a hidden folder beside its destination (`.NAME.PID.XXXX.partial`) and renamed
into place only when complete, so a failed export leaves nothing behind. The signature is written
last, after the audit log holds the export: a folder left by an export killed earlier has no valid
signature, and a partial folder is refused by `verify` whatever it holds. Partial folders of
exports whose process is gone are removed by the next export to the same destination.
`verify_bundle` needs only the public key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from medhelm_local.errors import ConfigError, IntegrityError
from medhelm_local.export.signing import SigningKey, key_id, signature_valid
from medhelm_local.output_paths import output_error
from medhelm_local.safe_parse import Limits, decode, parse_json, read_bounded
from medhelm_local.scenarios.datafiles import sha256_file

BUNDLE_FORMAT = "medhelm-local-export/1"
MANIFEST = "MANIFEST.json"
SIGNATURE = "MANIFEST.json.sig"
PARTIAL = ".partial"
_MANIFEST_LIMITS = Limits(max_bytes=64 << 20)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def glob_escape(name: str) -> str:
    """`name` with glob's special characters matched literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def remove_stale_partials(destination: Path) -> list[Path]:
    """Remove the staging folders of earlier exports to `destination` whose process is gone; return them."""
    removed = []
    for folder in destination.parent.glob(f".{glob_escape(destination.name)}.*{PARTIAL}"):
        pid = folder.name[len(destination.name) + 2:].split(".", 1)[0]
        if folder.is_dir() and pid.isdigit() and not _process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


@contextmanager
def staging_folder(destination: Path) -> Iterator[Path]:
    """A hidden folder beside `destination`, renamed to it when the block finishes, removed if it fails."""
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise ConfigError("the export destination exists and is not an empty folder", where=str(destination),
                          fix="give a new folder to write the bundle to; bundles are never merged or overwritten")
    parent = destination.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_partials(destination)
        staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.{os.getpid()}.", suffix=PARTIAL, dir=parent))
    except OSError as exc:
        raise ConfigError(f"cannot write the export there ({exc.strerror})", where=str(parent),
                          fix="check that the folder is writable") from None
    try:
        yield staging
        if destination.exists():
            destination.rmdir()  # empty, checked above
        os.replace(staging, destination)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):  # a full disk, a folder that became read-only: nothing is left behind
            raise output_error(exc, destination, "export bundle") from None
        raise


def write_json(folder: Path, name: str, value: Any) -> None:
    """One JSON artifact, indented for people."""
    (folder / name).write_text(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
                               encoding="utf-8")


def write_jsonl(folder: Path, name: str, rows: list[dict[str, Any]]) -> None:
    """One JSON-lines artifact, a row per line."""
    with (folder / name).open("w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


# A bundle file not yet written: called with the staging folder and the file's name once the export is decided.
Writer = Callable[[Path, str], None]


def json_file(value: Any) -> Writer:
    """A JSON artifact to write (write_json)."""
    return lambda folder, name: write_json(folder, name, value)


def jsonl_file(rows: list[dict[str, Any]]) -> Writer:
    """A JSON-lines artifact to write (write_jsonl)."""
    return lambda folder, name: write_jsonl(folder, name, rows)


def text_tree(files: Mapping[str, str]) -> Writer:
    """A folder of text files (the report), by path relative to it."""
    def write(folder: Path, name: str) -> None:
        for relative, text in files.items():
            path = folder / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return write


def bundle_files(folder: Path) -> list[str]:
    """Every file of a bundle but its manifest and signature, as sorted paths relative to it ("a/b.json")."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and p.relative_to(folder).as_posix() not in (MANIFEST, SIGNATURE))


def write_manifest(folder: Path, manifest: Mapping[str, Any], key: SigningKey | None, *, sign: bool = True) -> bytes:
    """List every file in `folder` with its sha256 in the manifest and write it, signed when a key is
    given (an unsigned manifest says `signing_key_id: null`), unless `sign` is False: then the manifest
    names the key and `sign_manifest` writes the signature later. Return the manifest's bytes."""
    files = {rel: {"sha256": sha256_file(folder / rel), "bytes": (folder / rel).stat().st_size}
             for rel in bundle_files(folder)}
    body = {**manifest, "files": files, "signing_key_id": key.key_id if key is not None else None}
    data = (json.dumps(body, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode()
    (folder / MANIFEST).write_bytes(data)
    if key is not None and sign:
        sign_manifest(folder, data, key)
    return data


def sign_manifest(folder: Path, data: bytes, key: SigningKey) -> None:
    """Write the signature over the manifest's bytes."""
    (folder / SIGNATURE).write_text(base64.b64encode(key.sign(data)).decode() + "\n", encoding="ascii")


def write_export_manifest(folder: Path, manifest: Mapping[str, Any], key: SigningKey) -> bytes:
    """An export bundle's manifest, written but not yet signed (the signature comes after the audit record)."""
    return write_manifest(folder, {**manifest, "format": BUNDLE_FORMAT}, key, sign=False)


@dataclass(frozen=True)
class Verification:
    """What `verify_bundle` found: the manifest (when readable) and every difference."""

    manifest: Mapping[str, Any]
    problems: list[str]

    @property
    def ok(self) -> bool:
        """True when the signature and every file check out."""
        return not self.problems


def _read_signature(folder: Path) -> bytes | None:
    try:
        return base64.b64decode((folder / SIGNATURE).read_text(encoding="ascii").strip(), validate=True)
    except (OSError, UnicodeDecodeError, binascii.Error, ValueError):
        return None


def _read_manifest(folder: Path) -> bytes:
    if not folder.is_dir():
        raise ConfigError("the bundle is not a folder", where=str(folder), fix="give the folder an export wrote")
    if not os.path.lexists(folder / MANIFEST):
        raise IntegrityError("the bundle has no MANIFEST.json", where=str(folder),
                             fix="ask the sender for the complete bundle")
    return read_bounded(folder / MANIFEST, "bundle's MANIFEST.json", limits=_MANIFEST_LIMITS, error=IntegrityError)


def _parsed(data: bytes, folder: Path) -> Any:
    """The manifest's JSON, or IntegrityError naming the line where it stops being a manifest."""
    where = str(folder / MANIFEST)
    what = "bundle's MANIFEST.json"
    return parse_json(decode(data, where, what, IntegrityError), where, what, limits=_MANIFEST_LIMITS,
                      error=IntegrityError)


def _check_files(folder: Path, data: bytes, problems: list[str], public: Ed25519PublicKey | None = None
                 ) -> Verification:
    """Every file in the folder against the manifest's list, after the problems found so far."""
    try:
        manifest: Mapping[str, Any] = _parsed(data, folder)
        listed: Mapping[str, Mapping[str, Any]] = dict(manifest["files"])
        if not all(isinstance(meta, Mapping) for meta in listed.values()):
            raise TypeError("a file's entry is not a mapping")
    except IntegrityError as exc:
        return Verification({}, [*problems, f"{MANIFEST} is not a readable manifest: {exc.what} ({exc.where})"])
    except (KeyError, TypeError, ValueError):
        return Verification({}, [*problems, f"{MANIFEST} is not a readable manifest"])
    if public is not None and manifest.get("signing_key_id") not in (None, key_id(public)):
        problems.append(f"the manifest names signing key {manifest.get('signing_key_id')}, "
                        f"and the public key given is {key_id(public)}")
    present = set(bundle_files(folder))
    for name in sorted(set(listed) - present):
        problems.append(f"{name} is listed in the manifest and missing from the bundle")
    for name in sorted(present - set(listed)):
        problems.append(f"{name} is in the bundle and not in the manifest (added after signing)")
    for name in sorted(set(listed) & present):
        path = folder / name
        if path.is_symlink():
            problems.append(f"{name} is a symbolic link, not a plain file")
            continue
        if sha256_file(path) != listed[name].get("sha256"):
            problems.append(f"{name} differs from the signed manifest (sha256 {sha256_file(path)[:16]}..., "
                            f"signed {str(listed[name].get('sha256'))[:16]}...; {path.stat().st_size} bytes, "
                            f"signed {listed[name].get('bytes')})")
    return Verification(manifest, problems)


def verify_bundle(folder: Path, public: Ed25519PublicKey) -> Verification:
    """Check the signature over the manifest, then every file against it; report each difference."""
    data = _read_manifest(folder)
    problems: list[str] = []
    if folder.name.endswith(PARTIAL):
        problems.append(f"the folder is the staging folder of an export that did not finish (named *{PARTIAL}); "
                        "it was never delivered")
    signature = _read_signature(folder)
    if signature is None:
        problems.append(f"{SIGNATURE} is missing or not base64: the manifest is unsigned")
    elif not signature_valid(public, data, signature):
        problems.append(f"the signature does not match {MANIFEST} under this public key (key {key_id(public)}): "
                        "the manifest was changed, or it was signed by another key")
    return _check_files(folder, data, problems, public)


def verify_unsigned(folder: Path) -> Verification:
    """Check every file against the manifest, without a signature: proves only that nothing was damaged
    in transit, not who made the bundle (anyone can rewrite an unsigned manifest)."""
    return _check_files(folder, _read_manifest(folder), [])


def bundle_problems(folder: Path, publics: Sequence[Ed25519PublicKey]) -> list[str]:
    """What is wrong with a bundle: its signature under the key it names among `publics` (the first if it
    names none of them) and every file against the manifest; without keys, the files only."""
    try:
        wanted = _parsed(_read_manifest(folder), folder).get("signing_key_id")
    except (IntegrityError, AttributeError):
        wanted = None
    public = next((p for p in publics if key_id(p) == wanted), publics[0] if publics else None)
    return (verify_bundle(folder, public) if public is not None else verify_unsigned(folder)).problems


def audit_anchor(folder: Path) -> tuple[tuple[int, str] | None, str]:
    """What a bundle proves about the audit log: the (seq, hash) head it saw, and its manifest sha256."""
    try:
        data = _read_manifest(folder)
        head = _parsed(data, folder).get("audit_head_before")
        anchor = (int(head["seq"]), str(head["hash"])) if head else None
    except IntegrityError as exc:
        raise ConfigError(f"the bundle has no readable MANIFEST.json: {exc.what}", where=exc.where or str(folder),
                          fix="give a bundle folder written by `medhelm-local export`") from None
    except (AttributeError, KeyError, TypeError, ValueError):
        raise ConfigError("the bundle has no readable MANIFEST.json", where=str(folder / MANIFEST),
                          fix="give a bundle folder written by `medhelm-local export`") from None
    return anchor, hashlib.sha256(data).hexdigest()
