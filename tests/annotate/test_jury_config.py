"""Juries are configuration: a bad jury is a clear error before anything is written or sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config
from support.jury import jury_config, jury_toml, write_generation_card

ENTRY = "ward_notes:model=local/m,model_deployment=gen"


@pytest.fixture
def setup(tmp_path: Path, data_root: Path, fake_server: Callable[..., FakeServer]) -> tuple[Path, FakeServer, Path]:
    cards = tmp_path / "cards"
    write_generation_card(cards, 6)
    return cards, fake_server(), data_root


def _refused(config: Path, kek_file: Path, *args: str, entry: str = ENTRY, suite: str = "ward") -> str:
    done = run_cli("-c", str(config), "run", entry, "--suite", suite, *args, env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert not (config.parent / "results" / f"{suite}.duckdb").exists(), "nothing may be written"
    return " ".join(done.stderr.split())


def test_a_jury_naming_an_unknown_deployment_is_refused_before_anything_is_written(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path]) -> None:
    cards, server, data_root = setup
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": server.base_url}, cards)
    config.write_text(config.read_text().replace('judges = ["judge-a"]', 'judges = ["judge-a", "judge-z"]'))

    message = _refused(config, kek_file)

    assert "judge deployment 'judge-z', which is not configured" in message and "use one of: gen, judge-a" in message
    assert server.stats()["requests"] == 0


def test_a_judge_not_listed_for_judging_on_the_egress_allowlist_is_refused(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path], fake_server: Callable[..., FakeServer]
) -> None:
    cards, server, data_root = setup
    judge = fake_server()
    deployments = {"gen": {"base_url": server.base_url}, "judge-a": {"base_url": judge.base_url, "model": "j"}}
    # Listed, but with purpose inference: it may be evaluated, not judge.
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", deployments,
                          extra=jury_toml(["judge-a"], cards=cards))

    message = _refused(config, kek_file)

    assert "judge deployment 'judge-a'" in message and "purpose inference, not judge" in message
    assert "egress.yaml" in message
    assert judge.stats()["requests"] == 0


def test_an_unknown_jury_name_is_refused(tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path]) -> None:
    cards, server, data_root = setup
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": server.base_url}, cards)

    message = _refused(config, kek_file, "--jury", "clinical")

    assert "no jury called 'clinical'" in message and "use one of: local" in message


def test_a_bad_rubric_file_stops_the_run_before_anything_is_written(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path]) -> None:
    cards, server, data_root = setup
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "mine.yaml").write_text(
        "rubric: 1\nname: mine\ndescription: mine\nprompt: 'Answer: {response} for {ward}'\n"
        "criteria: [{name: accuracy, asks: right?, low: poor, high: good}]\n")
    card = cards / "ward_notes.yaml"
    card.write_text(card.read_text().replace("rubric: clinical_text", "rubric: ../rubrics/mine.yaml"))
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": server.base_url}, cards)

    message = _refused(config, kek_file)

    assert "{ward}" in message and "mine.yaml, line 4" in message and "{input}, {response} and {reference}" in message


def test_medhelms_jury_config_path_maps_its_judges_to_local_deployments(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path], fake_server: Callable[..., FakeServer]
) -> None:
    cards, server, data_root = setup
    judges = {"judge-a": fake_server(), "judge-b": fake_server()}
    medhelm = tmp_path / "jury.yaml"
    medhelm.write_text("judges:\n"
                       "  - {name: gpt, model_name: openai/gpt-4o, model_deployment: stanfordhealthcare/gpt-4o}\n"
                       "  - {name: llama, model_name: meta/llama-3.3-70b-instruct}\n")
    config = jury_config(tmp_path, data_root, server.base_url, {k: s.base_url for k, s in judges.items()}, cards,
                         jury=False, extra='\n[judge_map]\ngpt = "judge-a"\n"meta/llama-3.3-70b-instruct" = "judge-b"')
    env = {"MEDHELM_KEK_FILE": str(kek_file)}

    done = run_cli("-c", str(config), "run", f"{ENTRY},jury_config_path={medhelm}", "--suite", "ward", "--json",
                   env=env)

    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    assert run["judging"] == {"judge-a": {"rated": 6, "failed": 0}, "judge-b": {"rated": 6, "failed": 0}}
    jury = next(a for a in run["aggregates"] if a["metric"] == "jury_score")
    assert jury["detail"]["jury"] == "medhelm:jury" and jury["n_scored"] == 6

    medhelm.write_text(medhelm.read_text() + "  - {name: claude, model_name: anthropic/claude-3-7-sonnet}\n")
    message = _refused(config, kek_file, entry=f"{ENTRY},jury_config_path={medhelm}", suite="other")
    assert "judge 'claude' of the MedHELM jury file has no local deployment" in message
    assert f"{medhelm}, line 4" in message and '[judge_map] "claude" = ' in message


def test_a_judge_that_is_the_evaluated_model_is_warned_about(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path]) -> None:
    cards, server, data_root = setup
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": server.base_url}, cards)
    config.write_text(config.read_text().replace('model = "judge-a"', 'model = "local/m"'))

    done = run_cli("-c", str(config), "run", ENTRY, "--suite", "ward", env={"MEDHELM_KEK_FILE": str(kek_file)})

    assert done.returncode == 0, done.stderr
    assert "judge 'judge-a' of jury 'local' is the model being evaluated (local/m)" in " ".join(done.stderr.split())


def _configurable(tmp_path: Path) -> str:
    """HELM's documented jury example, copied; the run entry that names it."""
    import shutil

    from conftest import REPO

    shutil.copytree(REPO / "tests" / "data" / "medhelm_configurable", tmp_path / "examples")
    config = tmp_path / "examples" / "llm_jury_score_demo.yaml"
    return f"medhelm_configurable_benchmark:config_path={config},model=local/m,model_deployment=gen"


def test_a_configurable_benchmarks_judge_with_no_local_deployment_is_refused(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path]) -> None:
    cards, server, data_root = setup
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": server.base_url}, cards, jury=False)

    message = _refused(config, kek_file, entry=_configurable(tmp_path), suite="demo")

    assert "judge 'huggingface/qwen2.5-7b-instruct' of the benchmark config's jury_score has no local deployment" \
        in message
    assert '[judge_map] "huggingface/qwen2.5-7b-instruct" = "<a judge deployment>"' in message
    assert server.stats()["requests"] == 0


def test_the_configs_judges_are_the_jury_unless_the_command_names_one(
        tmp_path: Path, kek_file: Path, setup: tuple[Path, FakeServer, Path], fake_server: Callable[..., FakeServer]
) -> None:
    cards, server, data_root = setup
    mapped, named = fake_server(), fake_server()
    config = jury_config(tmp_path, data_root, server.base_url, {"judge-a": mapped.base_url, "judge-b": named.base_url},
                         cards, jury=False, extra='[judge_map]\n"qwen/qwen2.5-7b-instruct" = "judge-a"\n'
                                                  '[juries.other]\njudges = ["judge-b"]\n')
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    entry = _configurable(tmp_path)

    done = run_cli("-c", str(config), "run", entry, "--suite", "demo", "--json", env=env)

    assert done.returncode == 0, done.stderr
    [run] = json.loads(done.stdout)["runs"]
    jury = next(a for a in run["aggregates"] if a["metric"] == "jury_score_0_5")
    assert jury["detail"]["jury"] == "medhelm:llm_jury_score_demo" and list(jury["detail"]["judges"]) == ["judge-a"]
    assert (mapped.stats()["requests"], named.stats()["requests"]) == (2, 0)
    again = run_cli("-c", str(config), "judge", "demo", "--jury", "other", "--json", env=env)
    assert again.returncode == 0, again.stderr
    assert named.stats()["requests"] == 2
