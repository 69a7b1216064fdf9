"""What a run read: the sha256 of each data file as it was loaded, and whether that is a published release.

A run's data is public only when every file it read is a file this package pins by checksum: the
publisher's file (`benchmarks/<benchmark>/manifest.json`, files) or a cut of it that medhelm-local itself ships
(`subsets`: the 50-item demo and test sets, the publisher's items unchanged). Anything else is not
shown to be public, whatever the benchmark is called: a folder laid out as PubMedQA but holding other
text, a dataset whose checksums are not pinned (`unpinned.json`), a card's own file. The
export gate reads the verdict again from the digests (`release_verdict`), never from a stored flag.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medhelm_local.scenarios.datafiles import sha256_file
from medhelm_local.scenarios.dataset_sources import published_source, unpinned_datasets

DATA_ROOT, CARD_FILE, DATA_PATH = "data root", "card file", "data_path"


@dataclass(frozen=True)
class DataRead:
    """The files a run read (name -> sha256 as loaded), where from, and whether they are a published release."""

    folder: str  # the dataset folder its card names ("" for a card's own file)
    origin: str  # DATA_ROOT, CARD_FILE or DATA_PATH
    files: Mapping[str, str] = field(default_factory=dict)
    published: bool = False
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        """As stored in the run's row and in the audit log's `run.started` record."""
        return {"folder": self.folder, "origin": self.origin, "files": dict(sorted(self.files.items())),
                "published": self.published, "why": self.why}

    @classmethod
    def from_json(cls, value: object) -> DataRead | None:
        """A stored DataRead, or None when the value is not one (absent, damaged or written by hand)."""
        if not isinstance(value, Mapping):
            return None
        files, folder, origin = value.get("files"), value.get("folder"), value.get("origin")
        if (not isinstance(files, Mapping) or not isinstance(folder, str) or not isinstance(origin, str)
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())):
            return None
        return cls(folder, origin, dict(files), value.get("published") is True, str(value.get("why", "")))


def release_verdict(folder: str, files: Mapping[str, str]) -> tuple[bool, str]:
    """Whether files (name -> sha256) of a dataset folder are a release this package pins, and why (one line)."""
    source = published_source(folder) if folder else None
    if source is None:
        if folder in {u.folder for u in unpinned_datasets()}:
            return False, (f"{folder} has no published checksums shipped with medhelm-local "
                           "(its benchmark's unpinned.json), so no copy of it can be shown to be the published one")
        return False, "its data is not a dataset whose published files medhelm-local pins by checksum"
    if not files:
        return False, "it read no data file"
    kinds = set()
    for name, sha in sorted(files.items()):
        kind = source.release_of(name, sha)
        if kind is None:
            return False, (f"{folder}/{name} is not the published file: its sha256 matches neither the published "
                           "checksum nor a subset medhelm-local pins")
        kinds.add(kind)
    how = "as published" if kinds == {"published"} else "as published or as a subset medhelm-local pins"
    return True, f"every file it read is {folder} {how} ({source.provenance})"


def file_digests(name: str, path: Path) -> dict[str, str]:
    """sha256 of a file by `name`, or of every file under a folder by `name/relative path`."""
    if not path.is_dir():
        return {name: sha256_file(path)}
    return {f"{name}/{p.relative_to(path).as_posix()}": sha256_file(p) for p in sorted(path.rglob("*")) if p.is_file()}


def data_read(folder: str, origin: str, files: Mapping[str, str]) -> DataRead:
    """A DataRead with its verdict."""
    published, why = release_verdict(folder, files)
    return DataRead(folder, origin, dict(files), published, why)

