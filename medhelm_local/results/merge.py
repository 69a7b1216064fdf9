"""`store merge`: the shard stores of one suite joined into its suite store.

`run --shard I/N` splits every run of a suite by a hash of the instance id, each shard writing
`<suite>.shard-I-of-N.duckdb`; the shards' instances are disjoint and their ordinals are the
places an unsharded run would give, so merging is a union of rows and a recount of aggregates.
The merge refuses (and writes nothing) when a shard is missing, incomplete, from another suite or
another schema version, or cannot be opened with this key-encryption key. The merged store is
written under a hidden name and renamed into place only when complete.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import duckdb

from medhelm_local.errors import ConfigError
from medhelm_local.results.aggregates import compute_aggregates, record_summaries
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Envelope, Kek
from medhelm_local.store.schema import suite_tables

SHARD_NAME = re.compile(r"^(?P<suite>.+)\.shard-(?P<index>\d+)-of-(?P<count>\d+)\.duckdb$")
_FIX = "run the missing or unfinished shards again (`run ... --shard I/N` resumes), then merge"


@dataclass(frozen=True)
class MergeReport:
    """What `store merge` wrote."""

    destination: Path
    shards: int
    runs: int
    rows: dict[str, int]


def shard_stores(output_dir: Path, suite: str) -> list[Path]:
    """The shard stores of a suite in the output folder, checked to be shards 0..N-1 of one N."""
    found: dict[int, set[int]] = {}
    for path in output_dir.glob(f"{glob_escape(suite)}.shard-*-of-*.duckdb"):
        match = SHARD_NAME.match(path.name)
        if match and match["suite"] == suite:
            found.setdefault(int(match["count"]), set()).add(int(match["index"]))
    where = f"{output_dir}/{suite}.shard-I-of-N.duckdb"
    if not found:
        raise ConfigError(f"no shard stores of suite '{suite}' in the output folder", where=where,
                          fix="run the suite with `medhelm-local run --shard I/N` first, or check the suite name and "
                              "output folder")
    if len(found) > 1:
        raise ConfigError(f"shard stores of suite '{suite}' were made with different shard counts "
                          f"({', '.join(str(n) for n in sorted(found))})", where=where,
                          fix="keep the shards of one split (one N) in the folder, and move the others away")
    count, indices = next(iter(found.items()))
    missing = sorted(set(range(count)) - indices)
    if missing:
        raise ConfigError(f"shard(s) {', '.join(str(i) for i in missing)} of {count} are missing", where=where,
                          fix=_FIX)
    return [output_dir / f"{suite}.shard-{i}-of-{count}.duckdb" for i in range(count)]


def glob_escape(text: str) -> str:
    """A name with glob's special characters made literal."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _check_shard(handle: StoreHandle, suite: str) -> list[str]:
    """The shard's run ids, after checking it belongs to the suite and every run in it finished."""
    path = handle.path
    suites = {r[0] for r in handle.con.execute("SELECT DISTINCT suite FROM runs").fetchall()}
    if suites - {suite}:
        raise ConfigError(f"the store holds runs of suite(s) {', '.join(sorted(suites - {suite}))}, not '{suite}'",
                          where=str(path), fix="merge only the shards of one suite")
    runs = []
    for run_id, settings in handle.con.execute("SELECT run_id, settings FROM runs ORDER BY run_id").fetchall():
        planned = json.loads(settings).get("planned_instances")
        stored, answered = handle.con.execute(
            "SELECT (SELECT count(*) FROM instances WHERE run_id = $r), "
            "(SELECT count(DISTINCT instance_id) FROM completions WHERE run_id = $r)",
            {"r": run_id}).fetchone() or (0, 0)
        if planned is None or stored != planned or answered != stored:
            raise ConfigError(f"run {run_id} in this shard has not finished ({answered} of {planned or stored} "
                              "instances have an answer or a recorded failure)", where=str(path), fix=_FIX)
        runs.append(run_id)
    return runs


def _copy_rows(source: StoreHandle, target: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Append every per-instance row of a shard to the target (run rows are merged separately)."""
    counts: dict[str, int] = {}
    for table in suite_tables():
        if table.name in ("meta", "runs", "run_metrics", "run_slices"):  # recomputed once merged
            continue
        names = ", ".join(c.name for c in table.columns)
        arrow = source.con.execute(f"SELECT {names} FROM {table.name}").fetch_arrow_table()
        target.register("_shard_rows", arrow)
        try:
            target.execute(f"INSERT INTO {table.name} ({names}) SELECT {names} FROM _shard_rows")
        finally:
            target.unregister("_shard_rows")
        counts[table.name] = arrow.num_rows
    return counts


def _merge_runs(shards: list[StoreHandle], target: duckdb.DuckDBPyConnection) -> int:
    """One row per run: the earliest creation, the latest update, settings without the shard."""
    merged: dict[str, list[object]] = {}
    names = [c.name for c in next(t for t in suite_tables() if t.name == "runs").columns]
    for handle in shards:
        for row in handle.con.execute(f"SELECT {', '.join(names)} FROM runs").fetchall():
            values = dict(zip(names, row, strict=True))
            settings = json.loads(str(values["settings"]))
            settings.pop("shard", None)
            settings.pop("planned_instances", None)
            values["settings"] = json.dumps(settings, sort_keys=True)
            kept = merged.get(str(values["run_id"]))
            if kept is None:
                merged[str(values["run_id"])] = [values[n] for n in names]
                continue
            current = dict(zip(names, kept, strict=True))
            current["created_at"] = min(current["created_at"], values["created_at"])
            current["updated_at"] = max(current["updated_at"], values["updated_at"])
            merged[str(values["run_id"])] = [current[n] for n in names]
    marks = ", ".join("?" for _ in names)
    target.executemany(f"INSERT INTO runs ({', '.join(names)}) VALUES ({marks})", list(merged.values()))
    return len(merged)


def _partial(path: Path) -> Path:
    return path.with_name(f".{path.stem}.merging{path.suffix}")


def _remove(path: Path) -> None:
    for item in (path, Envelope.path_for(path), path.with_name(path.name + ".wal")):
        item.unlink(missing_ok=True)


def merge_shards(shards: list[Path], destination: Path, suite: str, kek: Kek) -> MergeReport:
    """Join the shard stores into a new suite store at `destination` (which must not exist)."""
    for path in (destination, Envelope.path_for(destination)):
        if path.exists():
            raise ConfigError("the suite store already exists, and a merge never writes into one", where=str(path),
                              fix="move it away (or merge into another path with --into)")
    handles: list[StoreHandle] = []
    partial = _partial(destination)
    _remove(partial)
    try:
        for path in shards:
            handles.append(open_store(path, kek, read_only=True, migrate=False))
        for handle in handles:
            _check_shard(handle, suite)
        target = open_store(partial, kek, create=True)
        try:
            target.con.execute("BEGIN")
            rows: dict[str, int] = {}
            for handle in handles:
                for table, count in _copy_rows(handle, target.con).items():
                    rows[table] = rows.get(table, 0) + count
            runs = _merge_runs(handles, target.con)
            target.con.execute("INSERT INTO meta VALUES ('merged_from', ?)",
                               [json.dumps(sorted(h.store_id for h in handles))])
            target.con.execute("COMMIT")
            merged = [run_id for (run_id,) in target.con.execute("SELECT run_id FROM runs").fetchall()]
            record_summaries(target.con, {run_id: compute_aggregates(target.con, run_id) for run_id in merged})
        finally:
            target.close()
    except BaseException:
        _remove(partial)
        raise
    finally:
        for handle in handles:
            handle.close()
    os.replace(Envelope.path_for(partial), Envelope.path_for(destination))
    os.replace(partial, destination)
    return MergeReport(destination, len(shards), runs, rows)

