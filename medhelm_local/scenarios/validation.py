"""Checks `benchmarks validate` adds beyond the card's own validation: things that load but would
give misleading scores."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from medhelm_local.records import Instance, TaskType
from medhelm_local.scenarios.benchmark import Benchmark

CHARS_PER_TOKEN = 4  # a rough, tokenizer-free estimate for English text (no tokenizer is downloaded)


def estimated_tokens(text: str) -> int:
    """About how many tokens a text takes."""
    return max(1, round(len(text) / CHARS_PER_TOKEN))


def length_warning(benchmark: Benchmark, instances: Sequence[Instance]) -> str | None:
    """A warning when a generation benchmark's answer length limit is below its references' lengths."""
    if benchmark.task_type is not TaskType.GENERATION or not instances:
        return None
    limit = benchmark.max_tokens or benchmark.card.prompt.max_tokens
    lengths = [estimated_tokens(r.text) for inst in instances for r in inst.correct_references]
    longer = sum(1 for n in lengths if n > limit)
    if not longer:
        return None
    return (f"{longer} of {len(lengths)} references are longer than prompt.max_tokens ({limit}): about "
            f"{round(statistics.median(lengths))} tokens at the median, {max(lengths)} the longest (estimated at "
            f"{CHARS_PER_TOKEN} characters a token). Answers are cut at max_tokens, so generation metrics would "
            "score truncated text; raise max_tokens")
