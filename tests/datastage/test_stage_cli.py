"""`medhelm-local data stage` as IT runs it: on the appliance it is refused, on a staging host it asks first."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI, run_cli
from support.mirror_server import Mirror, serve_mirror
from support.staging import REPO, mirror_folders, published_mirror, staging_policy

from medhelm_local.export.signing import write_signing_key
from medhelm_local.policy.loader import load_policy
from medhelm_local.scenarios.dataset_sources import dataset_sources
from medhelm_local.store.keys import Kek


@pytest.fixture
def mirror() -> Iterator[Mirror]:
    with serve_mirror(mirror_folders()) as running:
        yield running


def config(tmp_path: Path, policies: Path | None) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'policy_dir = "{policies}"\n' if policies else "")
    return path


def stage_cli(cfg: Path, mirror: Mirror, *args: str, env: dict[str, str] | None = None,
              stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    if stdin is None:
        return run_cli("-c", str(cfg), "data", "stage", *args, "--source-url", mirror.url, env=env)
    return subprocess.run([str(CLI), "-c", str(cfg), "data", "stage", *args, "--source-url", mirror.url],
                          input=stdin, capture_output=True, text=True, timeout=120, env=None)


def test_on_the_appliance_data_stage_is_refused_by_the_egress_policy(mirror: Mirror, tmp_path: Path) -> None:
    result = stage_cli(config(tmp_path, None), mirror, "pubmedqa", "--to", str(tmp_path / "bundle"), "--yes")

    assert result.returncode == 2
    assert f"data stage needs 127.0.0.1:{mirror.port}, which the egress policy does not list with purpose " \
           "'staging', so nothing was fetched" in " ".join(result.stderr.split())
    assert mirror.faults.requests == []
    assert not (tmp_path / "bundle").exists()


def test_a_host_listed_for_inference_is_not_a_staging_source(mirror: Mirror, tmp_path: Path) -> None:
    policies = staging_policy(tmp_path / "policies", mirror.port, purpose="inference")

    result = stage_cli(config(tmp_path, policies), mirror, "pubmedqa", "--to", str(tmp_path / "bundle"), "--yes")

    assert result.returncode == 2
    assert "does not list with purpose" in " ".join(result.stderr.split())
    assert mirror.faults.requests == []


def test_policy_check_says_whether_data_stage_may_fetch(mirror: Mirror, tmp_path: Path) -> None:
    appliance = run_cli("policy", "check", "--json")
    staging = run_cli("policy", "check", "--json", "--policy-dir",
                      str(staging_policy(tmp_path / "policies", mirror.port)))

    def rule(result: subprocess.CompletedProcess[str]) -> str:
        assert result.returncode == 0, result.stderr
        rows = json.loads(result.stdout)["rules"]
        return str(next(r["rule"] for r in rows if r["subject"] == "data stage"))

    assert rule(appliance).startswith("refused: no host is listed with purpose staging")
    assert rule(staging).startswith(f"may fetch published benchmark data from 127.0.0.1:{mirror.port} only")


def test_it_shows_the_hosts_and_asks_before_connecting(mirror: Mirror, tmp_path: Path) -> None:
    cfg = config(tmp_path, staging_policy(tmp_path / "policies", mirror.port))

    result = stage_cli(cfg, mirror, "pubmed_qa", "--to", str(tmp_path / "bundle"), stdin="n\n")

    assert result.returncode == 1
    text = " ".join(result.stdout.split()) + " ".join(result.stderr.split())
    assert f"It will connect to 127.0.0.1:{mirror.port}" in text
    assert "Connect and fetch these files?" in text
    assert mirror.faults.requests == []
    assert not (tmp_path / "bundle").exists()


def test_gated_benchmarks_are_listed_with_where_to_obtain_them_and_never_fetched(
        mirror: Mirror, tmp_path: Path) -> None:
    cfg = config(tmp_path, staging_policy(tmp_path / "policies", mirror.port))

    result = stage_cli(cfg, mirror, "ehrshot", "mimic_bhc", "--to", str(tmp_path / "bundle"), "--yes")

    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Not fetched ehrshot: EHRSHOT" in text and "https://redivis.com/datasets/53gc-8rhx41kgt" in text
    assert "https://physionet.org/content/labelled-notes-hospital-course/" in text
    assert "Nothing to fetch." in text
    assert mirror.faults.requests == []
    assert not (tmp_path / "bundle").exists()


def test_public_sets_without_shipped_checksums_are_listed_with_their_urls_and_never_fetched(
        mirror: Mirror, tmp_path: Path) -> None:
    cfg = config(tmp_path, staging_policy(tmp_path / "policies", mirror.port))

    result = stage_cli(cfg, mirror, "med_dialog", "medhelm_med_mcqa", "--to", str(tmp_path / "bundle"), "--yes")

    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Not fetched med_dialog" in text and "Not fetched med_mcqa" in text
    assert ("healthcaremagic/test.json from https://worksheets.codalab.org/rest/bundles/"
            "0x82f0c47f6d3e4462ae9ef8ea39eebe64/contents/blob/healthcaremagic/test.json") in text
    assert "import a folder named medmcqa" in text and "medhelm-local data import FOLDER" in text
    assert "Nothing to fetch." in text
    assert mirror.faults.requests == []
    assert not (tmp_path / "bundle").exists()


def test_an_unknown_benchmark_is_a_clear_error(mirror: Mirror, tmp_path: Path) -> None:
    cfg = config(tmp_path, staging_policy(tmp_path / "policies", mirror.port))

    result = stage_cli(cfg, mirror, "pubmedqa_typo", "--to", str(tmp_path / "bundle"), "--yes")

    assert result.returncode == 2
    assert "no benchmark is called 'pubmedqa_typo'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_signed_bundle_from_benchmark_names(mirror: Mirror, tmp_path: Path, kek_file: Path, kek: Kek) -> None:
    if not published_mirror():
        pytest.skip("the fixtures are not the published files, so the shipped checksums refuse them")
    cfg = config(tmp_path, staging_policy(tmp_path / "policies", mirror.port))
    key = write_signing_key(tmp_path / "staging.key", kek)
    served = mirror_folders()

    result = stage_cli(cfg, mirror, "pubmed_qa", "med_qa", "--to", str(tmp_path / "bundle"), "--yes",
                       "--signing-key", str(tmp_path / "staging.key"), env={"MEDHELM_KEK_FILE": str(kek_file)})

    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "bundle" / "MANIFEST.json").read_text())
    assert manifest["signing_key_id"] == key.key_id
    assert sorted(manifest["datasets"]) == ["medqa_usmle_4opt", "pubmedqa"]
    assert (tmp_path / "bundle" / "MANIFEST.json.sig").is_file()
    assert "signed with key" in result.stdout
    for folder in ("medqa_usmle_4opt", "pubmedqa"):
        for name in dataset_sources()[folder].checksums:
            staged = tmp_path / "bundle" / "datasets" / folder / name
            assert staged.read_bytes() == (served[folder] / name).read_bytes()


def test_the_staging_host_policy_shipped_lists_exactly_the_publishers_hosts(tmp_path: Path) -> None:
    folder = tmp_path / "staging-policy"
    shutil.copytree(REPO / "policies", folder)
    shutil.copy(REPO / "deploy" / "staging" / "egress.yaml", folder / "egress.yaml")

    policy = load_policy(folder)

    listed = {(e.host, e.port) for e in policy.egress.allow if e.purpose == "staging"}
    assert listed == {(s.host, s.port) for s in dataset_sources().values()} == {("raw.githubusercontent.com", 443)}
    assert [e.purpose for e in load_policy(REPO / "policies").egress.allow if e.purpose == "staging"] == []
