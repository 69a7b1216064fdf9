"""Where each public dataset is published, its licence, and the checksum of every file: one place.

Read from the manifests shipped in the benchmarks' folders, `scenarios/benchmarks/<benchmark>/manifest.json`
(one per public dataset folder; `folder` names it, e.g. pubmed_qa's is `pubmedqa`):

    folder, access         the dataset folder in the data root; "public"
    repository, commit     the publisher's repository and the commit the files are taken from
    base_path, base_url    where the folder's files sit in the repository, and where they are fetched
                           (a file's repository path is base_path + its name, its URL base_url + its name)
    licence                the licence as its publisher states it, or "none stated"
    licence_statement      where that statement is, in the publisher's words
    note                   anything else a reviewer should know (third-party copies, pinned versions)
    files, bytes           sha256 and size of each file the loaders read, by name inside the folder
    subsets                (optional) cuts of a published file that medhelm-local itself ships and pins (the
                           50-item demo and test subsets in deploy/demo/datasets): file, sha256, items, note.
                           Items are the publisher's, unchanged, only fewer; a file with one of these checksums
                           is as public as the published file (scenarios/data_read.py)

Gated datasets (an account or a licence click-through) are in `benchmarks/<benchmark>/gated.json`: where
to obtain them and what that needs. They are listed, never fetched.

Public datasets whose files no checksum shipped here pins yet (the publisher's copy could not be
fetched and hashed when the benchmark was added) are in `benchmarks/<benchmark>/unpinned.json`: folder,
benchmark, title, licence, note, and each file's published URL. `data stage` lists them with their
URLs and never fetches them (it keeps only what matches a shipped checksum); a site fetches them,
checks them, and brings the folder in with `data import FOLDER`, which records their checksums.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from medhelm_local.errors import UnknownScenarioError
from medhelm_local.scenarios import benchmarks

NONE_STATED = "none stated"


@dataclass(frozen=True)
class PublishedFile:
    """One file a loader reads, as published."""

    name: str  # path inside the dataset folder, e.g. "challenge_data_json/valid_full.json"
    path: str  # path in the publisher's repository at the pinned commit
    url: str  # where `data stage` fetches it
    sha256: str
    bytes: int


@dataclass(frozen=True)
class PinnedSubset:
    """A cut of one published file, shipped and pinned by medhelm-local: the publisher's items, fewer of them."""

    name: str  # the published file it is cut from (and the name it has in the dataset folder)
    sha256: str
    items: int
    note: str


@dataclass(frozen=True)
class DatasetSource:
    """A public dataset folder: its published location, licence and files."""

    folder: str
    repository: str
    commit: str
    base_path: str
    base_url: str
    licence: str
    licence_statement: str
    note: str
    files: tuple[PublishedFile, ...]
    subsets: tuple[PinnedSubset, ...] = ()

    @property
    def host(self) -> str:
        """The host `data stage` contacts for this dataset."""
        return urlsplit(self.base_url).hostname or ""

    @property
    def port(self) -> int:
        """The TCP port `data stage` contacts for this dataset."""
        parts = urlsplit(self.base_url)
        return parts.port or (443 if parts.scheme == "https" else 80)

    @cached_property
    def checksums(self) -> dict[str, str]:
        """sha256 by file name."""
        return {f.name: f.sha256 for f in self.files}

    def release_of(self, name: str, sha256: str) -> str | None:
        """What a file of this folder with this sha256 is: "published" (the publisher's file), "pinned subset"
        (a cut medhelm-local ships), or None (neither: not shown to be public)."""
        if self.checksums.get(name) == sha256:
            return "published"
        if any(s.name == name and s.sha256 == sha256 for s in self.subsets):
            return "pinned subset"
        return None

    @property
    def total_bytes(self) -> int:
        """Size of every file together."""
        return sum(f.bytes for f in self.files)

    @property
    def provenance(self) -> str:
        """One line: repository, commit and folder, as `benchmarks show` prints it."""
        where = f" {self.base_path}" if self.base_path else ""
        return f"{self.repository} @{self.commit}{where}"


@dataclass(frozen=True)
class GatedDataset:
    """Data that needs an account or an agreement: where to obtain it and what that needs."""

    benchmark: str
    title: str
    obtain_at: str
    needs: str


@dataclass(frozen=True)
class UnpinnedDataset:
    """A public dataset without shipped checksums: where each file is published; listed, never fetched."""

    folder: str
    benchmark: str
    title: str
    licence: str
    note: str
    files: tuple[tuple[str, str], ...]  # (name inside the folder, published URL)


def _read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def _source(data: dict[str, object]) -> DatasetSource:
    files: dict[str, str] = data["files"]  # type: ignore[assignment]
    sizes: dict[str, int] = data["bytes"]  # type: ignore[assignment]
    base_path, base_url = str(data["base_path"]), str(data["base_url"])
    published = tuple(PublishedFile(name, base_path + name, base_url + quote(name), sha, int(sizes[name]))
                      for name, sha in sorted(files.items()))
    subsets: list[dict[str, object]] = data.get("subsets", [])  # type: ignore[assignment]
    pinned = tuple(PinnedSubset(str(s["file"]), str(s["sha256"]), int(str(s["items"])), str(s["note"]))
                   for s in subsets)
    return DatasetSource(str(data["folder"]), str(data["repository"]), str(data["commit"]), base_path, base_url,
                         str(data["licence"]), str(data["licence_statement"]), str(data["note"]), published, pinned)


@lru_cache(maxsize=1)
def dataset_sources() -> dict[str, DatasetSource]:
    """Every public dataset folder the package knows, by folder name."""
    found = {}
    for entry in benchmarks.every(benchmarks.MANIFEST):
        source = _source(_read(entry))
        found[source.folder] = source
    return dict(sorted(found.items()))


@cache
def published_source(folder: str) -> DatasetSource | None:
    """One public dataset folder's record (None: not a public folder), building that folder's record only: a run
    needs one folder's checksums, and the mtsamples manifests list thousands of files (bench/throughput.py)."""
    named = benchmarks.benchmark_file(folder, benchmarks.MANIFEST) if folder.isidentifier() else None
    # Most benchmarks are named for their data folder; the others' manifests are small, the big ones are named
    # for their folder, so reading the smallest first finds a folder like pubmedqa (pubmed_qa's) cheaply.
    others = sorted((p for p in benchmarks.every(benchmarks.MANIFEST) if p != named), key=lambda p: p.stat().st_size)
    for entry in ([named] if named is not None and named.is_file() else []) + others:
        data = _read(entry)
        if data.get("folder") == folder:
            return _source(data)
    return None


def dataset_source(folder: str) -> DatasetSource:
    """The published location, licence and files of one dataset folder."""
    try:
        return dataset_sources()[folder]
    except KeyError:
        raise UnknownScenarioError(f"no public dataset folder is called '{folder}'", where="dataset folder",
                                   fix=f"use one of: {', '.join(dataset_sources())}") from None


def benchmark_source(name: str) -> DatasetSource | None:
    """The published dataset a benchmark (run-entry name or alias) reads, or None (a hospital's own data)."""
    from medhelm_local.scenarios import get  # the registry; UnknownScenarioError lists the known names

    return dataset_sources().get(get(name).card.data.folder or "")


@lru_cache(maxsize=1)
def gated_datasets() -> tuple[GatedDataset, ...]:
    """Gated data MedHELM uses, with where to obtain it; never fetched by this program."""
    rows = [_read(entry) for entry in benchmarks.every(benchmarks.GATED)]
    return tuple(GatedDataset(r["benchmark"], r["title"], r["obtain_at"], r["needs"])
                 for r in sorted(rows, key=lambda r: str(r["benchmark"])))


@lru_cache(maxsize=1)
def unpinned_datasets() -> tuple[UnpinnedDataset, ...]:
    """Public datasets whose checksums are not shipped: listed with their URLs, never fetched by this program."""
    rows = [_read(entry) for entry in benchmarks.every(benchmarks.UNPINNED)]
    return tuple(UnpinnedDataset(r["folder"], r["benchmark"], r["title"], r["licence"], r["note"],
                                 tuple(sorted(r["files"].items())))
                 for r in sorted(rows, key=lambda r: str(r["folder"])))
