"""Which runs the export gate treats as public: decided by what a run read, never by what it is called.

A run's row in the store names its benchmark and access level, and whoever holds the KEK can rewrite
the row. So a run is public at the gate only when all four hold; any other run is handled as private
data (redacted and rescanned, or withheld where the policy says never), and the export says why:

  1. its benchmark is one this package ships, and the shipped card says public (a hospital's card that
     says `access: public` is a claim about its data, not proof of it);
  2. its row records what it read, and every file of that is a release this package pins by checksum
     (the verdict is read again from the digests: `scenarios.data_read`). Runs made before runs recorded
     this have no record, and are never public;
  3. the audit log records its start (`run.started`, written before its first prompt) with the same
     benchmark, public access and the same files, in every record of it: a row rewritten afterwards no
     longer matches the hash-chained log, whose records up to each signed checkpoint the KEK alone cannot
     rewrite;
  4. what it stored is that data: the data root still holds those very files, and each instance and
     prompt the run stored is exactly what the benchmark makes of them, with no other instance ids in its
     results. A row and an audit record can both be written with the KEK; the published text cannot be.

What the gate cannot check is text the run did not read: a model's answers, a judge's explanations, the
names of models and deployments. Those leave as the policy says for the run's access level.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from medhelm_local.audit.chain import AuditRecord
from medhelm_local.errors import MedhelmError
from medhelm_local.export.artifacts import RunRow
from medhelm_local.scenarios.data_read import DataRead, release_verdict
from medhelm_local.scenarios.datafiles import DataRoot

STARTED_KIND = "run.started"
# How a run handled as private becomes public again: a new run on the published files, recorded as it starts.
REESTABLISH = ("a run is exported as public only when it read a release medhelm-local pins: on a connected host "
               "`medhelm-local data stage --to BUNDLE FOLDER`, here `medhelm-local data import BUNDLE --public-key "
               "KEY.pub --replace`, then run the benchmark again into a new suite (--suite NAME) and export that")


@dataclass(frozen=True)
class Standing:
    """How the gate treats one run: the access level it applies and, for a run stored as public that is not
    treated so, why."""

    run_id: str
    access: str
    why: str | None = None


Fingerprints = dict[str, bytes]  # instance id -> digest of what the run stores of it (instance and prompt)


def public_standing(runs: Sequence[RunRow], con: duckdb.DuckDBPyConnection, records: Sequence[AuditRecord],
                    data_root: Path) -> dict[str, Standing]:
    """Each run's standing at the gate: its own access level, except that a run stored as public that fails any
    of the four checks of the module's docstring is private."""
    started = _started(records)
    data = dict(con.execute("SELECT run_id, data_json FROM runs").fetchall())
    cache: dict[tuple[str, str], Fingerprints | str] = {}
    standing = {}
    for run in runs:
        why = None
        if run.access == "public":
            why = _why_not_public(run, data.get(run.run_id), started.get(run.run_id, []), con, data_root, cache)
        standing[run.run_id] = Standing(run.run_id, "private" if why else run.access, why)
    return standing


def _started(records: Sequence[AuditRecord]) -> dict[str, list[tuple[int, Mapping[str, Any]]]]:
    """Every `run.started` entry in the log, by run id, with the record it is in."""
    found: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for record in records:
        entries = record.details.get("runs") if record.kind == STARTED_KIND else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, Mapping) and isinstance(entry.get("run_id"), str):
                found.setdefault(entry["run_id"], []).append((record.seq, entry))
    return found


def _why_not_public(run: RunRow, data_json: str | None, started: list[tuple[int, Mapping[str, Any]]],
                    con: duckdb.DuckDBPyConnection, data_root: Path,
                    cache: dict[tuple[str, str], Fingerprints | str]) -> str | None:
    from medhelm_local.scenarios import registry  # here: the registry imports every benchmark's reader

    try:
        spec = registry.get(run.scenario)
    except MedhelmError:
        spec = None
    if spec is None or not spec.builtin or spec.access != "public":
        return (f"its benchmark '{run.scenario}' is not a public benchmark medhelm-local ships (a card's word "
                "that its data is public is not proof)")
    read = _read_of(data_json)
    if read is None:
        return "the store does not record what it read (it ran before medhelm-local recorded that)"
    published, why = release_verdict(spec.card.data.folder or "", read.files)
    if not published:
        return why
    if not started:
        return "the audit log holds no record of its start"
    for seq, entry in started:
        logged = DataRead.from_json(entry.get("data"))
        if (entry.get("benchmark") != run.scenario or entry.get("access") != "public" or logged is None
                or dict(logged.files) != dict(read.files)):
            return (f"its row in the store does not match the audit log's record of its start (record {seq}: "
                    f"benchmark '{entry.get('benchmark')}', access {entry.get('access')}, "
                    f"{'the same' if logged is not None and dict(logged.files) == dict(read.files) else 'other'} "
                    "data files)")
    key = (run.scenario, run.scenario_args)
    if key not in cache:
        cache[key] = _fingerprints(spec, run.scenario_args, read, data_root)
    expected = cache[key]
    if isinstance(expected, str):
        return expected
    return _stored_differs(con, run.run_id, expected)


def _read_of(data_json: str | None) -> DataRead | None:
    if not data_json:
        return None
    try:
        return DataRead.from_json(json.loads(data_json))
    except ValueError:
        return None


def _digest(split: Any, text: Any, references: Any, extra: Any, prompt: Any) -> bytes:
    return hashlib.sha256(json.dumps([split, text, references, extra, prompt], sort_keys=True,
                                     ensure_ascii=False).encode()).digest()


def _fingerprints(spec: Any, scenario_args: str, read: DataRead, data_root: Path) -> Fingerprints | str:
    """What a run of this benchmark stores of each instance, from the files the data root holds now; or why
    that cannot be had (the reason the run is then private)."""
    try:
        args = json.loads(scenario_args)
        bench = spec.create({str(k): str(v) for k, v in args.items()} if isinstance(args, dict) else None)
        now, instances = bench.reading(DataRoot(data_root))
        if dict(now.files) != dict(read.files):
            return ("the data root no longer holds the files it read, so what it stored cannot be checked against "
                    "them (put the published files back in the data root)")
        found: Fingerprints = {}
        for inst in instances:
            references = [{"text": r.text, "correct": r.correct} for r in inst.references]
            extra = json.loads(json.dumps(dict(inst.extra)))
            found[inst.id] = _digest(inst.split, inst.input, references, extra, bench.prompt(inst).text)
        return found
    except (MedhelmError, ValueError, TypeError, AttributeError) as exc:
        what = exc.what if isinstance(exc, MedhelmError) else type(exc).__name__
        return f"its data cannot be read again to check what it stored ({what})"


def _stored_differs(con: duckdb.DuckDBPyConnection, run_id: str, expected: Fingerprints) -> str | None:
    """Why the run's stored instances and prompts are not what the benchmark makes of the published files
    (None: they are, every one)."""
    cursor = con.execute("SELECT i.instance_id, i.split, i.input, i.references_json, i.extra_json, r.prompt "
                         "FROM instances i LEFT JOIN requests r ON r.run_id = i.run_id AND r.instance_id = "
                         "i.instance_id WHERE i.run_id = ?", [run_id])
    differ = total = 0
    while batch := cursor.fetchmany(2048):
        for instance_id, split, text, references, extra, prompt in batch:
            total += 1
            try:
                stored = _digest(split, text, json.loads(references), json.loads(extra), prompt)
            except ValueError:
                stored = b""
            differ += expected.get(instance_id) != stored
    if differ:
        return (f"{differ} of the {total} instance(s) it stored are not what the benchmark reads from the "
                "published files")
    strays = con.execute(
        "SELECT count(DISTINCT instance_id) FROM (SELECT instance_id FROM requests WHERE run_id = $r UNION ALL "
        "SELECT instance_id FROM completions WHERE run_id = $r UNION ALL SELECT instance_id FROM scores WHERE "
        "run_id = $r UNION ALL SELECT instance_id FROM ratings WHERE run_id = $r) AS results WHERE instance_id NOT "
        "IN (SELECT instance_id FROM instances WHERE run_id = $r)", {"r": run_id}).fetchone()
    if strays and strays[0]:
        return f"its results name {strays[0]} instance(s) it did not store"
    return None
