"""Calibration: ECE and Brier on a hand-computed case; "not available" (no figure) without logprobs."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.metrics.calibration import brier_score, chosen_probability, ece_bootstrap, expected_calibration_error
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

CONFIDENCE = [0.95, 0.85, 0.65, 0.62, 0.15]
CORRECT = [1.0, 0.0, 1.0, 1.0, 0.0]


def test_ece_on_a_hand_computed_case() -> None:
    # Bins (10, equal width): 0.95 -> [0.9, 1.0) right: gap 0.05; 0.85 -> [0.8, 0.9) wrong: gap 0.85;
    # 0.65 and 0.62 -> [0.6, 0.7) both right: accuracy 1, confidence 0.635, gap 0.365 (2 instances);
    # 0.15 -> [0.1, 0.2) wrong: gap 0.15. ECE = (0.05 + 0.85 + 2 x 0.365 + 0.15) / 5 = 0.356.
    assert expected_calibration_error(CONFIDENCE, CORRECT) == pytest.approx(0.356)
    # Brier: (0.05^2 + 0.85^2 + 0.35^2 + 0.38^2 + 0.15^2) / 5 = 0.20288
    assert sum(brier_score(CONFIDENCE, CORRECT)) / 5 == pytest.approx(0.20288)


def test_a_confidence_of_one_falls_in_the_last_bin_and_perfect_calibration_is_zero() -> None:
    assert expected_calibration_error([1.0, 1.0], [1.0, 1.0]) == 0.0
    assert expected_calibration_error([0.5, 0.5], [1.0, 0.0]) == 0.0


def test_the_ece_interval_is_seeded_and_holds_the_value() -> None:
    confidence = [0.1 * (i % 10) + 0.05 for i in range(200)]
    correct = [float(i % 3 == 0) for i in range(200)]
    low, high = ece_bootstrap(confidence, correct)
    assert (low, high) == ece_bootstrap(confidence, correct)
    assert low <= expected_calibration_error(confidence, correct) <= high


def test_the_chosen_options_probability_is_renormalised_over_the_option_letters() -> None:
    chat = [{"token": " (", "logprob": -0.01, "top_logprobs": []},
            {"token": "B", "logprob": math.log(0.6), "top_logprobs": [
                {"token": "B", "logprob": math.log(0.6)}, {"token": "A", "logprob": math.log(0.2)},
                {"token": "the", "logprob": math.log(0.1)}, {"token": "E", "logprob": math.log(0.05)}]}]
    # E is not an option of a four-option question; "the" is not a letter: B / (B + A) = 0.75.
    assert chosen_probability(json.dumps(chat), 4) == pytest.approx(0.75)
    completions = {"tokens": ["C"], "token_logprobs": [math.log(0.5)],
                   "top_logprobs": [{"C": math.log(0.5), "D": math.log(0.5)}]}
    assert chosen_probability(json.dumps(completions), 4) == pytest.approx(0.5)


def test_no_logprobs_or_no_letter_gives_no_probability() -> None:
    assert chosen_probability(None, 4) is None
    assert chosen_probability(json.dumps([{"token": "Maybe", "logprob": -0.1, "top_logprobs": []}]), 4) is None


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_a_multiple_choice_run_has_calibration_only_when_the_endpoint_gave_logprobs(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer], api: str) -> None:
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "api": api}})
    done = run_cli("-c", str(config), "run", "med_qa:model=local/m,model_deployment=fake", "--json",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    aggregates = {a["metric"]: a for a in json.loads(done.stdout)["runs"][0]["aggregates"]}

    if api == "completions":  # the fake server's /completions gives no logprobs: not available, never 0
        assert "ece" not in aggregates and "brier" not in aggregates
        return
    # The fake server is sure of every answer (only its own letter in the top logprobs): confidence 1,
    # so ECE is 1 - accuracy and Brier the share of wrong answers.
    accuracy = aggregates["exact_match"]["mean"]
    assert aggregates["ece"]["mean"] == pytest.approx(1 - accuracy)
    assert aggregates["brier"]["mean"] == pytest.approx(1 - accuracy)
    assert aggregates["ece"]["n_scored"] == 50


def test_each_answers_confidence_is_stored_as_it_arrives_and_is_what_the_run_is_calibrated_on(
        tmp_path: Path, data_root: Path, kek_file: Path, kek: Kek, fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(unsure=True)  # every letter among the top logprobs: confidence varies by answer
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url}})
    done = run_cli("-c", str(config), "run", "med_qa:model=local/m,model_deployment=fake", "--suite", "cal", "--json",
                   env={"MEDHELM_KEK_FILE": str(kek_file)})
    assert done.returncode == 0, done.stderr
    aggregates = {a["metric"]: a for a in json.loads(done.stdout)["runs"][0]["aggregates"]}

    handle = open_store(tmp_path / "results" / "cal.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute(
            "SELECT c.confidence, c.logprobs_json, json_array_length(i.references_json), s.value FROM completions c "
            "JOIN instances i USING (run_id, instance_id) JOIN scores s USING (run_id, instance_id) "
            "WHERE s.metric = 'exact_match' ORDER BY c.instance_id").fetchall()
    finally:
        handle.close()
    assert len(rows) == 50
    from_logprobs = [chosen_probability(logprobs, options) for _, logprobs, options, _ in rows]
    assert [stored for stored, *_ in rows] == pytest.approx(from_logprobs)
    assert len({round(p, 3) for p in from_logprobs if p is not None}) > 10  # not one confidence for all
    assert all(0.25 < p < 1 for p in from_logprobs if p is not None)
    correct = [value for *_, value in rows]
    assert aggregates["ece"]["mean"] == pytest.approx(expected_calibration_error(from_logprobs, correct))
    assert aggregates["brier"]["mean"] == pytest.approx(sum(brier_score(from_logprobs, correct)) / 50)
