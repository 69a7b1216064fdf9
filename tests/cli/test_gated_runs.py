"""MedHELM's gated run entries, unchanged, against the synthetic files; long records cut to the model's
context with the server's tokenizer. Real CLI, the fake server on 127.0.0.1 (one token per character)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import GATED_FIXTURES, FakeServer, run_cli, write_config
from support.private_cards import private_cards
from support.scored import assert_main_scored

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

# Instances each entry must give from the fixtures (tests/data/gated/*/SYNTHETIC.md).
EXPECTED = {"dischargeme": 4, "mimic_bhc": 3, "mimic_rrs": 3, "mimiciv_billing_code": 3, "medalign": 3,
            "n2c2_ct_matching:ABDOMINAL": 3, "n2c2_ct_matching:ADVANCED-CAD": 3, "n2c2_ct_matching:CREATININE": 3,
            "ehrshot:guo_readmission": 4, "ehrshot:new_hypertension": 2, "ehrshot:lab_anemia": 1}
MODEL = "model=openai/gpt-4o-2024-05-13,model_deployment=stanfordhealthcare/gpt-4o-2024-05-13"


def medhelm_layout(root: Path) -> dict[str, Path]:
    """The synthetic files where MedHELM's gated conf expects them, each benchmark's data_path."""
    physionet = root / "physionet.org"
    shutil.copytree(GATED_FIXTURES / "dischargeme", physionet / "files" / "discharge-me" / "1.3")
    shutil.copytree(GATED_FIXTURES / "mimic_rrs", root / "rrs-mimiciii" / "all")
    shutil.copytree(GATED_FIXTURES / "n2c2_ct_matching", root / "n2c2_ct_matching")
    shutil.copytree(GATED_FIXTURES / "ehrshot", root / "ehrshot" / "meds")
    shutil.copytree(GATED_FIXTURES / "medalign", root / "medalign_release_fixes")
    return {"dischargeme": physionet, "mimic_bhc": GATED_FIXTURES / "mimic_bhc" / "mimic_iv_bhc.json",
            "mimic_rrs": root / "rrs-mimiciii" / "all", "n2c2_ct_matching": root / "n2c2_ct_matching",
            "ehrshot": root / "ehrshot" / "meds", "medalign": root / "medalign_release_fixes",
            "mimiciv_billing_code": GATED_FIXTURES / "mimiciv_billing_code" / "mimiciv_icd10.feather"}


def gated_conf(path: Path, where: dict[str, Path]) -> Path:
    """MedHELM's run_entries_medhelm_gated.conf for one model: its names and arguments, our data paths."""
    entries = [
        *(f"ehrshot:max_length=100000,subject={s},{MODEL},data_path={where['ehrshot']}/"
          for s in ("guo_readmission", "new_hypertension", "lab_anemia")),
        f"medalign:max_length=100000,{MODEL},data_path={where['medalign']}/",
        f"dischargeme:{MODEL},data_path={where['dischargeme']}",
        f"mimic_bhc:{MODEL},data_path={where['mimic_bhc']}",
        f"mimic_rrs:{MODEL},data_path={where['mimic_rrs']}",
        *(f"n2c2_ct_matching:subject={s},{MODEL},data_path={where['n2c2_ct_matching']}"
          for s in ("ABDOMINAL", "ADVANCED-CAD", "CREATININE")),
        f"mimiciv_billing_code:{MODEL},data_path={where['mimiciv_billing_code']}",
        f"ehrshot:num_output_tokens=4000,max_length=100000,subject=lab_anemia,{MODEL},data_path={where['ehrshot']}/",
    ]
    lines = ["# MedHELM RunSpecs for the gated benchmarks.", "", "entries: ["]
    lines += [f'  {{description: "{entry}", priority: 1}},' for entry in entries]
    path.write_text("\n".join([*lines, "]", ""]))
    return path


def _key(summary: dict[str, Any]) -> str:
    """The benchmark, and its subject when the entry names one."""
    found = re.search(r"[:,]subject=([^,]+)", summary["run_entry"])
    return f"{summary['scenario']}:{found.group(1)}" if found else summary["scenario"]


def _setup(tmp_path: Path, server: FakeServer, kek_file: Path) -> tuple[Path, dict[str, str]]:
    config = write_config(tmp_path / "config.toml", tmp_path / "no-data-root", tmp_path / "results",
                          {"local": {"base_url": server.base_url, "max_concurrency": 4, "timeout_s": 10.0,
                                     "max_retries": 0}})
    return config, {"MEDHELM_KEK_FILE": str(kek_file)}


def _requests(tmp_path: Path, kek_file: Path, suite: str) -> dict[str, tuple[str, dict[str, Any]]]:
    handle = open_store(tmp_path / "results" / f"{suite}.duckdb",
                        Kek(bytes.fromhex(kek_file.read_text().strip()), "k"), read_only=True)
    try:
        rows = handle.con.execute("SELECT instance_id, prompt, params_json FROM requests").fetchall()
    finally:
        handle.close()
    return {row[0]: (row[1], json.loads(row[2])) for row in rows}


def test_medhelms_gated_conf_runs_unchanged_against_the_fixtures(
        tmp_path: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    conf = gated_conf(tmp_path / "run_entries_medhelm_gated.conf", medhelm_layout(tmp_path / "share"))
    config, env = _setup(tmp_path, fake_server(context=100_000), kek_file)

    result = run_cli("-c", str(config), "run", "--conf", str(conf), "--model", "local/m", "--model-deployment",
                     "local", "--suite", "gated", "--json", env=env)

    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    counts = {}
    for run in runs:
        summary = run["run"]
        key = _key(summary)
        counts[key] = max(counts.get(key, 0), summary["n_instances"])
        assert summary["n_ok"] == summary["n_instances"], key
        assert summary["access"] == "gated", key
        assert_main_scored(run, key)
    assert counts == EXPECTED
    assert len(runs) == 12  # the num_output_tokens=4000 entry is its own run


def test_a_long_record_is_cut_to_the_models_context_with_its_own_tokenizer(
        tmp_path: Path, kek_file: Path, gated_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(context=3000)
    config, env = _setup(tmp_path, server, kek_file)
    where = f"data_path={GATED_FIXTURES / 'medalign'}"

    result = run_cli("-c", str(config), "run", f"medalign:{where},model=local/m,model_deployment=local",
                     "--suite", "cut", "--json", env=env)

    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)["runs"][0]["run"]
    assert run["n_ok"] == 3 and run["n_failed"] == 0
    requests = _requests(tmp_path, kek_file, "cut")
    long_prompt, params = requests["4"]
    assert 2000 < params["cut_from_tokens"] - len(long_prompt) < params["cut_from_tokens"]  # it was long, now cut
    assert len(long_prompt) + 5 + params["max_tokens"] <= 3000  # 5: the chat framing of the fake model
    assert long_prompt.startswith("Instruction: Answer the following question based on the EHR:\n\nEHR: ")
    assert long_prompt.endswith("Follow-up visit 120: patient feels well, invented text.</event></entry></visit>\n"
                                "</eventstream>\n\n\nQuestion: When was the first outpatient visit?\n\nAnswer:\n")
    assert "visit 1:" not in long_prompt  # the oldest visits went, the most recent stayed
    assert "cut_from_tokens" not in requests["1"][1]  # short records are sent as they are
    assert server.stats()["longest_prompt"] + 256 <= 3000


def test_max_length_bounds_the_prompt_below_the_context(
        tmp_path: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(tmp_path, fake_server(context=100_000), kek_file)
    entry = f"medalign:max_length=1200,data_path={GATED_FIXTURES / 'medalign'},model=local/m,model_deployment=local"

    result = run_cli("-c", str(config), "run", entry, "--suite", "bounded", "--json", env=env)

    assert result.returncode == 0, result.stderr
    prompt, params = _requests(tmp_path, kek_file, "bounded")["4"]
    assert len(prompt) + 5 + 256 <= 1200 and params["cut_from_tokens"] > 1200


def test_without_a_tokenizer_records_are_sent_whole(
        tmp_path: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(tmp_path, fake_server(), kek_file)  # like Ollama: no /tokenize
    entry = f"medalign:data_path={GATED_FIXTURES / 'medalign'},model=local/m,model_deployment=local"

    result = run_cli("-c", str(config), "run", entry, "--suite", "whole", "--json", env=env)

    assert result.returncode == 0, result.stderr
    prompt, params = _requests(tmp_path, kek_file, "whole")["4"]
    assert "cut_from_tokens" not in params and "Follow-up visit 1: patient" in prompt


def test_a_prompt_too_long_without_a_record_to_cut_is_stored_as_failed(
        tmp_path: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    config, env = _setup(tmp_path, fake_server(context=1000), kek_file)
    entry = f"mimic_rrs:data_path={GATED_FIXTURES / 'mimic_rrs'},num_output_tokens=990,model=local/m," \
            "model_deployment=local"

    result = run_cli("-c", str(config), "run", entry, "--suite", "refused", "--json", env=env)

    run = json.loads(result.stdout)["runs"][0]["run"]
    assert run["n_failed"] == 3 and run["n_ok"] == 0  # mimic_rrs is not truncated: the server refuses
    assert result.returncode == 6


def test_private_formats_and_the_unpinned_public_sets_run_under_medhelms_names(
        tmp_path: Path, kek_file: Path, gated_root: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(context=200_000)
    config = write_config(tmp_path / "config.toml", gated_root, tmp_path / "results",
                          {"local": {"base_url": server.base_url, "max_concurrency": 4, "timeout_s": 10.0,
                                     "max_retries": 0}})
    config.write_text(f'benchmark_cards = ["{private_cards(tmp_path / "cards")}"]\n' + config.read_text())
    model = "model=local/m,model_deployment=local"
    entries = [f"shc_ptbm_med:{model}", f"clear:condition=alcohol_dependence,{model}", f"chw_care_plan:{model}",
               f"mental_health:{model}", f"starr_patient_instructions:{model}", f"med_dialog:subset=icliniq,{model}",
               f"medhelm_med_mcqa:{model}"]

    result = run_cli("-c", str(config), "run", *entries, "--suite", "private", "--json",
                     env={"MEDHELM_KEK_FILE": str(kek_file)})

    assert result.returncode == 0, result.stderr
    runs = {r["run"]["scenario"]: r for r in json.loads(result.stdout)["runs"]}
    assert {name: (r["run"]["access"], r["run"]["n_ok"]) for name, r in runs.items()} == {
        "shc_ptbm_med": ("private", 4), "clear": ("private", 3), "chw_care_plan": ("private", 2),
        "mental_health": ("private", 2), "starr_patient_instructions": ("private", 2),
        "med_dialog": ("public", 1), "medhelm_med_mcqa": ("public", 3)}
    for name, run in runs.items():
        assert_main_scored(run, name)


def test_records_longer_than_a_runs_store_memory_floor_holds_raise_its_limit_to_fit(
        tmp_path: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    # DuckDB holds 2,048 values of a text column at once (tests/store/test_writer.py), and a run's checkpoints
    # need room for two such vectors: a run's 48 MB floor holds texts up to ~16 KB. One history of 100 KB: the
    # run sizes its store's memory for it (2 x 2,048 x 100 KB, in powers of two), and says so.
    cards = private_cards(tmp_path / "cards")
    csv = cards / "starr_patient_instructions.csv"
    long_note = "Invented H&P day by day. " * 4000  # ~100 KB
    csv.write_text(csv.read_text() + f"TRUE,Hip fracture,Hip hemiarthroplasty,{long_note},Invented op note.,Walk.\n")
    config, env = _setup(tmp_path, fake_server(), kek_file)
    log = tmp_path / "run.log"
    config.write_text(f'benchmark_cards = ["{cards}"]\nlog_file = "{log}"\n' + config.read_text())

    result = run_cli("-c", str(config), "run", "starr_patient_instructions:model=local/m,model_deployment=local",
                     "--suite", "long", "--json", env=env)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["runs"][0]["run"]["n_ok"] == 3
    limit = re.search(r"store memory limit (\d+)MB: the longest text is (\d+) KB", log.read_text())
    assert limit is not None and int(limit.group(2)) * 1024 > 99_000
    assert int(limit.group(1)) * 2**20 >= 2 * 2048 * 100_000
