"""A small SQLite database with the published eICU schema and invented rows (no credentialed data).

The rows are made up from the `value` slots of the EHRSQL questions given (patient ids, drug,
lab, diagnosis, treatment, intake/output and culture names), so that many real gold queries
return rows, some return repeated rows (for "distinct" cases) and some return none. Everything
is deterministic: the same questions give the same file, which the parity vectors rely on.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "datasets" / "ehrsql_eicu" / "eicu.sql"
# Stays: (admitted, unit discharge, hospital discharge); the last stay is still in hospital.
STAYS = (("2104-05-02 09:10:00", "2104-05-06 10:00:00", "2104-05-09 12:00:00"),
         ("2105-03-01 08:00:00", "2105-03-04 17:20:00", "2105-03-08 11:00:00"),
         ("2105-12-20 22:15:00", None, None))
TIMES = ("2104-05-03 07:00:00", "2105-03-02 10:30:00", "2105-03-02 10:30:00", "2105-12-24 06:45:00",
         "2105-12-30 18:00:00")


def build(path: Path, values: Iterable[Mapping[str, str]]) -> Path:
    """Write the database to `path` from the questions' value slots; returns the path."""
    slots = [dict(v) for v in values]
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA.read_text("utf-8"))
    patients = sorted({v["patient_id"] for v in slots if "patient_id" in v} | {"000-00001"})
    stays = _patients(conn, patients)
    names: dict[str, set[str]] = {}
    for slot in slots:
        for key, name in slot.items():
            names.setdefault(key.rstrip("0123456789"), set()).add(name)
    _events(conn, stays, names)
    conn.commit()
    conn.close()
    return path


def _patients(conn: sqlite3.Connection, patients: list[str]) -> list[tuple[str, int, int]]:
    stays: list[tuple[str, int, int]] = []
    for number, uniquepid in enumerate(patients):
        for visit, (admit, unit_out, hospital_out) in enumerate(STAYS[: 1 + number % len(STAYS)]):
            system, unit = 1000 + number * 10 + visit, 5000 + number * 10 + visit
            conn.execute("insert into patient values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", (
                uniquepid, system, unit, ("female", "male")[number % 2], str(40 + number % 50), "caucasian",
                1 + number % 3, 100 + number % 4, 170.2, 80.5 + number, 79.0, admit, "emergency department",
                admit, unit_out, hospital_out, "alive" if hospital_out else None))
            stays.append((uniquepid, system, unit))
    return stays


def _events(conn: sqlite3.Connection, stays: list[tuple[str, int, int]], names: Mapping[str, set[str]]) -> None:
    counter = iter(range(1, 10**9))
    for index, (uniquepid, system, unit) in enumerate(stays):
        for slot, insert in _INSERTS.items():
            for name_index, name in enumerate(sorted(names.get(slot, ()))):
                if (index + name_index) % 3:  # each stay gets about a third of the names
                    continue
                for time in TIMES[name_index % 2::2]:
                    row_id = next(counter)
                    conn.execute(insert, (row_id, unit, name, time))
                    conn.execute("insert into cost values (?,?,?,?,?,?,?)", (
                        row_id, uniquepid, system, _COST_EVENT.get(slot, "lab"), row_id, time, 10.5 + row_id % 7))
        for time in TIMES:
            conn.execute("insert into vitalperiodic values (?,?,?,?,?,?,?,?,?,?)", (
                next(counter), unit, 36.9, 97, 88 + index % 5, 16, 120, 70, 85, time))


_INSERTS = {
    "drug_name": "insert into medication values (?, ?, ?, '5 mg', 'po', ?, null)",
    "lab_name": "insert into lab values (?, ?, ?, 1.5, ?)",
    "diagnosis_name": "insert into diagnosis values (?, ?, ?, ?, 'v12.3')",
    "procedure_name": "insert into treatment values (?, ?, ?, ?)",
    "intake_name": "insert into intakeoutput (intakeoutputid, patientunitstayid, celllabel, intakeoutputtime, "
                   "cellpath, cellvaluenumeric) values (?, ?, ?, ?, 'flowsheet|intake (ml)|continuous', 50)",
    "output_name": "insert into intakeoutput (intakeoutputid, patientunitstayid, celllabel, intakeoutputtime, "
                   "cellpath, cellvaluenumeric) values (?, ?, ?, ?, 'flowsheet|output (ml)|urine', 120)",
    "culture_name": "insert into microlab values (?, ?, ?, 'escherichia coli', ?)",
}
_COST_EVENT = {"drug_name": "medication", "diagnosis_name": "diagnosis", "procedure_name": "treatment"}
