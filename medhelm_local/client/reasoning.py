"""A reasoning model's reply split into its reasoning and its answer.

Reasoning models (DeepSeek R1, Qwen3, gpt-oss) think before they answer. Servers return the thinking
either in a field of its own (`reasoning_content`: vLLM's reasoning parsers, DeepSeek's API;
`reasoning`: Ollama, newer vLLM) or inline in the content, as `<think>...</think>` before the answer.
When the chat template opens the block itself, the content holds only the closing `</think>`.

The answer is what follows the block; the reasoning is kept apart (stored in its own column, never
scored, never shown as the answer). A reply cut off by `max_tokens` inside the block has no answer:
that is the request's failure (`truncated_in_reasoning`: raise the deployment's `reasoning_budget`),
not an empty answer scored wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

OPEN, CLOSE = "<think>", "</think>"
TRUNCATED_IN_REASONING = "truncated_in_reasoning"
# The fields servers put reasoning in, in the order they are read.
REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclass(frozen=True)
class Split:
    """A reply's answer and reasoning; `failure` says why there is no answer when the reply was cut inside
    its reasoning."""

    answer: str
    reasoning: str | None = None
    failure: str | None = None
    # The reply as HELM's remove_thinking leaves it, where that differs from the answer: a block whose opening
    # tag came from the chat template is not removed there.
    helm_text: str | None = None


def reasoning_field(message: Mapping[str, Any]) -> str | None:
    """The reasoning a server returned beside the content, if any."""
    for name in REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def split_reasoning(content: str, field: str | None = None, finish_reason: str | None = None) -> Split:
    """The answer after any reasoning block, the reasoning (the field's, then the block's), and whether the reply
    was cut inside the reasoning."""
    if "think>" not in content:  # nearly every reply: one substring test
        return _checked(content, field, field is not None and finish_reason == "length")
    parts = [field] if field else []
    lead = content.lstrip()
    if lead.startswith(OPEN):
        inside, closed, after = lead[len(OPEN):].partition(CLOSE)
        parts.append(inside.strip())
        reasoning = "\n\n".join(p for p in parts if p) or None
        if not closed:  # the block never closed: everything was reasoning
            failure = TRUNCATED_IN_REASONING if finish_reason == "length" else None
            return Split("", reasoning, failure)
        return Split(after.lstrip(), reasoning)  # the blank lines after the block only separate it
    before, closed, after = content.partition(CLOSE)
    if closed:  # the chat template opened the block: only its end is in the reply
        parts.append(before.strip())
        return Split(after.lstrip(), "\n\n".join(p for p in parts if p) or None, helm_text=content)
    return _checked(content, field, False)


def _checked(answer: str, field: str | None, cut_in_field: bool) -> Split:
    """A reply whose reasoning (if any) came in its own field: cut off before any answer began, it is a failure."""
    if cut_in_field and not answer.strip():
        return Split("", field, TRUNCATED_IN_REASONING)
    return Split(answer, field)
