"""ROUGE-L F1 as MedHELM computes it: LCS of lowercased, stemmed words; best over correct references."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.scoring import scores_of

from medhelm_local.metrics.rouge import ROUGE_L, rouge_l
from medhelm_local.records import Instance, Reference


def test_identical_text_scores_one() -> None:
    assert rouge_l("Start metformin 500 mg twice daily.", "Start metformin 500 mg twice daily.") == 1.0


def test_text_sharing_no_word_scores_zero() -> None:
    assert rouge_l("start metformin", "refer to cardiology") == 0.0


def test_a_partial_match_has_the_hand_computed_value() -> None:
    # reference: the cat sat on the mat (6 words); prediction: the cat lay on a mat (6 words).
    # Longest common subsequence: the, cat, on, mat = 4, so precision = recall = 4/6 and F1 = 2/3.
    assert rouge_l("the cat sat on the mat", "the cat lay on a mat") == pytest.approx(2 / 3)


def test_precision_and_recall_differ_for_a_short_answer() -> None:
    # LCS 2 of 5 reference words and of 2 predicted words: P = 1, R = 2/5, F1 = 2PR/(P+R) = 4/7.
    assert rouge_l("patient should start metformin today", "start metformin") == pytest.approx(4 / 7)


def test_word_order_counts() -> None:
    # Only one of the three words can be kept in order: P = R = 1/3.
    assert rouge_l("aspirin heparin warfarin", "warfarin heparin aspirin") == pytest.approx(1 / 3)


@pytest.mark.parametrize("prediction", ["", "   ", "\n\t", "...", "{}"])
def test_an_empty_prediction_scores_zero(prediction: str) -> None:
    assert rouge_l("start metformin", prediction) == 0.0


@pytest.mark.parametrize("prediction", [
    "START METFORMIN",
    "Start metformin!",
    "  start, metformin.  \n",
    "start -- (metformin)",
    "{start metformin}",  # MedHELM strips one pair of outer braces
])
def test_case_punctuation_and_surrounding_space_are_ignored(prediction: str) -> None:
    assert rouge_l("start metformin", prediction) == 1.0


def test_words_are_porter_stemmed() -> None:
    assert rouge_l("patient was treated", "patients were treating") == pytest.approx(2 / 3)


def test_punctuation_separates_words() -> None:
    # "500mg" is one word; "500 mg" is two: LCS 0 of 1 and 2 words.
    assert rouge_l("500mg", "500 mg") == 0.0
    assert rouge_l("q.d.", "q d") == 1.0


def test_the_score_is_the_best_over_correct_references_only() -> None:
    instance = Instance("q1", "question", (Reference("refer to cardiology"),
                                           Reference("start metformin"),
                                           Reference("start metformin today", correct=False)))

    scores = scores_of([ROUGE_L], instance, "start metformin today")

    assert len(scores) == 1
    assert scores[0].metric == ROUGE_L == "rouge_l"
    assert scores[0].instance_id == "q1"
    assert scores[0].value == pytest.approx(0.8)  # against "start metformin": P = 2/3, R = 1
    assert scores[0].extracted is None


def test_an_instance_without_a_correct_reference_is_a_recorded_failure_not_a_score() -> None:
    [score] = scores_of([ROUGE_L], Instance("q1", "question", (Reference("x", correct=False),)), "x")

    assert score.value is None
    assert score.error == "scoring_error: ValueError"


def test_scoring_needs_no_network_and_no_nltk_data(tmp_path: Path) -> None:
    # A fresh interpreter whose audit hook refuses any socket or URL, with no NLTK data anywhere.
    code = (
        "import sys\n"
        "def refuse(event, args):\n"
        "    if event.startswith(('socket.', 'urllib.')):\n"
        "        raise RuntimeError('network used: ' + event)\n"
        "sys.addaudithook(refuse)\n"
        "from medhelm_local.metrics.rouge import rouge_l\n"
        "print(rouge_l('the patients were treated', 'patient treated'))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "NLTK_DATA": str(tmp_path / "none")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)

    assert done.returncode == 0, done.stderr
    assert float(done.stdout) == pytest.approx(2 * (2 / 2) * (2 / 4) / (2 / 2 + 2 / 4))
