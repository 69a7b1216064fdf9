"""What an export or a redacted copy reads: a whole suite, or one run, found in the output folder."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from medhelm_local.audit.log import audit_path
from medhelm_local.errors import StoreNotFoundError
from medhelm_local.settings import Settings
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.run_ids import ambiguous, matching_run_ids, one_run_id, stored_run_ids
from medhelm_local.store.suites import is_suite_name, suite_store_path


@dataclass(frozen=True)
class Target:
    """A store and, when one run was asked for, that run's id."""

    store: Path
    run_id: str | None

    def describe(self) -> str:
        """For messages and audit records."""
        return f"run {self.run_id} in {self.store}" if self.run_id else f"suite store {self.store}"


def _matching(path: Path, kek: Kek, typed: str) -> list[str]:
    handle = open_store(path, kek, read_only=True)
    try:
        return matching_run_ids(typed, stored_run_ids(handle.con))
    finally:
        handle.close()


def resolve_target(settings: Settings, kek: Kek, name: str, store: Path | None) -> Target:
    """`name` as a suite (its store) or a run id or its unique beginning (in --store, or in any store in the
    output folder)."""
    if store is not None:
        if not store.exists():
            raise StoreNotFoundError("no store exists at this path", where=str(store),
                                     fix="check the store file's path")
        if _suite_of(store, kek) == name:
            return Target(store, None)
        # No match: the export itself says there is no such run (and records the attempt).
        return Target(store, one_run_id(name, _matching(store, kek, name), str(store)) or name)
    if is_suite_name(name):  # anything else is looked up as a run id only, never used as a path
        suite_store = suite_store_path(settings.output_dir, name)
        if suite_store.exists():
            return Target(suite_store, None)
    audit = audit_path().resolve()
    candidates = sorted(p for p in settings.output_dir.glob("*.duckdb") if p.resolve() != audit)
    matches = [(path, _matching(path, kek, name)) for path in candidates]
    exact = [Target(path, name) for path, ids in matches if ids == [name]]
    found = exact[:1] or [Target(path, run_id) for path, ids in matches for run_id in ids]
    if len(found) > 1:
        raise ambiguous(name, [f"{t.run_id} ({t.store.stem})" for t in found], str(settings.output_dir))
    if found:
        return found[0]
    suites = ", ".join(p.stem for p in candidates) or "none"
    raise StoreNotFoundError(f"'{name}' is neither a suite nor a run id in the output folder (suites: {suites})",
                             where=str(settings.output_dir),
                             fix="give a suite name or a run id from `medhelm-local runs list`, or name the store "
                                 "file itself")


def _suite_of(path: Path, kek: Kek) -> str | None:
    handle = open_store(path, kek, read_only=True)
    try:
        row = handle.con.execute("SELECT min(suite) FROM runs").fetchone()
    finally:
        handle.close()
    return None if row is None else row[0]


def open_target(target: Target, kek: Kek, memory_limit: str | None) -> StoreHandle:
    """The target's store, read-only."""
    return open_store(target.store, kek, read_only=True, memory_limit=memory_limit)
