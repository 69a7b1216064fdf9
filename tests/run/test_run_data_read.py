"""A run records what it read, in its row and in the audit log as it starts, and never resumes on other data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import DEMO_DATASETS, FakeServer, dev_audit_log, run_cli, write_config

from medhelm_local.audit.log import AuditLog
from medhelm_local.scenarios.datafiles import sha256_file
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

ENTRY = "pubmed_qa:model=local/m,model_deployment=fake"


def test_a_run_records_what_it_read_and_is_not_resumed_on_other_files(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    audit = dev_audit_log()
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    ran = run_cli("-c", str(config), "run", ENTRY, "-m", "2", "--suite", "s", env=env)
    assert ran.returncode == 0, ran.stderr

    handle = open_store(tmp_path / "results" / "s.duckdb", kek, read_only=True)
    try:
        [(run_id, data_json)] = handle.con.execute("SELECT run_id, data_json FROM runs").fetchall()
    finally:
        handle.close()
    data = json.loads(data_json)
    subset = sha256_file(DEMO_DATASETS / "pubmedqa" / "ori_pqal.json")
    assert data["files"] == {"ori_pqal.json": subset} and data["published"] is True and data["folder"] == "pubmedqa"
    [started] = [r for r in AuditLog(audit, kek).records()[1] if r.kind == "run.started"]
    [entry] = started.details["runs"]
    assert entry["run_id"] == run_id and entry["benchmark"] == "pubmed_qa" and entry["access"] == "public"
    assert entry["data"] == data and entry["resumed"] is False

    # Other files under the same folder name: the run is not resumed on them, and nothing more is sent.
    items = json.loads((DEMO_DATASETS / "pubmedqa" / "ori_pqal.json").read_text())
    changed = tmp_path / "incoming" / "pubmedqa"
    changed.mkdir(parents=True)
    (changed / "ori_pqal.json").write_text(json.dumps(dict(list(items.items())[:10])))
    imported = run_cli("-c", str(config), "data", "import", str(changed), "--replace", env=env)
    assert imported.returncode == 0, imported.stderr
    assert "runs of it are exported as private data" in " ".join(imported.stdout.split())
    sent = server.stats()["requests"]
    resumed = run_cli("-c", str(config), "run", ENTRY, "-m", "4", "--suite", "s", env=env)
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    said = " ".join(resumed.stderr.split())
    assert f"run {run_id}: the data of pubmed_qa changed since the run started (ori_pqal.json)" in said
    assert "--suite NAME" in said and "Traceback" not in resumed.stderr
    assert server.stats()["requests"] == sent
