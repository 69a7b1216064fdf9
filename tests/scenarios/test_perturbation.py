"""Perturbations: seeded and reproducible, meaning-preserving, and robustness measured against the clean run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Instance, Reference, TaskType
from medhelm_local.scenarios import create
from medhelm_local.scenarios.perturbation import perturb

TEXT = ("The patient does not have chest pain and it is not radiating. She cannot walk far; we are "
        "monitoring her blood pressure, which is elevated, and her medication is unchanged today.")
QUESTION = Instance("q1", TEXT, (Reference("aspirin", True), Reference("heparin", False), Reference("warfarin", False),
                                 Reference("clopidogrel", False)))


@pytest.mark.parametrize("name", ["typos", "lowercase", "whitespace", "contractions", "expansions", "option_order"])
def test_a_perturbation_is_reproducible_with_its_seed(name: str) -> None:
    first = perturb(QUESTION, name, 3, TaskType.MULTIPLE_CHOICE)
    assert perturb(QUESTION, name, 3, TaskType.MULTIPLE_CHOICE) == first
    assert first.id == QUESTION.id


def test_another_seed_gives_other_typos_and_the_clean_text_is_left_alone() -> None:
    one = perturb(QUESTION, "typos", 1, TaskType.GENERATION).input
    two = perturb(QUESTION, "typos", 2, TaskType.GENERATION).input
    assert one != TEXT and two != TEXT and one != two
    assert len(one.split()) == len(TEXT.split())  # slips inside words, never new words


def test_each_text_perturbation_changes_the_form_not_the_meaning() -> None:
    g = TaskType.GENERATION
    assert perturb(QUESTION, "lowercase", 0, g).input == TEXT.lower()
    contracted = perturb(QUESTION, "contractions", 0, g).input
    assert "doesn't have" in contracted and "it's not" in contracted and "can't walk" in contracted
    assert "we're monitoring" in contracted
    assert perturb(Instance("x", contracted, ()), "expansions", 0, g).input == TEXT
    spaced = perturb(QUESTION, "whitespace", 0, g).input
    assert spaced != TEXT and spaced.split() == TEXT.split()


def test_option_order_shuffles_the_options_and_the_answer_follows() -> None:
    shuffled = perturb(QUESTION, "option_order", 5, TaskType.MULTIPLE_CHOICE)
    assert [r.text for r in shuffled.references] != [r.text for r in QUESTION.references]
    assert sorted(shuffled.references, key=lambda r: r.text) == sorted(QUESTION.references, key=lambda r: r.text)
    assert [r.text for r in shuffled.references if r.correct] == ["aspirin"]


@pytest.mark.parametrize(("scenario", "args", "message"), [
    ("pubmed_qa", {"perturbation": "synonyms"}, "no perturbation 'synonyms'"),
    ("medi_qa", {"perturbation": "option_order"}, "medi_qa has none"),
    ("pubmed_qa", {"perturbation_seed": "3"}, "needs perturbation=NAME"),
    ("pubmed_qa", {"perturbation": "typos", "perturbation_seed": "x"}, "a whole number"),
])
def test_a_bad_perturbation_argument_is_a_clear_error(scenario: str, args: dict[str, str], message: str) -> None:
    with pytest.raises(RunEntryError, match=message):
        create(scenario, args)


def test_a_perturbed_run_pairs_with_its_clean_run_and_robustness_lands_on_the_clean_one(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    clean = "med_qa:model=local/m,model_deployment=fake"
    entries = [clean, "med_qa:perturbation=option_order,perturbation_seed=1,model=local/m,model_deployment=fake",
               "med_qa:perturbation=typos,model=local/m,model_deployment=fake"]
    log = tmp_path / "ops.log"
    done = run_cli("-c", str(config), "run", *entries, "--suite", "robust", "--json",
                   env={**env, "MEDHELM_LOG_FILE": str(log)})
    assert done.returncode == 0, done.stderr
    runs = {r["run"]["run_entry"]: r for r in json.loads(done.stdout)["runs"]}

    shown = {entry: json.loads(run_cli("-c", str(config), "show", r["run"]["run_id"], "-n", "100", "--json",
                                       env=env).stdout) for entry, r in runs.items()}
    accuracy = {entry: {row["instance_id"]: next(s["value"] for s in row["scores"] if s["metric"] == "exact_match")
                        for row in data["instances"]} for entry, data in shown.items()}
    clean_entry = next(e for e in runs if "perturbation" not in e)
    clean_aggs = {a["metric"]: a for a in shown[clean_entry]["aggregates"]}
    robustness, drop = clean_aggs["robustness"], clean_aggs["robustness_drop"]
    worst = robustness["detail"]["worst"]
    worst_entry = next(e for e in runs if f"perturbation={worst}" in e)
    perturbed_mean = sum(accuracy[worst_entry].values()) / 50
    clean_mean = sum(accuracy[clean_entry].values()) / 50
    assert robustness["mean"] == pytest.approx(perturbed_mean) and robustness["n_scored"] == 50
    assert drop["mean"] == pytest.approx(clean_mean - perturbed_mean)
    assert drop["ci_low"] <= drop["mean"] <= drop["ci_high"]
    assert set(robustness["detail"]["perturbations"]) == {"option_order", "typos"}
    # What `run` printed is what the store keeps: the clean run is summarised once its perturbed runs have ended
    # (a finished run is otherwise summarised at once, while the others go on).
    printed = {a["metric"]: a for a in runs[clean_entry]["aggregates"]}
    assert printed["robustness"] == robustness and printed["robustness_drop"] == drop
    lines = log.read_text().splitlines()
    flushed = next(n for n, line in enumerate(lines) if "store writes flushed" in line)
    clean_id = runs[clean_entry]["run"]["run_id"]
    assert next(n for n, line in enumerate(lines) if clean_id in line and "computing its aggregates" in line) > flushed
    assert all(p["perturbed"] >= robustness["mean"] for p in robustness["detail"]["perturbations"].values())
    # The perturbed runs carry no robustness figures of their own.
    assert not any(a["metric"].startswith("robustness") for e, d in shown.items() if e != clean_entry
                   for a in d["aggregates"])
    # The prompts really differ: the perturbed run's options are in another order.
    assert accuracy[clean_entry] != accuracy[worst_entry]
