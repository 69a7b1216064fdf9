"""HEAD-QA (English): the 2016-2017 test exams without image questions, MedHELM's multiple-choice prompt."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATASETS

from medhelm_local.errors import DatasetMissingError, RunEntryError
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset
from medhelm_local.scenarios.prompting import LETTERS

FIXTURE = REPO / "tests" / "data" / "datasets" / "head_qa"
PUBLISHED = SHARED_DATASETS / "head_qa"
needs_published = pytest.mark.skipif(not PUBLISHED.is_dir(),
                                     reason=f"published HEAD-QA not on this machine ({PUBLISHED})")
INSTRUCTIONS = ("You are a highly knowledgeable AI assistant specializing in biomedical sciences. Your task is to "
                "answer multiple-choice questions accurately based on the options provided. Each question will "
                "relate to biomedical concepts, and you will be asked to choose the most appropriate answer.\n\n"
                "Select the correct answer by outputting only the letter corresponding to your choice "
                "(A, B, C, or D).")


@pytest.fixture
def fixture_root(tmp_path: Path) -> Path:
    """A data root holding the committed six-question cut, imported as a user would."""
    import_dataset(FIXTURE, tmp_path / "data")
    return tmp_path / "data"


@needs_published
def test_the_published_test_exams_give_2675_text_only_questions() -> None:
    instances = create("head_qa").load(DataRoot(SHARED_DATASETS))

    assert len(instances) == 2675  # 2742 test questions (2016, 2017) less the 67 that refer to an image
    assert len({i.id for i in instances}) == 2675
    assert {i.extra["year"] for i in instances} == {"2016", "2017"}
    assert not any(i.input.lower().startswith("question linked to image") for i in instances)
    for instance in instances:
        assert len(instance.correct_references) == 1, instance.id
        assert len(instance.references) == 4, instance.id
        assert all(ref.text.strip() == ref.text and ref.text for ref in instance.references), instance.id


@needs_published
def test_each_category_can_be_run_alone_and_together_they_are_the_whole() -> None:
    data = DataRoot(SHARED_DATASETS)
    everything = Counter(i.extra["category"] for i in create("head_qa").load(data))

    per_category = {c: len(create("head_qa", {"category": c}).load(data)) for c in everything}

    assert per_category == dict(everything)
    assert len(per_category) == 6
    assert per_category["medicine"] == 396  # 463 medicine questions, 67 with an image


@needs_published
def test_the_published_prompt_follows_medhelms_layout() -> None:
    bench = create("head_qa")
    instance = bench.load(DataRoot(SHARED_DATASETS))[0]

    prompt = bench.render(instance)

    options = "".join(f"{LETTERS[i]}. {ref.text}\n" for i, ref in enumerate(instance.references))
    assert prompt.text == f"{INSTRUCTIONS}\n\nQuestion: {instance.input}\n{options}Answer:"
    assert prompt.max_tokens == 1
    assert prompt.logprobs is True


def test_the_fixture_keeps_test_year_text_questions_only(fixture_root: Path) -> None:
    bench = create("head_qa")
    assert bench.task_type is TaskType.MULTIPLE_CHOICE

    instances = bench.load(DataRoot(fixture_root))

    # 2013 is a training year and Cuaderno_2016_1_M question 1 refers to an image: both left out.
    assert [i.id for i in instances] == ["Cuaderno_2016_1_M-033", "Cuaderno_2016_1_M-034",
                                         "Cuaderno_2017_1_B-001", "Cuaderno_2017_1_B-002"]
    first = instances[2]
    assert first.input == "The absolute refractory period of a nerve fiber is due to:"
    assert [r.text for r in first.references] == [
        "Inactivation of Ca2 + channels.", "Inactivation of K + channels.", "Inactivation of Na + channels.",
        "The posthiperpolarization that follows the action potential."]
    assert [r.correct for r in first.references] == [False, False, True, False]
    assert all(len(i.correct_references) == 1 for i in instances)


def test_the_fixture_prompt_lists_the_options_in_file_order(fixture_root: Path) -> None:
    bench = create("head_qa")
    instance = bench.load(DataRoot(fixture_root))[2]

    text = bench.render(instance).text

    assert text == (f"{INSTRUCTIONS}\n\nQuestion: The absolute refractory period of a nerve fiber is due to:\n"
                    "A. Inactivation of Ca2 + channels.\nB. Inactivation of K + channels.\n"
                    "C. Inactivation of Na + channels.\n"
                    "D. The posthiperpolarization that follows the action potential.\nAnswer:")


def test_the_correct_letter_scores_one_and_another_zero(fixture_root: Path) -> None:
    bench = create("head_qa")
    instance = bench.load(DataRoot(fixture_root))[2]

    assert {s.metric: s.value for s in bench.score(instance, "C")}[bench.main_metric] == 1.0
    assert {s.metric: s.value for s in bench.score(instance, "B")}[bench.main_metric] == 0.0
    unreadable = next(s for s in bench.score(instance, "I am not sure.") if s.metric == bench.main_metric)
    assert (unreadable.value, unreadable.extracted) == (0.0, None)


def test_a_category_filter_keeps_only_that_category(fixture_root: Path) -> None:
    instances = create("head_qa", {"category": "biology", "language": "en"}).load(DataRoot(fixture_root))

    assert [i.id for i in instances] == ["Cuaderno_2017_1_B-001", "Cuaderno_2017_1_B-002"]


@pytest.mark.parametrize("args", [{"language": "es"}, {"category": "surgery"}, {"split": "train"}])
def test_arguments_it_cannot_honour_are_refused(args: dict[str, str]) -> None:
    with pytest.raises(RunEntryError) as caught:
        create("head_qa", args)

    assert "What to do:" in str(caught.value)


def test_a_missing_file_says_where_it_is_published(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError) as caught:
        create("head_qa").load(DataRoot(tmp_path / "empty"))

    assert "head_qa/HEAD_EN.json is missing" in str(caught.value)
    assert "benchmarkdata" in str(caught.value)
