"""Run entries from MedHELM conf files and YAML suite files, with errors that name the line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.errors import ConfigError, RunEntryError
from medhelm_local.run.entry_sources import conf_path, entries_from_conf, read_conf, read_suite
from medhelm_local.scenarios import create

CONF = '''# a MedHELM-style conf
entries: [
  ### Conducting Literature Research ###
  {description: "pubmed_qa:model=openai/gpt-4o,model_deployment=stanfordhealthcare/gpt-4o", priority: 1},
  {description: "pubmed_qa:model=meta/llama-3.3-70b,model_deployment=stanfordhealthcare/llama", priority: 1},
  {description: "medcalc_bench:num_output_tokens=4000,model=deepseek-ai/r1,model_deployment=shc/r1", priority: 2},
]
'''


def _write(tmp_path: Path, text: str, name: str = "entries.conf") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_conf_is_read_as_medhelm_writes_it(tmp_path: Path) -> None:
    entries = read_conf(_write(tmp_path, CONF))
    assert [(e.priority, e.line) for e in entries] == [(1, 4), (1, 5), (2, 6)]
    assert entries[2].description.startswith("medcalc_bench:num_output_tokens=4000")


def test_priority_filters_and_model_override_merges_duplicates(tmp_path: Path) -> None:
    path = _write(tmp_path, CONF)
    assert len(entries_from_conf(path, 1, None, None)) == 2
    mine = entries_from_conf(path, None, "local/qwen", "vllm-local")
    assert [e.canonical for e in mine] == [
        "pubmed_qa:model=local/qwen,model_deployment=vllm-local",
        "medcalc_bench:num_output_tokens=4000,model=local/qwen,model_deployment=vllm-local"]


@pytest.mark.parametrize("conf", ["public", "gated"])
def test_shipped_confs_name_only_installed_benchmarks_with_arguments_they_take(conf: str) -> None:
    entries = entries_from_conf(conf_path(conf), 1, "local/m", "d")
    assert len(entries) >= 3
    for entry in entries:
        bench = create(entry.scenario, entry.args)  # raises if the conf names something not installed, or an
        assert bench.access == ("gated" if conf == "gated" else "public")  # argument the benchmark does not take


def test_the_gated_conf_holds_every_gated_run_of_medhelm() -> None:
    entries = entries_from_conf(conf_path("gated"), 1, "local/m", "d")

    assert {(e.scenario, e.args.get("subject")) for e in entries} == {
        ("ehrshot", "guo_readmission"), ("ehrshot", "new_hypertension"), ("ehrshot", "lab_anemia"),
        ("medalign", None), ("dischargeme", None), ("mimic_bhc", None), ("mimic_rrs", None),
        ("n2c2_ct_matching", "ABDOMINAL"), ("n2c2_ct_matching", "ADVANCED-CAD"), ("n2c2_ct_matching", "CREATININE"),
        ("mimiciv_billing_code", None)}


@pytest.mark.parametrize("text, line, fragment", [
    ("entries: [\n  {description: \"pubmed_qa:model=a,model_deployment=b\", priority: one},\n]\n", 2, "cannot read"),
    ("runs: [\n]\n", 1, "must start with"),
])
def test_malformed_conf_names_the_line(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment) as err:
        read_conf(_write(tmp_path, text))
    assert f"line {line}" in str(err.value)


def test_unclosed_conf_and_bad_entry(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no complete"):
        read_conf(_write(tmp_path, "entries: [\n"))
    bad = _write(tmp_path, 'entries: [\n  {description: "pubmed_qa:model=a", priority: 1},\n]\n', "bad.conf")
    with pytest.raises(RunEntryError, match="no model deployment") as err:
        entries_from_conf(bad, None, None, None)
    assert "line 2" in str(err.value)


SUITE = '''suite: ward-review
models:
  - model: local/qwen
    deployment: vllm-local
  - model: local/llama
    deployment: vllm-local
benchmarks:
  - pubmed_qa
  - name: medcalc_bench
    args: {num_output_tokens: 64}
max_eval_instances: 20
'''


def test_suite_file_crosses_benchmarks_and_models(tmp_path: Path) -> None:
    suite = read_suite(_write(tmp_path, SUITE, "suite.yaml"))
    assert suite.name == "ward-review" and suite.max_eval_instances == 20
    assert len(suite.entries) == 4
    assert suite.entries[2].canonical == (
        "medcalc_bench:num_output_tokens=64,model=local/qwen,model_deployment=vllm-local")


@pytest.mark.parametrize("text, fragment, line", [
    (SUITE.replace("max_eval_instances", "max_instances"), "field 'max_instances': unknown field", 11),
    (SUITE.replace("    deployment: vllm-local\n  - model: local/llama", "  - model: local/llama"),
     "field 'models.0.deployment': Field required", 3),
    (SUITE.replace("benchmarks:", "benchmarks: ["), "not valid YAML", None),
    # a benchmark is a name or a mapping: the path is the file's, with no Python class name in it, and the
    # name-shaped alternative's complaint about a mapping is not counted as a second problem
    (SUITE.replace("    args:", "    arg:"), "field 'benchmarks.1.arg': unknown field.", 10),
    (SUITE.replace("  - pubmed_qa", "  - [pubmed_qa]"), "field 'benchmarks.0': the value is none of the forms "
     "this field takes.", 8),
])
def test_broken_suite_file_names_field_and_line(tmp_path: Path, text: str, fragment: str, line: int | None) -> None:
    with pytest.raises(ConfigError, match=fragment.replace("(", r"\(")) as err:
        read_suite(_write(tmp_path, text, "suite.yaml"))
    if line:
        assert f"line {line}" in str(err.value)
    assert "SuiteBenchmark" not in str(err.value) and "README 'Suites'" not in str(err.value)


def test_run_from_conf_and_suite_file(tmp_path: Path, data_root: Path, kek_file: Path,
                                      fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"vllm-local": {"base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    conf = _write(tmp_path, CONF)
    result = run_cli("-c", str(config), "run", "--conf", str(conf), "--priority", "2", "--model", "local/qwen",
                     "--model-deployment", "vllm-local", "-m", "5", "--json", env=env)
    assert result.returncode == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    assert sorted(r["run"]["scenario"] for r in runs) == ["medcalc_bench", "pubmed_qa"]
    suite = _write(tmp_path, SUITE.replace("max_eval_instances: 20", "max_eval_instances: 3"), "suite.yaml")
    result = run_cli("-c", str(config), "run", "--suite-file", str(suite), "--json", env=env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["store"].endswith("ward-review.duckdb") and len(data["runs"]) == 4
    assert all(r["run"]["n_ok"] == 3 for r in data["runs"])
    nothing = run_cli("-c", str(config), "run", env=env)
    assert nothing.returncode == 2 and "nothing to run" in nothing.stderr
