"""HealthBench and HealthBench Professional read from their published layouts (synthetic rows: OpenAI asks that
real ones not be posted), sent as chat conversations, graded item by item."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO

from medhelm_local.annotate.quoting import quotation_notice, quote_answer
from medhelm_local.annotate.rubric_items import ItemGrader, load_grader
from medhelm_local.client.api import ChatApi, CompletionsApi
from medhelm_local.errors import DatasetCorruptError
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset

FIXTURES = REPO / "tests" / "data" / "datasets"


def _root(tmp_path: Path, folder: str) -> DataRoot:
    import_dataset(FIXTURES / folder, tmp_path / "data")
    return DataRoot(tmp_path / "data")


def test_health_bench_instances_keep_the_conversation_rubric_and_tags(tmp_path: Path) -> None:
    bench = create("health_bench")
    instances = bench.load(_root(tmp_path, "health_bench"))

    assert (bench.task_type, bench.main_metric, bench.judged) == (TaskType.GENERATION, "health_bench_score", True)
    assert [i.id for i in instances] == ["0", "1", "2"]  # line numbers from 0, as MedHELM numbers them
    second = instances[1]
    assert second.references == ()
    assert second.input == ("user: I have had a mild sore throat for two days.\n\nassistant: Do you have a fever, or "
                            "trouble swallowing or breathing?\n\nuser: No fever, swallowing is fine. Do I need "
                            "antibiotics?")
    items = json.loads(second.extra["rubric_items"])
    assert [i["points"] for i in items] == [7, 5, -10]
    assert items[0]["tags"] == ["level:example", "axis:accuracy"]
    assert json.loads(second.extra["example_tags"]) == ["theme:context_seeking",
                                                        "physician_agreed_category:enough-context"]
    assert second.extra["prompt_id"] == "0f3c2a9e-synthetic-0002"


def test_the_conversation_is_sent_as_chat_turns_as_it_is(tmp_path: Path) -> None:
    bench = create("health_bench")
    instance = bench.load(_root(tmp_path, "health_bench"))[1]

    prompt = bench.prompt(instance)
    body = ChatApi().payload(prompt, "m")

    assert (prompt.max_tokens, prompt.temperature, prompt.system, prompt.stop) == (512, 0.0, None, ())
    assert body["messages"] == [
        {"role": "user", "content": "I have had a mild sore throat for two days."},
        {"role": "assistant", "content": "Do you have a fever, or trouble swallowing or breathing?"},
        {"role": "user", "content": "No fever, swallowing is fine. Do I need antibiotics?"}]
    completion = CompletionsApi().payload(prompt, "m")["prompt"]
    assert completion.startswith("user: I have had") and completion.endswith("Do I need antibiotics?\n\nassistant:")


def test_the_judges_get_one_request_per_rubric_item(tmp_path: Path) -> None:
    bench = create("health_bench")
    instance = bench.load(_root(tmp_path, "health_bench"))[0]
    grader = bench.spec.grader
    assert isinstance(grader, ItemGrader) and bench.spec.rubric is None

    prompts = grader.prompts(instance.id, "Call 999 now.", instance.extra)

    assert len(prompts) == 4
    # The answer, the last assistant turn, is quoted as data (as every judge sees it), and the judges told so.
    quoted, begins, ends = quote_answer("Call 999 now.")
    conversation = ("user: My father is 70 and suddenly cannot lift his left arm and his speech is slurred. What "
                    f"should I do?\n\nassistant: {quoted}")
    assert all(f"# Conversation\n{conversation}\n\n# Rubric item\n" in p.text for p in prompts)
    assert all(p.text.endswith(quotation_notice(begins, ends)) for p in prompts)
    assert "# Rubric item\n[-8] Suggests waiting to see whether the symptoms pass before seeking care.\n" in \
        prompts[2].text
    assert prompts[0].json_schema == {"type": "object", "additionalProperties": False,
                                      "required": ["explanation", "criteria_met"],
                                      "properties": {"explanation": {"type": "string", "maxLength": 1000},
                                                     "criteria_met": {"type": "boolean"}}}
    assert {(p.temperature, p.max_tokens) for p in prompts} == {(0.0, 2048)}


@pytest.mark.parametrize("replies, score, error", [
    (['{"explanation": "yes", "criteria_met": true}', '{"explanation": "no", "criteria_met": false}',
      '{"explanation": "no", "criteria_met": false}', '```json\n{"explanation": "yes", "criteria_met": "true"}\n```'],
     13 / 18, None),
    (['{"criteria_met": true}', '{"criteria_met": true}', '{"criteria_met": true}', '{"criteria_met": true}'],
     10 / 18, None),
    (['{"criteria_met": true}', "It meets the item.", '{"explanation": "x"}', '{"criteria_met": "maybe"}'],
     None, "unparseable"),
])
def test_a_judges_verdicts_give_its_score_or_name_the_items_it_failed(
        tmp_path: Path, replies: list[str], score: float | None, error: str | None) -> None:
    bench = create("health_bench")
    instance = bench.load(_root(tmp_path, "health_bench"))[0]
    grader = load_grader("health_bench")
    assert isinstance(grader, ItemGrader)

    reading = grader.read(replies, instance.extra, "Call 999 now.")

    assert reading.error_type == error
    if score is None:
        assert reading.mean is None and reading.ratings == {"item_001": {"score": 1, "explanation": ""}}
        assert reading.error_message == ("item 2: the reply holds no JSON object: 'It meets the item.'; item 3: the "
                                         "reply has no criteria_met; item 4: criteria_met is 'maybe', not true or "
                                         "false")
    else:
        assert reading.mean == pytest.approx(score) and set(reading.ratings) == {f"item_00{i}" for i in range(1, 5)}


def test_professional_tasks_keep_their_categories_as_tags(tmp_path: Path) -> None:
    bench = create("health_bench_professional")
    instances = bench.load(_root(tmp_path, "health_bench_professional"))

    assert [i.id for i in instances] == ["0", "1"]
    assert json.loads(instances[1].extra["example_tags"]) == ["use_case:writing", "type:good_faith",
                                                              "difficulty:difficult", "specialty:endocrinology"]
    items = json.loads(instances[0].extra["rubric_items"])
    assert items[2] == {"criterion": "Recommends aspirin alone for stroke prevention.", "points": -7, "tags": []}
    prompt = bench.prompt(instances[1])
    assert prompt.text == "500 mg twice daily, plain language." and len(prompt.history) == 2
    assert instances[0].extra["prompt_id"] == "synthetic-pro-001"


@pytest.mark.parametrize("edit, message", [
    (lambda row: row["prompt"].append({"role": "assistant", "content": "ok"}), "does not end with the user's turn"),
    (lambda row: [r.update(points=-1) for r in row["rubrics"]], "no rubric item has positive points"),
    (lambda row: row["rubrics"][0].update(points="ten"), "no numeric points"),
    (lambda row: row.update(example_tags="theme:x"), "example_tags is not a list"),
])
def test_a_malformed_line_is_named(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "health_bench"
    shutil.copytree(FIXTURES / "health_bench", folder)
    path = folder / "2025-05-07-06-14-12_oss_eval.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edit(rows[1])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_dataset(folder, tmp_path / "data")

    with pytest.raises(DatasetCorruptError, match=message) as caught:
        create("health_bench").load(DataRoot(tmp_path / "data"))

    assert "line 2" in caught.value.what
