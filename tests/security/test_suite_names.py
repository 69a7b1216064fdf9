"""Item 8: suite names never reach outside the output folder, and a bad one is a clear error."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config
from support.appliance import Appliance

ENTRY = "pubmed_qa:model=local/fake,model_deployment=fake"


@pytest.mark.parametrize("suite", ["../../escaped", "/tmp/medhelm-escaped", "a/b", "..", ".hidden", "x" * 300])
def test_a_suite_name_that_is_not_a_file_name_is_refused_before_anything_runs(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer], suite: str) -> None:
    server = fake_server()
    config = write_config(tmp_path / "work" / "config.toml", data_root, tmp_path / "work" / "results",
                          {"fake": {"base_url": server.base_url}})
    before = {p for p in tmp_path.rglob("*")}
    done = run_cli("-c", str(config), "run", ENTRY, "--suite", suite, "--max-eval-instances", "2",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 2 and "is not a suite name" in done.stderr and "Traceback" not in done.stderr
    assert server.stats()["requests"] == 0
    assert {p for p in tmp_path.rglob("*")} == before and not Path("/tmp/medhelm-escaped.duckdb").exists()
    listed = run_cli("-c", str(config), "runs", "list", "--suite", suite, env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert listed.returncode == 2 and "is not a suite name" in listed.stderr


def test_export_never_reads_a_store_outside_the_output_folder(appliance: Appliance) -> None:
    outside = appliance.results.parent / "other.duckdb"
    shutil.copy(appliance.store, outside)
    shutil.copy(appliance.store.with_name("ward.duckdb.key"), outside.with_name("other.duckdb.key"))
    done = appliance.cli("export", "../other", "--to", str(appliance.root / "out"), "--role", "data_scientist")
    assert done.returncode == 2 and "neither a suite nor a run id" in done.stderr
    assert not (appliance.root / "out").exists()
