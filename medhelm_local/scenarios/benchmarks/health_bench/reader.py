"""HealthBench and HealthBench Professional: conversations, each with its own rubric, as OpenAI publishes them.

The reader hook of `health_bench`, and the rules `health_bench_professional`'s reader (its own folder) uses.

HealthBench (`2025-05-07-06-14-12_oss_eval.jsonl`, the file simple-evals and MedHELM read): one JSON
line per conversation, `prompt` (chat messages ending with the user's turn), `rubrics` (criterion,
points, tags), `example_tags` and `prompt_id`. HealthBench Professional
(`healthbench_professional_eval.jsonl`, from its assets.zip): `id`, `conversation.messages`,
`rubric_items` (criterion_text, points), `use_case`, `type`, `difficulty`, `specialty` and the
physician's response.

An instance is a conversation, its id the line number from 0 as in MedHELM, with no reference. It
keeps, for the prompt and the judges (`annotate.rubric_items`, `metrics.health_bench`): `messages`,
`rubric_items` (criterion, points and tags, the same for both files), `example_tags` (Professional:
use_case:, type:, difficulty: and specialty: made into tags) and the file's id. Its input is the
conversation as simple-evals shows it to its grader (`role: content`). A conversation that does not
end with the user's turn, or a rubric without positive points (its score would be undefined), is an
error naming the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from medhelm_local.records import Instance
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import json_lines

HEALTH_BENCH_FILE = "2025-05-07-06-14-12_oss_eval.jsonl"
ROLES = frozenset({"system", "user", "assistant"})


def conversation_messages(value: Any, number: int) -> list[dict[str, str]]:
    """The chat messages of line `number`, checked: role and content each, ending with the user's turn."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"line {number}: the conversation is not a list of messages")
    messages = []
    for message in value:
        if not isinstance(message, dict) or message.get("role") not in ROLES or not isinstance(
                message.get("content"), str):
            raise ValueError(f"line {number}: a message is not {{role: user|assistant|system, content: text}}")
        messages.append({"role": message["role"], "content": message["content"]})
    if messages[-1]["role"] != "user":
        raise ValueError(f"line {number}: the conversation does not end with the user's turn")
    return messages


def rubric_items(value: Any, number: int, text_key: str) -> list[dict[str, Any]]:
    """The rubric items of line `number` as {criterion, points, tags}; the criterion's text is under `text_key`."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"line {number}: the rubric is not a list of items")
    items = []
    for item in value:
        points = item.get("points") if isinstance(item, dict) else None
        if not isinstance(points, int | float) or isinstance(points, bool) or not isinstance(item.get(text_key), str):
            raise ValueError(f"line {number}: a rubric item has no {text_key} or no numeric points")
        tags = item.get("tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"line {number}: a rubric item's tags are not a list of text")
        items.append({"criterion": item[text_key], "points": points, "tags": tags})
    if not any(i["points"] > 0 for i in items):
        raise ValueError(f"line {number}: no rubric item has positive points, so the conversation cannot be scored")
    return items


def conversation_instance(number: int, messages: list[dict[str, str]], items: list[dict[str, Any]], tags: Sequence[str],
              source_id: str) -> Instance:
    """The instance of line `number` (its id from 0, as in MedHELM): the conversation, its rubric and tags."""
    conversation = "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)
    extra = {"messages": json.dumps(messages), "rubric_items": json.dumps(items),
             "example_tags": json.dumps(list(tags)), "prompt_id": source_id}
    return Instance(str(number - 1), conversation, (), extra=MappingProxyType(extra))


@reader("health_bench")
def read_health_bench(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per conversation of HealthBench, with its rubric and tags."""
    for number, row in json_lines(next(iter(paths.values()))):
        tags = row.get("example_tags") or []
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"line {number}: example_tags is not a list of text")
        messages = conversation_messages(row.get("prompt"), number)
        items = rubric_items(row.get("rubrics"), number, "criterion")
        yield conversation_instance(number, messages, items, tags, str(row.get("prompt_id") or ""))

