"""MedHELM's gated entries against the real vLLM server: the synthetic files run and are scored, and a long
record is cut with the served model's own tokenizer (its /tokenize), so the prompt the server counts fits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GATED_FIXTURES, run_cli, write_config
from support.private_cards import private_cards
from support.scored import assert_main_scored

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

pytestmark = pytest.mark.vllm
MAX_LENGTH = 700
ANSWER_TOKENS = 256  # medalign's max_tokens


def test_gated_entries_run_on_vllm_and_a_long_record_fits_by_the_models_tokenizer(  # type: ignore[no-untyped-def]
        vllm, tmp_path: Path, kek_file: Path) -> None:
    config = write_config(tmp_path / "config.toml", tmp_path / "no-data-root", tmp_path / "results",
                          {"vllm-local": {"base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 4,
                                          "timeout_s": 120}})
    model = "model=local/tiny-llama,model_deployment=vllm-local"
    conf = tmp_path / "gated.conf"
    conf.write_text("entries: [\n" + "".join(f'  {{description: "{e}", priority: 1}},\n' for e in [
        f"medalign:max_length={MAX_LENGTH},{model},data_path={GATED_FIXTURES / 'medalign'}",
        f"ehrshot:max_length=100000,subject=guo_readmission,{model},data_path={GATED_FIXTURES / 'ehrshot'}",
        f"mimiciv_billing_code:{model},data_path={GATED_FIXTURES / 'mimiciv_billing_code' / 'mimiciv_icd10.feather'}",
    ]) + "]\n")

    result = run_cli("-c", str(config), "run", "--conf", str(conf), "--suite", "gated", "--json",
                     env={"MEDHELM_KEK_FILE": str(kek_file)}, timeout=900)

    assert result.returncode == 0, result.stderr[-2000:]
    runs = {r["run"]["scenario"]: r for r in json.loads(result.stdout)["runs"]}
    assert {name: r["run"]["n_ok"] for name, r in runs.items()} == {
        "medalign": 3, "ehrshot": 4, "mimiciv_billing_code": 3}
    for name in ("ehrshot", "mimiciv_billing_code"):
        main = next(a for a in runs[name]["aggregates"] if a["metric"] == runs[name]["run"]["main_metric"])
        assert main["n_scored"] == runs[name]["run"]["n_ok"], name
    handle = open_store(tmp_path / "results" / "gated.duckdb", Kek(bytes.fromhex(kek_file.read_text().strip()), "k"),
                        read_only=True)
    try:
        rows = handle.con.execute(
            "SELECT q.instance_id, q.params_json, c.prompt_tokens FROM requests q JOIN completions c "
            "USING (run_id, instance_id) JOIN runs r USING (run_id) WHERE r.scenario = 'medalign'").fetchall()
    finally:
        handle.close()
    cut = {instance: (json.loads(params), tokens) for instance, params, tokens in rows}
    params, served_tokens = cut["4"]
    # The server's own count of the prompt it answered: within max_length with room for the answer,
    # cut from a record several times longer.
    assert served_tokens + ANSWER_TOKENS <= MAX_LENGTH
    assert params["cut_from_tokens"] > 2 * MAX_LENGTH
    assert all(tokens + ANSWER_TOKENS <= MAX_LENGTH for _, tokens in cut.values())


def test_private_formats_and_medmcqa_run_on_vllm(vllm, tmp_path: Path, kek_file: Path,  # type: ignore[no-untyped-def]
                                                  gated_root: Path) -> None:
    config = write_config(tmp_path / "config.toml", gated_root, tmp_path / "results",
                          {"vllm-local": {"base_url": vllm.base_url, "model": "tiny-llama", "max_concurrency": 4,
                                          "timeout_s": 120}})
    config.write_text(f'benchmark_cards = ["{private_cards(tmp_path / "cards")}"]\n' + config.read_text())
    model = "model=local/tiny-llama,model_deployment=vllm-local"

    result = run_cli("-c", str(config), "run", f"shc_ptbm_med:{model}", f"clear:condition=alcohol_dependence,{model}",
                     f"medhelm_med_mcqa:{model}", f"med_dialog:subset=healthcaremagic,{model}", "--suite", "private",
                     "--json", env={"MEDHELM_KEK_FILE": str(kek_file)}, timeout=900)

    assert result.returncode == 0, result.stderr[-2000:]
    runs = {r["run"]["scenario"]: r for r in json.loads(result.stdout)["runs"]}
    assert {name: r["run"]["n_ok"] for name, r in runs.items()} == {
        "shc_ptbm_med": 4, "clear": 3, "medhelm_med_mcqa": 3, "med_dialog": 2}
    for name, run in runs.items():
        assert_main_scored(run, name)
