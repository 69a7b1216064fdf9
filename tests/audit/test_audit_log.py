"""The audit log: append-only, hash-chained, and any edit or deletion is found and named."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.appliance import Appliance

from medhelm_local.audit import AuditLog
from medhelm_local.errors import StoreNotFoundError
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


def _tamper(path: Path, kek: Kek, sql: str) -> None:
    """What someone holding the KEK could do to the log with DuckDB directly."""
    handle = open_store(path, kek, kind="audit")
    try:
        handle.con.execute(sql)
    finally:
        handle.close()


@pytest.fixture
def log(tmp_path: Path, kek: Kek) -> AuditLog:
    audit = AuditLog(tmp_path / "audit.duckdb", kek)
    for n in range(5):
        audit.append("export.allowed", {"n": n, "destination": f"/exports/{n}"}, actor="tester")
    return audit


def test_records_chain_and_verify(log: AuditLog) -> None:
    records, problems = log.verify()
    assert problems == [] and [r.seq for r in records] == [1, 2, 3, 4, 5]
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
    assert records[2].details == {"n": 2, "destination": "/exports/2"} and records[2].actor == "tester"


def test_an_edited_record_is_found(log: AuditLog, kek: Kek) -> None:
    _tamper(log.path, kek, "UPDATE audit SET details_json = replace(details_json, '/exports/2', '/tmp/x') "
                           "WHERE seq = 3")
    _, problems = log.verify()
    assert [(p.seq, "edited" in p.problem) for p in problems] == [(3, True)]


def test_a_deleted_record_is_found(log: AuditLog, kek: Kek) -> None:
    _tamper(log.path, kek, "DELETE FROM audit WHERE seq = 2")
    _, problems = log.verify()
    assert {p.seq for p in problems} == {3} and any("removed" in p.problem for p in problems)


def test_a_rewritten_hash_does_not_hide_an_edit(log: AuditLog, kek: Kek) -> None:
    # Recomputing one record's own hash is not enough: the next record still points at the old one.
    from medhelm_local.audit.chain import canonical_details, record_hash

    _, records = log.records()
    target = records[1]
    body = canonical_details({"n": 99})
    digest = record_hash(target.seq, target.at, target.kind, target.actor, body, target.prev_hash)
    _tamper(log.path, kek, f"UPDATE audit SET details_json = '{body}', hash = '{digest}' WHERE seq = 2")
    _, problems = log.verify()
    assert [p.seq for p in problems] == [3]


def test_removing_the_newest_records_is_found_against_a_bundle_anchor(log: AuditLog, kek: Kek) -> None:
    _, records = log.records()
    anchor = (records[-1].seq, records[-1].hash)
    _tamper(log.path, kek, "DELETE FROM audit WHERE seq >= 4")
    _, unanchored = log.verify()
    assert unanchored == []  # a truncated chain is still a chain...
    _, problems = log.verify([anchor])
    # ...but not the one a signed bundle saw.
    assert [p.seq for p in problems] == [5] and "removed from the end" in problems[0].problem


def test_records_copied_from_another_log_do_not_verify(log: AuditLog, tmp_path: Path, kek: Kek) -> None:
    other = AuditLog(tmp_path / "other.duckdb", kek)
    other.append("export.allowed", {"n": 0}, actor="tester")
    _, first = other.records()
    row = first[0]
    _tamper(log.path, kek, "DELETE FROM audit")
    body = json.dumps(dict(row.details), separators=(",", ":"))
    _tamper(log.path, kek, f"INSERT INTO audit VALUES (1, '{row.at}', '{row.kind}', '{row.actor}', '{body}', "
                           f"'{row.prev_hash}', '{row.hash}')")
    _, problems = log.verify()
    assert problems and "does not point at the record before it" in problems[0].problem


def test_two_processes_appending_at_once_keep_one_chain(tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    script = ("import sys; from pathlib import Path; from medhelm_local.audit import AuditLog; "
              "from medhelm_local.store.keys import Kek; "
              "log = AuditLog(Path(sys.argv[1]), Kek(bytes.fromhex(Path(sys.argv[2]).read_text().strip()), 'f')); "
              "[log.append('egress.refused', {'i': i, 'p': sys.argv[3]}) for i in range(15)]")
    path = tmp_path / "audit.duckdb"
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), str(kek_file), name]) for name in "ab"]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    records, problems = AuditLog(path, kek).verify()
    assert problems == [] and len(records) == 30


def test_reading_a_log_that_does_not_exist_says_so(tmp_path: Path, kek: Kek) -> None:
    with pytest.raises(StoreNotFoundError, match="no audit log here yet"):
        AuditLog(tmp_path / "none.duckdb", kek).records()
    assert not (tmp_path / "none.duckdb").exists()


def test_audit_verify_on_the_cli_names_the_broken_record(appliance: Appliance, kek: Kek) -> None:
    for n in range(3):
        done = appliance.cli("export", "ward", "--to", str(appliance.root / f"b{n}"), "--role", "data_scientist")
        assert done.returncode == 0, done.stderr
    records = appliance.audit_records()
    allowed = [r["seq"] for r in records if r["kind"] == "export.allowed"]
    ok = appliance.cli("audit", "verify", "--bundle", str(appliance.root / "b2"))
    assert ok.returncode == 0 and f"{len(records)} record(s), chain unbroken" in ok.stdout, ok.stderr
    assert "1 bundle(s)" in ok.stdout
    _tamper(appliance.audit, kek, f"UPDATE audit SET actor = 'someone else' WHERE seq = {allowed[1]}")
    broken = appliance.cli("audit", "verify")
    assert broken.returncode == 4 and f"record {allowed[1]}: its contents do not match its hash" in broken.stderr
    _tamper(appliance.audit, kek, f"DELETE FROM audit WHERE seq = {allowed[2]}")
    gone = appliance.cli("audit", "verify", "--bundle", str(appliance.root / "b2"))
    assert gone.returncode == 4 and "its export is not in the audit log" in gone.stderr
    shown = appliance.cli("audit", "show", "--kind", "export", "--last", "1", "--json")
    assert [(r["seq"], r["kind"]) for r in json.loads(shown.stdout)] == [(allowed[2] - 1, "export.started")]
