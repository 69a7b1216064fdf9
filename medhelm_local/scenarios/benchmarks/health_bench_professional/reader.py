"""HealthBench Professional (`healthbench_professional_eval.jsonl`): a task per line, read by HealthBench's rules
(`health_bench/reader.py`, whose docstring describes both files); its categories become tags."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance
from medhelm_local.scenarios.benchmarks.health_bench.reader import (
    conversation_instance,
    conversation_messages,
    rubric_items,
)
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import json_lines

PROFESSIONAL_FILE = "healthbench_professional_eval.jsonl"
PROFESSIONAL_TAGS = ("use_case", "type", "difficulty", "specialty")


@reader("health_bench_professional")
def read_health_bench_professional(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per task of HealthBench Professional, with its rubric; its categories become tags."""
    for number, row in json_lines(next(iter(paths.values()))):
        conversation = row.get("conversation")
        messages = conversation_messages(conversation.get("messages") if isinstance(conversation, dict) else None,
                                         number)
        tags = [f"{key}:{row[key]}" for key in PROFESSIONAL_TAGS if isinstance(row.get(key), str) and row[key]]
        items = rubric_items(row.get("rubric_items"), number, "criterion_text")
        yield conversation_instance(number, messages, items, tags, str(row.get("id") or ""))
