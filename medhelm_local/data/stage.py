"""`data stage`: on a connected staging host, fetch the public datasets into one bundle to carry in.

    BUNDLE/
      MANIFEST.json           format medhelm-local-data/1: every file with its sha256 and size; per
                              dataset its source (repository, commit, URLs) and licence; gated sets
      MANIFEST.json.sig       Ed25519 signature over MANIFEST.json, when a signing key is given
      datasets/<folder>/...   each dataset folder in its published layout

Only hosts the policy lists with `purpose: staging` may be contacted: the appliance's policy lists
none, so there `data stage` is refused like any other connection. Files are fetched into a hidden
folder beside the bundle (`.<name>.partial`), which a rerun resumes; the bundle appears, whole,
only when every file matches the checksum shipped with the package.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.data.download import Fetch, Progress, fetch_files
from medhelm_local.errors import ConfigError, DataStageError, EgressRefusedError, IntegrityError
from medhelm_local.export.bundle import MANIFEST, SIGNATURE, write_manifest
from medhelm_local.export.signing import SigningKey
from medhelm_local.policy.loader import Policy
from medhelm_local.scenarios.datafiles import private_folder
from medhelm_local.scenarios.dataset_sources import (
    DatasetSource,
    GatedDataset,
    UnpinnedDataset,
    benchmark_source,
    dataset_sources,
    gated_datasets,
    unpinned_datasets,
)

DATA_BUNDLE_FORMAT = "medhelm-local-data/1"
DATASETS = "datasets"
STAGING_PURPOSE = "staging"
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def valid_folder_name(name: str) -> bool:
    """True for a plain dataset folder name (no path separators, no leading dot)."""
    return bool(_FOLDER_NAME.match(name)) and ".." not in name


@dataclass(frozen=True)
class StagePlan:
    """What `data stage` will fetch, and the gated data it only lists."""

    sources: tuple[DatasetSource, ...]
    gated: tuple[GatedDataset, ...]
    unpinned: tuple[UnpinnedDataset, ...] = ()  # public, but no checksum ships: listed with their URLs, not fetched

    @property
    def hosts(self) -> list[tuple[str, int]]:
        """Every host:port the staging will contact."""
        return sorted({(s.host, s.port) for s in self.sources})

    @property
    def file_count(self) -> int:
        """How many files will be fetched."""
        return sum(len(s.files) for s in self.sources)

    @property
    def total_bytes(self) -> int:
        """How many bytes will be fetched."""
        return sum(s.total_bytes for s in self.sources)

    def served_from(self, base_url: str) -> StagePlan:
        """The same plan with every file fetched from `<base_url>/<folder>/<name>` (tests only)."""
        base = base_url.rstrip("/")
        moved = []
        for source in self.sources:
            url = f"{base}/{source.folder}/"
            files = tuple(replace(f, url=url + f.url[len(source.base_url):]) for f in source.files)
            moved.append(replace(source, base_url=url, files=files))
        return replace(self, sources=tuple(moved))


def _resolve(name: str) -> DatasetSource | GatedDataset | UnpinnedDataset:
    sources = dataset_sources()
    gated = {g.benchmark: g for g in gated_datasets()}
    unpinned = {key: u for u in unpinned_datasets() for key in (u.folder, u.benchmark)}
    if name in sources:
        return sources[name]
    if name in gated:
        return gated[name]
    if name in unpinned:
        return unpinned[name]
    from medhelm_local.scenarios import get  # the registry; UnknownScenarioError lists the known names

    if get(name).name in unpinned:  # an alias (e.g. medhelm_med_mcqa)
        return unpinned[get(name).name]
    source = benchmark_source(name)
    if source is not None:
        return source
    raise DataStageError(f"{name} has no published data to stage", where="data stage",
                         fix="it reads the hospital's own data: put that in the data root with "
                             "`medhelm-local data import FOLDER`")


def plan_stage(names: Sequence[str] = ()) -> StagePlan:
    """The datasets behind the named benchmarks (or dataset folders); every public one if none is named."""
    if not names:
        return StagePlan(tuple(dataset_sources().values()), gated_datasets(), unpinned_datasets())
    chosen = [_resolve(n) for n in names]
    sources = {s.folder: s for s in chosen if isinstance(s, DatasetSource)}
    gated = {g.benchmark: g for g in chosen if isinstance(g, GatedDataset)}
    unpinned = {u.folder: u for u in chosen if isinstance(u, UnpinnedDataset)}
    return StagePlan(tuple(sources[k] for k in sorted(sources)), tuple(gated[k] for k in sorted(gated)),
                     tuple(unpinned[k] for k in sorted(unpinned)))


def staging_allowlist(policy: Policy) -> Allowlist:
    """The hosts the policy lets `data stage` contact: its egress entries with purpose `staging`."""
    return Allowlist((e.host, e.port) for e in policy.egress.allow if e.purpose == STAGING_PURPOSE)


def require_hosts(plan: StagePlan, allowlist: Allowlist, policy_file: Path) -> None:
    """Refuse, before anything connects, if a host the plan needs is not listed for staging."""
    missing = [f"{h}:{p}" for h, p in plan.hosts if not allowlist.permits(h, p)]
    if missing:
        raise EgressRefusedError(
            f"data stage needs {', '.join(missing)}, which the egress policy does not list with purpose "
            f"'{STAGING_PURPOSE}', so nothing was fetched", where=str(policy_file),
            fix="run `data stage` on a connected staging host with a staging policy folder (README: 'Getting the "
                "public benchmark data in'); on the appliance this refusal is intended: carry a bundle in instead")


def work_folder(destination: Path) -> Path:
    """Where an unfinished staging keeps what it fetched, so a rerun resumes it."""
    return destination.parent / f".{destination.name}.partial"


@dataclass(frozen=True)
class StageResult:
    """What `stage` wrote."""

    destination: Path
    datasets: tuple[str, ...]
    files: int
    bytes: int
    manifest_sha256: str
    signing_key_id: str | None


def _manifest(plan: StagePlan) -> dict[str, Any]:
    datasets = {s.folder: {
        "repository": s.repository, "commit": s.commit, "path": s.base_path, "fetched_from": s.base_url,
        "licence": s.licence, "licence_statement": s.licence_statement, "note": s.note,
        "files": {f.name: {"sha256": f.sha256, "bytes": f.bytes, "path": f.path} for f in s.files},
    } for s in plan.sources}
    gated = [{"benchmark": g.benchmark, "title": g.title, "obtain_at": g.obtain_at, "needs": g.needs}
             for g in plan.gated]
    return {"format": DATA_BUNDLE_FORMAT, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "created_by": f"medhelm-local {version('medhelm-local')} data stage", "datasets": datasets,
            "gated": gated}


def _check_destination(destination: Path) -> None:
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise ConfigError("the bundle folder exists and is not empty", where=str(destination),
                          fix="give a new folder for --to; bundles are never merged or overwritten")


def _keep_only(work: Path, wanted: set[Path]) -> None:
    """Delete what an earlier run for other benchmarks left in the work folder."""
    for path in sorted(work.rglob("*"), reverse=True):
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif path not in wanted:
            path.unlink()


def stage(plan: StagePlan, destination: Path, allowlist: Allowlist, key: SigningKey | None = None,
          progress: Progress | None = None, concurrency: int = 8) -> StageResult:
    """Fetch every file of the plan, check each against its shipped sha256, and write the bundle."""
    _check_destination(destination)
    work = work_folder(destination)
    items = [Fetch(f"{s.folder}/{f.name}", f.url, work / DATASETS / s.folder / f.name, f.sha256, f.bytes)
             for s in plan.sources for f in s.files]
    try:
        private_folder(work)
        fetch_files(items, allowlist, concurrency, progress)
    except IntegrityError:
        shutil.rmtree(work, ignore_errors=True)
        raise
    except OSError as exc:
        raise DataStageError(f"cannot write the staged files ({exc.strerror})", where=str(work),
                             fix="check free space and permissions, then run the same command again") from None
    _keep_only(work, {i.target for i in items})
    data = write_manifest(work, _manifest(plan), key)
    for name in (MANIFEST, SIGNATURE):
        if (work / name).exists():
            (work / name).chmod(0o600)
    if destination.exists():
        destination.rmdir()  # empty, checked above
    os.replace(work, destination)
    return StageResult(destination, tuple(s.folder for s in plan.sources), len(items), plan.total_bytes,
                       hashlib.sha256(data).hexdigest(), key.key_id if key is not None else None)
