"""From a fresh data root to runs: stage every public set from the mirror, import the bundle, list, run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import FakeServer, run_cli, write_config
from support.mirror_server import serve_mirror
from support.staging import mirror_folders, published_mirror, served_plan, staging_policy

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.data.stage import stage
from medhelm_local.export.signing import public_key_path, write_signing_key
from medhelm_local.scenarios import get, names
from medhelm_local.scenarios.dataset_sources import dataset_sources
from medhelm_local.store.keys import Kek

# What MedHELM's published files hold (README "Benchmarks"); checked when the published files are here.
PUBLISHED_COUNTS = {"aci_bench": 120, "ehr_sql": 2909, "head_qa": 2675, "med_qa": 1273, "medbullets": 308,
                    "medcalc_bench": 1047, "medec": 597, "medhallu": 2000, "medi_qa": 150, "medication_qa": 689,
                    "mtsamples_procedures": 131, "mtsamples_replicate": 540, "pubmed_qa": 1000,
                    "race_based_med": 167, "sct_bench": 174}


def stage_everything(tmp_path: Path, kek_file: Path, kek: Kek) -> tuple[Path, Path]:
    """The bundle of every public set the mirror serves, signed, and the public key to check it."""
    key = write_signing_key(tmp_path / "staging-host" / "staging.key", kek)
    bundle = tmp_path / "usb" / "medhelm-data"
    with serve_mirror(mirror_folders()) as mirror:
        if published_mirror():  # the whole command, with the checksums shipped in the package
            policies = staging_policy(tmp_path / "staging-host" / "policies", mirror.port)
            staged = run_cli("data", "stage", "--to", str(bundle), "--yes", "--signing-key", key.source,
                             "--source-url", mirror.url,
                             env={"MEDHELM_POLICY_DIR": str(policies), "MEDHELM_KEK_FILE": str(kek_file)})
            assert staged.returncode == 0, staged.stderr
            assert f"Staged {len(dataset_sources())} dataset(s)" in staged.stdout
        else:  # the fixtures are subsets: stage them with their own checksums
            stage(served_plan(mirror.url), bundle, Allowlist([("127.0.0.1", mirror.port)]), key)
    return bundle, public_key_path(Path(key.source))


def test_staged_benchmarks_are_present_with_their_counts_and_run_in_full(
        tmp_path: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    bundle, public_key = stage_everything(tmp_path, kek_file, kek)
    server = fake_server()
    data_root = tmp_path / "appliance" / "data"
    config = write_config(tmp_path / "appliance.toml", data_root, tmp_path / "appliance" / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 64}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}

    imported = run_cli("-c", str(config), "data", "import", str(bundle), "--public-key", str(public_key), env=env)
    assert imported.returncode == 0, imported.stderr
    listed = run_cli("-c", str(config), "benchmarks", "list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr

    staged_folders = set(json.loads((bundle / "MANIFEST.json").read_text())["datasets"])
    staged = sorted(n for n in names() if get(n).card.data.folder in staged_folders)
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert staged and all(rows[n]["data"] == "present" and rows[n]["instances"] > 0 for n in staged), \
        {n: (rows[n]["data"], rows[n]["problem"]) for n in staged}
    if published_mirror():
        assert staged == sorted(PUBLISHED_COUNTS)
        assert {n: rows[n]["instances"] for n in staged} == PUBLISHED_COUNTS

    entries = [f"{n}:model=local/fake,model_deployment=fake" for n in staged]
    ran = run_cli("-c", str(config), "run", *entries, "--suite", "staged", "--json", env=env, timeout=900)

    assert ran.returncode == 0, ran.stderr
    counts = {r["run"]["scenario"]: r["run"]["n_instances"] for r in json.loads(ran.stdout)["runs"]}
    assert counts == {n: rows[n]["instances"] for n in staged}
