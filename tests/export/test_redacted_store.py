"""`redact store`: a redacted copy to share, every column classed, the original untouched."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
from support.appliance import Appliance
from support.phi_store import PLANTED, PRIVATE_IDS, PRIVATE_RUN, PUBLIC_RUN

from medhelm_local.export.redacted_store import column_classes
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.schema import ddl


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_column_of_the_schema_has_a_class() -> None:
    con = duckdb.connect()
    con.execute(ddl("suite"))
    tables = {t: [c[0] for c in con.execute(f"DESCRIBE {t}").fetchall()]
              for (t,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall() if t != "meta"}
    assert {t: list(column_classes().get(t, {})) for t in tables} == tables, "a column has no redaction class"


def test_the_copy_holds_no_planted_phi_and_the_original_is_unchanged(appliance: Appliance, kek: Kek) -> None:
    before = _sha(appliance.store), _sha(appliance.store.with_name("ward.duckdb.key"))
    out = appliance.root / "shared" / "ward-redacted.duckdb"
    done = appliance.cli("redact", "store", str(appliance.store), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert (_sha(appliance.store), _sha(appliance.store.with_name("ward.duckdb.key"))) == before
    copy = open_store(out, kek, read_only=True)
    try:
        text = "\n".join(str(row) for table in column_classes()
                         for row in copy.con.execute(f"SELECT * FROM {table}").fetchall())
        notes = copy.con.execute("SELECT input FROM instances WHERE run_id = ? ORDER BY ordinal",
                                 [PRIVATE_RUN]).fetchall()
        ids = {r[0] for r in copy.con.execute("SELECT DISTINCT instance_id FROM completions").fetchall()}
        logprobs = copy.con.execute("SELECT count(logprobs_json) FROM completions").fetchone()
        meta = dict(copy.con.execute("SELECT key, value FROM meta").fetchall())
    finally:
        copy.close()
    for value in [*PLANTED, *PRIVATE_IDS]:
        assert value not in text, f"{value!r} is in the copy"
    assert "[NAME]" in notes[0][0] and "lactate 4.1" in notes[0][0]  # clinical content survives
    assert len([i for i in ids if i.startswith("i-")]) == 4 and logprobs == (0,)
    assert meta["redacted_from"] and '"style": "mask"' in meta["redaction"]
    assert not any(p.name.startswith(".") for p in out.parent.iterdir())
    [done_record] = [r for r in appliance.audit_records() if r["kind"] == "redact_store.done"]
    assert PUBLIC_RUN not in json.dumps(done_record)


def test_the_copy_never_replaces_a_file(appliance: Appliance) -> None:
    for target in (appliance.store, appliance.root / "taken.duckdb"):
        if not target.exists():
            target.write_bytes(b"keep me")
        before = _sha(target)
        done = appliance.cli("redact", "store", str(appliance.store), "--out", str(target))
        assert done.returncode == 2 and "never replaces" in done.stderr and "Traceback" not in done.stderr
        assert _sha(target) == before
    dangling = appliance.root / "dangling.duckdb"  # a link to nothing: the rename would have replaced the link
    dangling.symlink_to(appliance.root / "nowhere.duckdb")
    done = appliance.cli("redact", "store", str(appliance.store), "--out", str(dangling))
    assert done.returncode == 2 and "never replaces" in done.stderr and dangling.is_symlink()
    assert not (appliance.root / "nowhere.duckdb").exists()


def test_a_file_that_is_not_a_store_is_a_clear_error(appliance: Appliance) -> None:
    (appliance.root / "notes.txt").write_text("Patient: Wojciech Przybylski")
    done = appliance.cli("redact", "store", str(appliance.root / "notes.txt"), "--out",
                         str(appliance.root / "x.duckdb"))
    assert done.returncode == 2 and "not a DuckDB database" in done.stderr
    assert "Przybylski" not in done.stderr and not (appliance.root / "x.duckdb").exists()
