"""MedXpertQA Text from either published layout (Hugging Face's, which MedHELM reads; the authors' GitHub evaluation
format), laid out as MedHELM's multiple-choice prompt."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATASETS

from medhelm_local.errors import DatasetCorruptError
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset

FIXTURE = REPO / "tests" / "data" / "datasets" / "medxpert_qa_text"
SAMPLE = "medxpertqa_sampled_text_input.jsonl"
PUBLISHED = SHARED_DATASETS / "medxpert_qa_text" / SAMPLE
INSTRUCTIONS = "You are a medical expert assistant. Answer the following medical question with single letter from " \
               "options."


def test_the_hugging_face_layout_gives_ten_lettered_options(tmp_path: Path) -> None:
    import_dataset(FIXTURE, tmp_path / "data")
    bench = create("medxpert_qa_text")

    instances = bench.load(DataRoot(tmp_path / "data"))

    assert (bench.task_type, bench.main_metric) == (TaskType.MULTIPLE_CHOICE, "exact_match")
    assert [i.id for i in instances] == ["Text-2352", "Text-304", "Text-1108"]
    first = json.loads((FIXTURE / "Text" / "test.jsonl").read_text().splitlines()[0])
    assert [r.text for r in instances[0].references] == list(first["options"].values())
    assert [r.correct for r in instances[0].references].index(True) == "ABCDEFGHIJ".index(first["label"])
    assert instances[0].extra["body_system"] == first["body_system"]
    prompt = bench.prompt(instances[0])
    options = "".join(f"{letter}. {text}\n" for letter, text in first["options"].items())
    assert prompt.text == f"{INSTRUCTIONS}\n\nQuestion: {first['question']}\n{options}Answer:"
    assert prompt.max_tokens == 1
    letter = first["label"]
    assert bench.score(instances[0], letter)[0].value == 1.0


def test_the_authors_github_layout_reads_the_same_way() -> None:
    bench = create("medxpert_qa_text", {"data_path": str(FIXTURE / SAMPLE)})

    instances = bench.load(DataRoot(FIXTURE))

    assert [i.id for i in instances] == ["Text-20", "Text-1402", "Text-2158"]
    first = json.loads((FIXTURE / SAMPLE).read_text().splitlines()[0])
    assert [r.text for r in instances[0].references] == [o["content"] for o in first["options"]]
    assert [r.correct for r in instances[0].references].index(True) == "ABCDEFGHIJ".index(first["label"][0])


def test_a_label_that_is_no_option_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    item = json.loads((FIXTURE / "Text" / "test.jsonl").read_text().splitlines()[0])
    item["label"] = "K"
    broken.write_text(json.dumps(item) + "\n")

    with pytest.raises(DatasetCorruptError, match="line 1: the label 'K' is not one of the options"):
        create("medxpert_qa_text", {"data_path": str(broken)}).load(DataRoot(tmp_path))


@pytest.mark.skipif(not PUBLISHED.is_file(), reason=f"the authors' sample is not on this machine ({PUBLISHED})")
def test_the_authors_244_question_sample_reads() -> None:
    instances = create("medxpert_qa_text", {"data_path": str(PUBLISHED)}).load(DataRoot(PUBLISHED.parent))

    assert len(instances) == 244 and all(len(i.references) == 10 for i in instances)
