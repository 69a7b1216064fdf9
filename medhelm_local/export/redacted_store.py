"""`redact store`: a redacted copy of a whole suite store, for sharing; the original is never changed.

The copy is a new encrypted store with its own data key. Every column is classed in the schema
declaration, and a test fails if a store has a column the declaration does not class, so a new
free-text field (a judge's explanation, say) cannot slip through unredacted. Free text is
redacted with the export policy's style and rescanned; instance ids become pseudonyms; logprobs
are dropped. The copy is written under a hidden name and renamed into place only when complete
and clean.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ConfigError, ExportRefusedError, MedhelmError
from medhelm_local.export.scrubber import Scrubber, scrubber_for
from medhelm_local.policy.loader import Policy
from medhelm_local.policy.rules import may_leave_unredacted
from medhelm_local.redact.pack import read_rule_pack
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.integrity import explain_failure, is_damage
from medhelm_local.store.keys import Envelope, Kek
from medhelm_local.store.schema import Treatment, suite_tables


def column_classes() -> dict[str, dict[str, Treatment]]:
    """Every suite table's columns and their redaction classes, from the schema declaration (store.schema):
    a column cannot be declared without one, so a new free-text field cannot slip through unredacted."""
    return {t.name: {c.name: c.treatment for c in t.columns} for t in suite_tables() if t.name != "meta"}


@dataclass(frozen=True)
class RedactedCopy:
    """What `redact store` wrote."""

    destination: Path
    rows: dict[str, int]
    redactions: dict[str, int]
    audit_seq: int


def _partial(path: Path) -> Path:
    return path.with_name(f".{path.stem}.partial{path.suffix}")


def _remove(path: Path) -> None:
    for item in (path, Envelope.path_for(path)):
        item.unlink(missing_ok=True)


def redact_store_copy(source: Path, destination: Path, kek: Kek, policy: Policy, redaction_dir: Path,
                      audit: AuditLog) -> RedactedCopy:
    """Copy `source` to `destination` with every free-text value redacted; audited either way."""
    details: dict[str, Any] = {"source": str(source), "destination": str(destination)}
    try:
        rows, redactions = _copy(source, destination, kek, policy, redaction_dir.resolve())
    except ExportRefusedError as exc:
        audit.append("redact_store.refused", {**details, "reasons": [exc.what]})
        raise
    except MedhelmError as exc:
        audit.append("redact_store.failed", {**details, "error": type(exc).__name__, "message": exc.message})
        raise
    except BaseException as exc:  # a crash is a failed attempt too, and is recorded as one
        # Damage is found reading the source; anything else DuckDB raises comes from writing the copy.
        explained = explain_failure(exc, source if is_damage(exc) else destination) \
            if isinstance(exc, duckdb.Error) else None
        audit.append("redact_store.failed", {**details, "error": type(explained or exc).__name__,
                                             "message": explained.message if explained else "an unexpected error"})
        if explained is None:
            raise
        raise explained from None
    record = audit.append("redact_store.done", {**details, "rows": rows, "redactions": redactions})
    return RedactedCopy(destination, rows, redactions, record.seq)


def _copy(source: Path, destination: Path, kek: Kek, policy: Policy, folder: Path
          ) -> tuple[dict[str, int], dict[str, int]]:
    """Rows copied per table and redactions by type; the copy is in place only when this returns."""
    for path in (destination, Envelope.path_for(destination)):
        if path.exists() or path.is_symlink():  # a dangling link too: the rename would replace the link
            raise ConfigError("the destination exists, and a redacted copy never replaces a file", where=str(path),
                              fix="give a new path for --out")
    scrubber = scrubber_for(policy.export.redaction.style, read_rule_pack(folder))
    partial = _partial(destination)
    _remove(partial)  # left by a copy that was killed
    src = open_store(source, kek, read_only=True)
    try:
        dst = open_store(partial, kek, create=True)
        try:
            rows = _copy_tables(src, dst, scrubber)
            dst.con.execute("INSERT INTO meta VALUES ('redacted_from', ?), ('redaction', ?)", [
                src.store_id, json.dumps({"style": scrubber.style, "at": datetime.now(UTC).isoformat(
                    timespec="seconds")})])
        finally:
            dst.close()
    except BaseException:
        _remove(partial)
        raise
    finally:
        src.close()
    if scrubber.residuals:
        _remove(partial)
        raise ExportRefusedError("the redacted copy still holds detectable PHI: "
                                 + "; ".join(r.describe() for r in scrubber.residuals[:5]),
                                 where=str(source), fix="nothing was written; report the case with the locations "
                                                        "named, so the redaction rules can be extended")
    os.replace(Envelope.path_for(partial), Envelope.path_for(destination))
    os.replace(partial, destination)
    return rows, dict(sorted(scrubber.counts.items()))


def _copy_tables(src: StoreHandle, dst: StoreHandle, scrubber: Scrubber) -> dict[str, int]:
    access = dict(src.con.execute("SELECT run_id, access FROM runs").fetchall())
    counts = {}
    dst.con.execute("BEGIN")
    for table, columns in column_classes().items():
        names = list(columns)
        result = src.con.execute(f"SELECT {', '.join(names)} FROM {table}")  # names are constants above
        counts[table] = 0
        while batch := result.fetchmany(2048):
            shaped = [_shape_row(table, names, columns, row, access, scrubber) for row in batch]
            _insert(dst.con, table, names, shaped)
            counts[table] += len(shaped)
    dst.con.execute("COMMIT")
    return counts


def _insert(con: duckdb.DuckDBPyConnection, table: str, names: list[str], rows: list[list[Any]]) -> None:
    """One Arrow batch: executemany costs 1-3 ms a row on an encrypted store, a batch a fraction of that."""
    import pyarrow as pa

    batch = pa.table({name: [row[i] for row in rows] for i, name in enumerate(names)})
    con.register("_copy_batch", batch)
    try:
        con.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(names)} FROM _copy_batch")
    finally:
        con.unregister("_copy_batch")


def _shape_row(table: str, names: list[str], columns: dict[str, Treatment], row: tuple[Any, ...],
               access: dict[str, str], scrubber: Scrubber) -> list[Any]:
    values = dict(zip(names, row, strict=True))
    run_id = str(values["run_id"])
    instance_id = str(values.get("instance_id", ""))
    pseudonym = scrubber.pseudonym(run_id, instance_id) if "instance_id" in values else ""
    sensitive = not may_leave_unredacted(access[run_id])
    doc = f"{run_id}\0{instance_id}"
    return [_shape_value(columns[name], value, sensitive, scrubber, doc, (table, run_id, pseudonym, name), pseudonym)
            for name, value in values.items()]


def _shape_value(treatment: Treatment, value: Any, sensitive: bool, scrubber: Scrubber, doc: str,
                 where: tuple[str, str, str, str], pseudonym: str) -> Any:
    if treatment == "instance_id":
        return pseudonym
    if treatment == "drop":
        return None
    if treatment == "keep" or (treatment in ("label", "json_label") and not sensitive):
        return value
    if treatment in ("json_text", "json_label"):
        return scrubber.json_text(value, doc, where)
    return scrubber.text(value, doc, where)
