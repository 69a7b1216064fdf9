"""The local data root: dataset folders, their sha256 manifests, and `data import`.

Layout: `<data_root>/<folder>/<file>`, the same layout as the published dataset folders, so a
data root can be a read-only copy of them. A folder brought in with `data import` carries a
`MANIFEST.json` with the sha256 of every file at import; files are checked against it on every
load. A folder without one is checked against the published checksums shipped in this package.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from medhelm_local.errors import DataImportError, DatasetCorruptError, DatasetMissingError, IntegrityError
from medhelm_local.safe_parse import load_json

MANIFEST = "MANIFEST.json"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def published_checksums(folder: str) -> dict[str, str] | None:
    """sha256 of each file of a published dataset folder, by file name (None: not a published folder); shipped
    with the package, one manifest per folder: see `medhelm_local.scenarios.dataset_sources`."""
    from medhelm_local.scenarios.dataset_sources import published_source

    source = published_source(folder)
    return None if source is None else dict(source.checksums)


def _how_to_get(folder: str, name: str, published_at: str) -> str:
    folder_import = f"import a folder named {folder} holding {name} with `medhelm-local data import FOLDER`"
    if name not in (published_checksums(folder) or {}):  # not among the files `data stage` fetches
        return f"get it from {published_at}, then {folder_import}"
    return (f"on a connected staging host, `medhelm-local data stage --to BUNDLE {folder}` fetches it from "
            f"{published_at}; carry the bundle in and run `medhelm-local data import BUNDLE` here (or {folder_import})")


@dataclass(frozen=True)
class DataRoot:
    """The folder holding benchmark datasets."""

    root: Path

    def recorded(self, folder: str) -> dict[str, str] | None:
        """Checksums recorded by `data import` for a folder, if any."""
        path = self.root / folder / MANIFEST
        if not os.path.lexists(path):
            return None  # something other than a file there is damage, said below
        try:
            manifest = load_json(path, "dataset folder's MANIFEST.json", error=DatasetCorruptError)
            files: dict[str, str] = manifest["files"]
            if not all(isinstance(v, str) for v in files.values()):
                raise TypeError("a checksum is not text")
            return files
        except (DatasetCorruptError, KeyError, TypeError, AttributeError):
            raise DatasetCorruptError("the dataset folder's MANIFEST.json is damaged", where=str(path),
                                      fix="import the folder again with `medhelm-local data import`") from None

    def expected(self, folder: str) -> tuple[dict[str, str], str]:
        """The checksums a folder's files are checked against (recorded by `data import`, else the published
        ones) and where they come from, for messages."""
        recorded = self.recorded(folder)
        if recorded is not None:
            return recorded, f"{folder}/{MANIFEST}"
        return published_checksums(folder) or {}, "the published checksums"

    def verify(self, folder: str, files: tuple[str, ...], published_at: str) -> dict[str, Path]:
        """Paths of the named files after checking each exists and matches its checksum."""
        expected, origin = self.expected(folder)
        paths: dict[str, Path] = {}
        for name in files:
            path = self.root / folder / name
            if not path.is_file():
                raise DatasetMissingError(
                    f"the dataset file {folder}/{name} is missing", where=str(path),
                    fix=_how_to_get(folder, name, published_at),
                )
            want = expected.get(name)
            if want is None:
                raise DatasetCorruptError(f"no checksum is recorded for {folder}/{name}", where=str(path),
                                          fix="import the folder with `medhelm-local data import` to record one")
            if sha256_file(path) != want:
                raise DatasetCorruptError(
                    f"{folder}/{name} does not match {origin} (sha256 differs): it was changed or truncated",
                    where=str(path),
                    fix="restore the file, or if this version is intended, import it again with "
                        "`medhelm-local data import`",
                )
            paths[name] = path
        return paths


@dataclass(frozen=True)
class ImportReport:
    """What `data import` copied."""

    folder: str
    destination: Path
    files: dict[str, str]
    matches_published: bool


def private_file(path: Path) -> BinaryIO:
    """A new file open for writing, readable and writable by its owner only (never an existing one)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb")


def private_folder(path: Path) -> None:
    """Make a folder, and any missing parent, that only its owner can enter (existing ones are left as they are)."""
    for folder in reversed([p for p in (path, *path.parents) if not p.exists()]):
        folder.mkdir(mode=0o700, exist_ok=True)


def _copy_private(src: Path, dest: Path) -> str:
    """Copy a file into a new owner-only file; return the sha256 of what was written."""
    digest = hashlib.sha256()
    with src.open("rb") as fh, private_file(dest) as out:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def source_files(source: Path) -> dict[str, Path]:
    """Every file to import from a folder, by its path inside it; a link that leads out of the folder
    (where it could copy in any file the user can read) or to a folder is refused."""
    root = source.resolve()
    found: dict[str, Path] = {}
    if os.path.lexists(root / MANIFEST) and not (root / MANIFEST).is_file():
        raise DataImportError(f"{MANIFEST} in the folder is not a regular file", where=str(root / MANIFEST),
                              fix="remove it: `data import` writes the folder's manifest itself")
    for here, folders, names in os.walk(root):
        for name in folders:
            if (Path(here) / name).is_symlink():
                raise DataImportError(f"{(Path(here) / name).relative_to(root)} is a symbolic link to a folder, "
                                      "and links are not followed", where=str(Path(here) / name),
                                      fix="copy the folder itself into the dataset folder, or remove the link")
        for name in names:
            path = Path(here) / name
            rel = path.relative_to(root).as_posix()
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):  # a link that loops, or leads nowhere
                raise DataImportError(f"{rel} is a symbolic link that leads to no file", where=str(path),
                                      fix="remove the link, or copy the file itself into the folder") from None
            if path.is_symlink() and not real.is_relative_to(root):
                raise DataImportError(f"{rel} is a symbolic link to a file outside the dataset folder; nothing "
                                      "was imported", where=str(path),
                                      fix="copy the file itself into the folder, or remove the link")
            if not real.is_file():
                raise DataImportError(f"{rel} is not a regular file", where=str(path),
                                      fix="remove it from the dataset folder")
            if name != MANIFEST:
                found[rel] = real
    return dict(sorted(found.items()))


def check_dataset_name(folder: str, where: str) -> None:
    """Raise DataImportError unless `folder` is a name a dataset folder may have in the data root: one plain,
    visible folder name (not hidden, not `..`, no path separator or control character, not an option)."""
    problem = ("it is empty" if not folder.strip() else
               "it starts with '.', which makes a hidden folder (or `..`, the folder above)" if folder.startswith(".")
               else "it starts with '-', which commands would read as an option" if folder.startswith("-")
               else "it holds a path separator" if "/" in folder or "\\" in folder
               else "it holds a control character" if any(ord(c) < 32 or ord(c) == 127 for c in folder)
               else "it is longer than 255 bytes" if len(folder.encode()) > 255 else None)
    if problem is not None:
        raise DataImportError(f"{folder!r} cannot name a dataset folder: {problem}", where=where,
                              fix="rename the folder, or give --name a plain name such as pubmedqa")


def _resolved(source: Path, data_root: Path, name: str | None) -> tuple[Path, Path, str]:
    """(source, data root, folder name) with every link and `..` resolved, after checking that the import can
    only ever write one dataset folder directly in the data root, and reads from outside it."""
    try:
        src = source.resolve(strict=True)
        root = data_root.resolve()
    except (OSError, RuntimeError):
        raise DataImportError("the source is not a folder", where=str(source),
                              fix="give the dataset folder, e.g. .../datasets/pubmedqa") from None
    if not src.is_dir():
        raise DataImportError("the source is not a folder", where=str(source),
                              fix="give the dataset folder, e.g. .../datasets/pubmedqa")
    folder = name if name is not None else src.name
    check_dataset_name(folder, str(source))
    dest = root / folder
    if root.is_relative_to(src):
        raise DataImportError("the source is the data root or a folder that holds it; importing it would copy the "
                              "data root into itself, and --replace would delete it", where=str(source),
                              fix="give one dataset folder from outside the data root")
    if src.is_relative_to(root) and src != dest:
        raise DataImportError(f"the source is inside the data root ({root})", where=str(source),
                              fix="give a dataset folder from outside the data root (a folder already in it can "
                                  "only be imported again under its own name, to record its checksums)")
    return src, root, folder


def _swap_in(staging: Path, dest: Path) -> None:
    """Put the complete copy `staging` at `dest`. An existing `dest` (only ever one dataset folder) is moved
    aside first, put back if the rename fails, and deleted only once the new copy is in its place."""
    if not dest.exists() and not dest.is_symlink():
        os.rename(staging, dest)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.replaced-", dir=dest.parent))
    aside = old / dest.name
    os.rename(dest, aside)
    try:
        os.rename(staging, dest)
    except OSError:
        os.rename(aside, dest)  # should this fail too, the previous copy is still whole at `aside`
        old.rmdir()
        raise
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(old, ignore_errors=True)
    else:
        aside.unlink()
        old.rmdir()


def import_dataset(source: Path, data_root: Path, name: str | None = None, replace: bool = False,
                   expected: Mapping[str, str] | None = None, provenance: Mapping[str, Any] | None = None
                   ) -> ImportReport:
    """Copy a dataset folder into the data root, owner-only, and record the sha256 of every file.

    The source and the destination are resolved first: the source must be a folder outside the data root (or
    the destination folder itself, imported again to record its checksums), and the destination is one folder
    directly in the data root, never the root or anything above it. The copy is made in a new folder beside the
    destination and renamed into place; with `replace` the previous copy is deleted only after that, so an
    interrupted import leaves it untouched. With `expected` (a bundle's checksums), the copy must hold exactly
    those files with those checksums, else IntegrityError and nothing changes.
    """
    src, root, folder = _resolved(source, data_root, name)
    dest = root / folder
    if (dest.exists() or dest.is_symlink()) and not replace:
        raise DataImportError("a dataset folder of that name is already in the data root", where=str(dest),
                              fix="pass --replace to overwrite it")
    files = source_files(src)
    if not files:
        raise DataImportError("the folder holds no files", where=str(source), fix="point at the dataset's folder")
    staging: Path | None = None
    checksums: dict[str, str] = {}
    made_root = not root.exists()
    try:
        private_folder(root)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder}.importing-", dir=root))
        for rel, file in files.items():
            target = staging / rel
            private_folder(target.parent)
            checksums[rel] = _copy_private(file, target)
        if expected is not None and checksums != dict(expected):
            changed = sorted(set(checksums) ^ set(expected) | {f for f in checksums if checksums[f] != expected.get(f)})
            raise IntegrityError(f"{folder}: the copy differs from the verified manifest ({', '.join(changed[:3])})",
                                 where=str(source), fix="the bundle changed while it was imported; import it again")
        published = published_checksums(folder) or {}
        matches = bool(published) and all(checksums.get(f) == h for f, h in published.items())
        manifest = {"files": checksums, "source": str(src), "matches_published": matches,
                    "imported_at": datetime.now(UTC).isoformat(timespec="seconds"), **(provenance or {})}
        with private_file(staging / MANIFEST) as fh:
            fh.write((json.dumps(manifest, indent=2) + "\n").encode())
        _swap_in(staging, dest)
        staging = None
    except OSError as exc:
        raise DataImportError(f"copying failed ({exc.strerror})", where=str(dest),
                              fix="check free space and permissions of the data root") from None
    finally:
        if staging is not None:  # the import failed: leave the data root as it was
            shutil.rmtree(staging, ignore_errors=True)
            if made_root:
                with contextlib.suppress(OSError):
                    root.rmdir()
    return ImportReport(folder, data_root / folder, checksums, matches)
