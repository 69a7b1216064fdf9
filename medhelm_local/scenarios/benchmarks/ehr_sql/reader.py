"""EHRSQL (eICU): the schema's CREATE TABLE statements and a question; the reference is the gold query.

MedHELM scores execution accuracy on eicu.sqlite, a database derived from credentialed PhysioNet
data that is not published with EHRSQL. A site that holds it passes `db=/path/to/eicu.sqlite`;
the reader checks that file before anything runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

# MedHELM's input, verbatim: its source's line continuation leaves 20 spaces before "Question:".
INPUT = "-- Database Schema:\n{schema}\n\n-- " + " " * 20 + "Question:\n{question}\n\n"
SCHEMA_FILE = "eicu.sql"
SQLITE_MAGIC = b"SQLite format 3\x00"
POOLED = "valid+test"
SPLITS = {POOLED: ("valid", "test"), "test": ("test",), "valid": ("valid",)}


def schema_prompt(sql: str) -> str:
    """The CREATE TABLE statements of the schema file, one line per column, tables separated by a blank line."""
    tables: list[str] = []
    current: list[str] | None = None
    for raw in sql.splitlines():
        line = raw.strip()
        if line.startswith("CREATE TABLE"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.endswith(";"):
                tables.append("\n".join(current))
                current = None
    return "\n\n".join(tables)


def check_database(args: Mapping[str, str]) -> None:
    """With `db=`, the path must be a readable SQLite file."""
    if "db" not in args:
        return
    path = Path(args["db"]).expanduser()
    where = f"run entry for ehr_sql (db=): {path}"
    try:
        with path.open("rb") as fh:
            magic = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise RunEntryError(f"the eICU database cannot be read ({exc.strerror})", where=where,
                            fix="give the path of eicu.sqlite on this machine, or leave out db= to score "
                                "by SQL text") from None
    if magic != SQLITE_MAGIC:
        raise RunEntryError("the db= file is not a SQLite database", where=where,
                            fix="give the path of eicu.sqlite (the EHRSQL eICU database)")


@reader("ehr_sql", check_args=check_database)
def read_ehr_sql(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per question of the chosen split(s) (`split=valid+test`, MedHELM's pool, `test` or
    `valid`); the gold query is the reference. Question ids are unique across the two files."""
    schema = schema_prompt(paths[SCHEMA_FILE].read_text("utf-8"))
    if not schema:
        raise ValueError(f"{SCHEMA_FILE} holds no CREATE TABLE statement")
    # MedHELM reads valid before test and evaluates both.
    for split in SPLITS[args.get("split", POOLED)]:
        for entry in json.loads(paths[f"{split}.json"].read_text("utf-8")):
            # `value` (the question's slot values, as JSON) is what HELM's rule compares with when the
            # gold query returns no rows (metrics/ehr_sql_helm.py).
            extra = MappingProxyType({"is_impossible": "true" if entry.get("is_impossible") else "false",
                                      "template": str(entry.get("template", "")),
                                      "value": json.dumps(entry.get("value", {}))})
            yield Instance(str(entry["id"]), INPUT.format(schema=schema, question=entry["question"]),
                           (Reference(entry["query"]),), split=split, extra=extra)
