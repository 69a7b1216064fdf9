"""SCT-Bench read as MedHELM reads it: SCT-Bench's prompt per complete test case, the panel's favourite rating as
the reference, scored by the panel's weights."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATASETS

from medhelm_local.errors import RunEntryError
from medhelm_local.metrics.sct_bench import read_rating
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset

FIXTURE = REPO / "tests" / "data" / "datasets" / "sct_bench"
PUBLISHED = SHARED_DATASETS / "sct_bench"
STEM = ("A 66-year-old male is in hospital for an elective total hip replacement. He is 1 day post-op. During the "
        "night the patient complains of shortness of breath of 1 hour in duration. He has a past medical history of "
        "COPD and heart failure. His respiratory rate is 24 and O2 saturation is 93% on 10L of O2 via a "
        "non-rebreather mask. He has a temperature of 37.5\u00cb\u009aC.")


@pytest.fixture
def bench_root(tmp_path: Path) -> DataRoot:
    import_dataset(FIXTURE, tmp_path / "data")
    return DataRoot(tmp_path / "data")


def test_each_complete_case_is_sct_benchs_prompt_with_the_panels_favourite_rating(bench_root: DataRoot) -> None:
    bench = create("sct_bench")
    instances = bench.load(bench_root)

    assert (bench.task_type, bench.main_metric) == (TaskType.GENERATION, "sct_score")
    assert [i.id for i in instances] == ["1", "2", "10", "287"]  # question 3 has no new information: skipped
    # Question 10's panel weights +1 and +2 alike (1.0 each): the first is the reference, as in MedHELM.
    assert [i.references[0].text for i in instances] == ["+1", "+2", "+1", "+2"]
    prompt = bench.prompt(instances[0])
    assert prompt.text.startswith("# Script Concordance Testing\n\nYou are taking a Script Concordance Test")
    assert 'Respond with "Rating: " followed by a rating (-2, -1, 0, +1, +2).\n\nThis is an exam' in prompt.text
    assert prompt.text.endswith(f"valid answer.\n## Scenario\n\n{STEM}\n\n## Hypothesis\n\nIf you were thinking of: "
                                "Ordering a blood culture\n\n## Additional Information\n\nAnd then you find: He has "
                                "diffuse coarse crackles in both lungs\n\n## Response\n")
    assert (prompt.max_tokens, prompt.stop, prompt.system) == (200, (), None)


def test_reason_true_asks_for_an_explanation(bench_root: DataRoot) -> None:
    bench = create("sct_bench", {"reason": "True"})

    text = bench.prompt(bench.load(bench_root)[0]).text

    assert "a rating (-2, -1, 0, +1, +2) and a brief explanation for your choice." in text
    with pytest.raises(RunEntryError, match="reason"):
        create("sct_bench", {"reason": "maybe"})


@pytest.mark.parametrize("answer, rating", [
    ("Rating: +1", 1), ("Rating: -2 because the finding argues against it", -2), ("Rating: 0", 0),
    ("I think Rating: +2.", 2), ("Rating: 1", None), ("Rating: -1 or 0", -1), ("Rating: -10", None), ("+1", None),
    ("rating: +1", None),
])
def test_the_rating_is_read_as_sct_bench_reads_it(answer: str, rating: int | None) -> None:
    # Five characters after "Rating: ": "1" alone is no rating ("+1" is), "-10" joins -1 and 0 into -10: SCT-Bench's
    # reading, kept.
    assert read_rating(answer) == rating


def test_scores_are_the_panels_weights(bench_root: DataRoot) -> None:
    bench = create("sct_bench")
    first = bench.load(bench_root)[0]  # panel weights for -2..+2: 0.0, 0.4, 0.8, 1.0, 0.2

    def scores(answer: str) -> dict[str, float | None]:
        return {s.metric: s.value for s in bench.score(first, answer)}

    assert scores("Rating: +1") == {"sct_score": 1.0, "sct_expert_set_membership": 1.0}
    assert scores("Rating: 0") == {"sct_score": 0.8, "sct_expert_set_membership": 1.0}
    assert scores("Rating: +2") == {"sct_score": pytest.approx(0.2), "sct_expert_set_membership": 1.0}
    assert scores("Rating: -2") == {"sct_score": 0.0, "sct_expert_set_membership": 0.0}
    assert scores("I cannot say.") == {"sct_score": 0.0, "sct_expert_set_membership": 0.0}


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason=f"published SCT-Bench not on this machine ({PUBLISHED})")
def test_the_published_file_gives_174_cases() -> None:
    instances = create("sct_bench").load(DataRoot(SHARED_DATASETS))

    assert len(instances) == 174 and len({i.id for i in instances}) == 174
