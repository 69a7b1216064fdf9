"""The stored schema is declared once: DDL, writer, migration, redaction classes and export derive from it,
and stores written by earlier versions (v1, v2) open, migrate and read the same."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
from conftest import REPO, run_cli

from medhelm_local.errors import StoreError
from medhelm_local.export import artifacts
from medhelm_local.export.redacted_store import column_classes
from medhelm_local.export.scrubber import Scrubber
from medhelm_local.redact import detector_for, load_policy
from medhelm_local.results.aggregates import compute_aggregates, run_aggregates
from medhelm_local.settings import default_redaction_dir
from medhelm_local.store import schema
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.queries import list_runs
from medhelm_local.store.schema_versions import backup_path
from medhelm_local.store.writer import StoreWriter, row_of

V1 = REPO / "tests" / "data" / "stores" / "v1"
V2 = REPO / "tests" / "data" / "stores" / "v2"


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    tables = [t for (t,) in con.execute("SELECT table_name FROM information_schema.tables WHERE table_catalog = "
                                        "'store' ORDER BY table_name").fetchall()]
    return {t: [c[0] for c in con.execute(f"DESCRIBE {t}").fetchall()] for t in tables}


def _declared() -> dict[str, list[str]]:
    return {t.name: [c.name for c in t.columns] for t in schema.suite_tables()}


def test_a_new_store_has_exactly_the_declared_tables_and_columns(tmp_path: Path, kek: Kek) -> None:
    handle = open_store(tmp_path / "s.duckdb", kek, create=True)
    try:
        assert _columns(handle.con) == dict(sorted(_declared().items()))
    finally:
        handle.close()
    classes = column_classes()
    assert {t: list(cols) for t, cols in classes.items()} == {t: c for t, c in _declared().items() if t != "meta"}


def _fixture_copy(tmp_path: Path, version: int = 1) -> tuple[Path, Kek]:
    """A copy of the committed store written by schema version `version`, and its key."""
    folder = tmp_path / f"v{version}"
    shutil.copytree(REPO / "tests" / "data" / "stores" / f"v{version}", folder)
    for path in folder.iterdir():
        path.chmod(0o600)
    return folder / f"v{version}fixture.duckdb", Kek(bytes.fromhex((folder / "kek").read_text().strip()), "fixture kek")


def test_a_v1_store_made_by_the_previous_release_migrates_on_open_and_reads_the_same(tmp_path: Path) -> None:
    path, kek = _fixture_copy(tmp_path)
    expected = json.loads((V1 / "expected_run.json").read_text())["runs"]

    handle = open_store(path, kek, read_only=True)  # even a read-only open brings it up to date first
    try:
        assert _columns(handle.con) == dict(sorted(_declared().items()))
        meta = dict(handle.con.execute("SELECT key, value FROM meta").fetchall())
        assert meta["schema_version"] == str(schema.SCHEMA_VERSION) and "migrated_from_v1" in meta
        runs = {r.run_id: r for r in list_runs(handle.con)}
        for old in expected:
            run = runs[old["run"]["run_id"]]
            assert (run.n_instances, run.n_ok, run.n_failed) == (old["run"]["n_instances"], old["run"]["n_ok"],
                                                                  old["run"]["n_failed"])
            main = next(a for a in run_aggregates(handle.con, run.run_id) if a.metric == run.main_metric)
            old_main = next(a for a in old["aggregates"] if a["metric"] == old["run"]["main_metric"])
            assert (main.n, main.n_scored, main.n_failed) == (old_main["n"], old_main["n_scored"], old_main["n_failed"])
            assert main.mean == pytest.approx(old_main["mean"])
    finally:
        handle.close()
    assert not backup_path(path, 1).exists(), "the original is kept only until the migration commits"


def test_a_v2_store_migrates_and_its_calibration_still_reads_from_the_logprobs(tmp_path: Path) -> None:
    path, kek = _fixture_copy(tmp_path, 2)
    expected = json.loads((V2 / "expected_run.json").read_text())["runs"]

    handle = open_store(path, kek, read_only=True)
    try:
        meta = dict(handle.con.execute("SELECT key, value FROM meta").fetchall())
        assert meta["schema_version"] == str(schema.SCHEMA_VERSION) and "migrated_from_v2" in meta
        # v2 completions have no stored confidence: recomputing reads it from each one's logprobs.
        assert handle.con.execute("SELECT count(*) FROM completions WHERE confidence IS NOT NULL").fetchone() == (0,)
        for old in expected:
            recomputed = {a.metric: a for a in compute_aggregates(handle.con, old["run"]["run_id"])}
            for figure in old["aggregates"]:
                now = recomputed[figure["metric"]]
                assert (now.n, now.n_scored, now.n_failed) == (figure["n"], figure["n_scored"], figure["n_failed"])
                assert now.mean == pytest.approx(figure["mean"]) and now.ci_low == pytest.approx(figure["ci_low"])
        assert {"ece", "brier"} <= {a["metric"] for a in expected[0]["aggregates"]}
    finally:
        handle.close()


def test_a_migrated_store_takes_new_runs_and_lists_on_the_cli(tmp_path: Path) -> None:
    path, kek = _fixture_copy(tmp_path)
    listed = run_cli("runs", "list", "--store", str(path), "--json",
                     env={"MEDHELM_KEK_FILE": str(path.parent / "kek")})
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)[0]["runs"]) == 2
    handle = open_store(path, kek)
    try:
        writer = StoreWriter(handle)
        writer.put("scores", row_of("scores", run_id="r", instance_id="i", metric="m", value=None, error="x"))
        writer.close()
        assert handle.con.execute("SELECT value, error FROM scores WHERE run_id = 'r'").fetchall() == [(None, "x")]
    finally:
        handle.close()


def test_a_migration_that_fails_halfway_leaves_the_store_as_it_was(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path, kek = _fixture_copy(tmp_path)
    # The declared steps run first, then one that cannot: the transaction must undo them all.
    monkeypatch.setitem(schema.MIGRATION_STEPS, 2, (*schema.MIGRATION_STEPS[2], "ALTER TABLE nowhere ADD COLUMN x INT"))
    with pytest.raises(StoreError, match="migrating the store from schema version 1 failed"):
        open_store(path, kek, read_only=True)
    monkeypatch.undo()
    handle = open_store(path, kek, read_only=True)  # a later, working migration starts from the untouched v1
    try:
        assert handle.con.execute("SELECT value FROM meta WHERE key = 'migrated_from_v1'").fetchone() is not None
    finally:
        handle.close()


def test_a_declared_column_reaches_ddl_writer_migration_redaction_and_export_with_no_other_edit(
        tmp_path: Path, kek: Kek, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s.duckdb"
    open_store(store, kek, create=True).close()  # written by today's declaration
    scores = schema.table("scores")
    added = schema.Column("reviewer_note", "text", "text", since=schema.SCHEMA_VERSION + 1, carries="completions")
    tables = tuple(replace(t, columns=(*t.columns, added)) if t is scores else t for t in schema.suite_tables())
    monkeypatch.setitem(schema.SCHEMAS, "suite", (tables, schema.SCHEMA_VERSION + 1))

    assert "reviewer_note VARCHAR" in schema.ddl("suite")
    assert column_classes()["scores"]["reviewer_note"] == "text"
    handle = open_store(store, kek)  # the older store gains the column on open
    try:
        assert "reviewer_note" in _columns(handle.con)["scores"]
        writer = StoreWriter(handle)
        writer.put_many("instances", [row_of("instances", run_id="r", instance_id="i1", ordinal=0, split="test",
                                             input="q", references_json="[]", extra_json="{}")])
        writer.put("scores", row_of("scores", run_id="r", instance_id="i1", metric="m", value=1.0,
                                    reviewer_note="Seen by Dr. Przybylski on 03/14/2021"))
        writer.close()
        scrubber = Scrubber(detector_for(default_redaction_dir()), "mask",
                            load_policy(default_redaction_dir() / "surrogates.yaml"))
        shaper = artifacts.Shaper("scores", {"r": "redacted"}, scrubber, {"r": "private"})
        [row] = artifacts.rows_artifact("scores", ["r"], shaper, handle.con, lambda run, artifact: "redacted")
        withheld = artifacts.rows_artifact("scores", ["r"], shaper, handle.con, lambda run, artifact: "never")
    finally:
        handle.close()
    assert row["reviewer_note"] == "Seen by Dr. [NAME] on [DATE]"
    assert "reviewer_note" not in withheld[0]  # it carries completions' text, which may not leave here
