"""MedBullets: 308 five-option clinical scenarios. No fixture is committed (no licence is stated for the
data), so the loading tests need the published file and are skipped without it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATASETS

from medhelm_local.errors import DatasetMissingError
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.prompting import LETTERS

PUBLISHED = SHARED_DATASETS / "medbullets"
needs_published = pytest.mark.skipif(not PUBLISHED.is_dir(),
                                     reason=f"published MedBullets not on this machine ({PUBLISHED})")
INSTRUCTIONS = ("You are a highly knowledgeable AI assistant specializing in medicine. Your task is to answer "
                "medical questions similar to those found on the USMLE Step 2/3 exams. You will be provided with "
                "a clinical scenario followed by several multiple-choice options.\n\n"
                "Select the correct answer by outputting only the letter corresponding to your choice "
                "(A, B, C, D, or E).")


@needs_published
def test_the_published_file_gives_308_questions_with_five_options_one_correct() -> None:
    bench = create("medbullets")
    assert bench.task_type is TaskType.MULTIPLE_CHOICE

    instances = bench.load(DataRoot(SHARED_DATASETS))

    assert len(instances) == 308
    assert len({i.id for i in instances}) == 308
    for instance in instances:
        assert len(instance.references) == 5, instance.id
        assert len(instance.correct_references) == 1, instance.id
        assert all(ref.text.strip() for ref in instance.references), instance.id
    letters = Counter(LETTERS[i.references.index(i.correct_references[0])] for i in instances)
    assert letters == {"A": 61, "B": 74, "C": 53, "D": 67, "E": 53}


@needs_published
def test_the_first_question_reads_as_published() -> None:
    instance = create("medbullets").load(DataRoot(SHARED_DATASETS))[0]

    assert instance.id == "test-001"
    assert instance.input.startswith("A 64-year-old man presents to the emergency room with a headache and nausea.")
    assert [r.text for r in instance.references] == ["Acetazolamide", "Amitriptyline", "Clopidogrel", "Epinephrine",
                                                     "Verapamil"]
    assert instance.correct_references[0].text == "Acetazolamide"


@needs_published
def test_the_prompt_introduces_the_clinical_scenario_and_lists_a_to_e() -> None:
    bench = create("medbullets")
    instance = bench.load(DataRoot(SHARED_DATASETS))[0]

    prompt = bench.render(instance)

    assert prompt.text == (f"{INSTRUCTIONS}\n\nClinical Scenario: {instance.input}\nA. Acetazolamide\n"
                           "B. Amitriptyline\nC. Clopidogrel\nD. Epinephrine\nE. Verapamil\nAnswer:")
    assert prompt.max_tokens == 1


@needs_published
def test_the_correct_letter_scores_one_and_an_unreadable_answer_zero() -> None:
    bench = create("medbullets")
    instance = bench.load(DataRoot(SHARED_DATASETS))[0]

    assert {s.metric: s.value for s in bench.score(instance, "A")}[bench.main_metric] == 1.0
    assert {s.metric: s.value for s in bench.score(instance, "E")}[bench.main_metric] == 0.0
    unreadable = next(s for s in bench.score(instance, "Unsure.") if s.metric == bench.main_metric)
    assert (unreadable.value, unreadable.extracted) == (0.0, None)


def test_a_missing_file_says_where_it_is_published(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError) as caught:
        create("medbullets").load(DataRoot(tmp_path / "empty"))

    assert "medbullets/medbullets_op5.csv is missing" in str(caught.value)
    assert "ChallengeClinicalQA" in str(caught.value)
