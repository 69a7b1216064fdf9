"""MEDIQA 2019 QA: 150 test questions, the ReferenceRank-1 answer as reference, MedHELM's prompt."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SHARED_DATASETS

from medhelm_local.errors import DatasetCorruptError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.records import Instance
from medhelm_local.scenarios import DataRoot, create, import_dataset

PUBLISHED = SHARED_DATASETS / "mediqa2019"
needs_published = pytest.mark.skipif(
    not PUBLISHED.is_dir(),
    reason=f"published MEDIQA 2019 not on this machine ({PUBLISHED}); no licence is stated, so no fixture ships",
)
TEST_SET = "MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TestSet-wLabels.xml"


def answer(aid: str, rank: int, text: str) -> str:
    return (f'<Answer AID="{aid}" SystemRank="1" ReferenceRank="{rank}" ReferenceScore="3">'
            f"<AnswerURL>https://example.org/{aid}</AnswerURL><AnswerText>{text}</AnswerText></Answer>")


def load_xml(tmp_path: Path, questions: str) -> list[Instance]:
    source = tmp_path / "src" / "mediqa2019"
    (source / "MEDIQA_Task3_QA").mkdir(parents=True)
    (source / TEST_SET).write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<Test>{questions}</Test>', "utf-8")
    import_dataset(source, tmp_path / "data")
    return create("medi_qa").load(DataRoot(tmp_path / "data"))


def test_the_reference_is_the_answer_ranked_first_by_the_experts_not_the_system(tmp_path: Path) -> None:
    instances = load_xml(tmp_path, (
        '<Question QID="7"><QuestionText>what is noonan syndrome?</QuestionText><AnswerList>'
        + answer("7_1", 2, "system's first") + answer("7_2", 1, "experts' first &amp; best")
        + "</AnswerList></Question>"
    ))

    assert [i.id for i in instances] == ["7"]
    assert instances[0].input == "what is noonan syndrome?"
    assert [r.text for r in instances[0].references] == ["experts' first & best"]
    assert instances[0].extra["answer_id"] == "7_2"


def test_a_question_without_a_first_ranked_answer_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetCorruptError, match="no answer with ReferenceRank 1"):
        load_xml(tmp_path, '<Question QID="3"><QuestionText>q</QuestionText><AnswerList>'
                           + answer("3_1", 2, "a") + "</AnswerList></Question>")


def test_a_broken_xml_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetCorruptError, match="not well-formed"):
        load_xml(tmp_path, "<Question QID='1'>")


def test_the_jury_is_the_main_metric_and_rouge_l_the_second() -> None:
    bench = create("medi_qa")
    assert [m.name for m in bench.metrics] == [JURY_SCORE, ROUGE_L]
    assert bench.spec.rubric is not None and bench.spec.rubric.name == "patient_answer"


@pytest.fixture(scope="module")
def published() -> list[Instance]:
    return create("medi_qa").load(DataRoot(SHARED_DATASETS))


@needs_published
def test_the_published_test_set_gives_150_questions(published: list[Instance]) -> None:
    assert len(published) == 150
    assert len({i.id for i in published}) == 150
    assert published[0].id == "1"
    assert all(i.input.strip() for i in published)
    assert all(len(i.references) == 1 and i.references[0].text.strip() for i in published)
    # Question 1's first-ranked answer is the 8th the system returned.
    assert published[0].extra["answer_id"] == "1_Answer8"
    assert published[0].references[0].text.startswith("Bassen-Kornzweig syndrome: ")


@needs_published
def test_the_published_prompt_follows_medhelms_layout(published: list[Instance]) -> None:
    bench = create("medi_qa")
    instance = published[0]

    prompt = bench.render(instance)

    assert prompt.text == f"Answer the following consumer health question.\n\nQuestion: {instance.input}\nAnswer:"
    assert prompt.text.startswith("Answer the following consumer health question.\n\nQuestion: abetalipoproteimemia")
    assert prompt.max_tokens == 1024
    assert prompt.stop == ()
    assert bench.score(instance, instance.references[0].text)[0].value == 1.0
