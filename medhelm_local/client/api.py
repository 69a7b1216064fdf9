"""API styles: how a Prompt becomes an OpenAI-compatible request body, and a reply a Completion's fields.

One small interface, two implementations: `chat` (/chat/completions, messages) and `completions`
(/completions, a prompt string). Everything else about a request (the session, retries, limits,
the egress guard) is the same for both, in `client.completions`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from medhelm_local.client.engines import response_format
from medhelm_local.client.reasoning import reasoning_field, split_reasoning
from medhelm_local.records import Prompt

TOP_LOGPROBS = 5
Engine = str  # client.engines.ENGINES (settings.Deployment.engine)


@dataclass(frozen=True)
class Reply:
    """What an API style reads from a successful reply."""

    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None  # every generated token: reasoning ones too, as servers count them
    logprobs_json: str | None
    reasoning: str | None = None  # a reasoning model's thinking, apart from its answer
    failure: str | None = None  # why the reply holds no answer (cut off inside its reasoning)
    helm_text: str | None = None  # the reply as HELM's output processors leave it, where that differs


class ApiStyle(Protocol):
    """Builds request bodies and reads replies for one OpenAI-compatible endpoint."""

    path: str

    def payload(self, prompt: Prompt, model: str, engine: Engine = "vllm", extra_tokens: int = 0) -> dict[str, Any]:
        """The JSON body for one prompt (`extra_tokens`: a reasoning model's budget on top of max_tokens)."""
        ...

    def reply(self, body: Mapping[str, Any]) -> Reply:
        """The answer in a reply body; raises KeyError/IndexError/TypeError when it has none."""
        ...


def _common(prompt: Prompt, model: str, engine: Engine, extra_tokens: int) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "max_tokens": prompt.max_tokens + extra_tokens,
                            "temperature": prompt.temperature}
    if prompt.stop:
        body["stop"] = list(prompt.stop)
    if prompt.json_schema is not None:
        # Structured output: the server constrains decoding to the schema.
        body["response_format"] = response_format(prompt.json_schema, engine)
    return body


def _usage(body: Mapping[str, Any]) -> tuple[int | None, int | None]:
    usage = body.get("usage") or {}
    return usage.get("prompt_tokens"), usage.get("completion_tokens")


def _logprobs(value: Any) -> str | None:
    return json.dumps(value, separators=(",", ":")) if value else None


class ChatApi:
    """`/chat/completions`: the prompt as a user message, after the system prompt and a conversation's earlier
    turns if any."""

    path = "/chat/completions"

    def payload(self, prompt: Prompt, model: str, engine: Engine = "vllm", extra_tokens: int = 0) -> dict[str, Any]:
        """Messages, decoding settings, and top-5 logprobs when the prompt asks for them."""
        body = _common(prompt, model, engine, extra_tokens)
        messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
        messages += [{"role": role, "content": content} for role, content in prompt.history]
        body["messages"] = [*messages, {"role": "user", "content": prompt.text}]
        if prompt.logprobs:
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        return body

    def reply(self, body: Mapping[str, Any]) -> Reply:
        """The first choice's message content, split from its reasoning (a field beside it, or a <think> block)."""
        choice = body["choices"][0]
        message = choice.get("message") or {}
        finish = choice.get("finish_reason")
        split = split_reasoning(message.get("content") or "", reasoning_field(message), finish)
        return Reply(split.answer, finish, *_usage(body), _logprobs((choice.get("logprobs") or {}).get("content")),
                     split.reasoning, split.failure, split.helm_text)


class CompletionsApi:
    """`/completions`: the prompt as one string (the system prompt, if any, before it; a conversation's earlier
    turns as `role: content` lines, then `user: ` before the last turn)."""

    path = "/completions"

    def payload(self, prompt: Prompt, model: str, engine: Engine = "vllm", extra_tokens: int = 0) -> dict[str, Any]:
        """The prompt string, decoding settings, and top-5 logprobs when the prompt asks for them."""
        body = _common(prompt, model, engine, extra_tokens)
        text = prompt.text
        if prompt.history:
            turns = [f"{role}: {content}" for role, content in prompt.history]
            text = "\n\n".join([*turns, f"user: {prompt.text}", "assistant:"])
        body["prompt"] = f"{prompt.system}\n\n{text}" if prompt.system else text
        if prompt.logprobs:
            body["logprobs"] = TOP_LOGPROBS
        return body

    def reply(self, body: Mapping[str, Any]) -> Reply:
        """The first choice's text, split from any <think> block."""
        choice = body["choices"][0]
        finish = choice.get("finish_reason")
        split = split_reasoning(choice.get("text") or "", reasoning_field(choice), finish)
        return Reply(split.answer, finish, *_usage(body), _logprobs(choice.get("logprobs")), split.reasoning,
                     split.failure, split.helm_text)


API_STYLES: dict[str, ApiStyle] = {"chat": ChatApi(), "completions": CompletionsApi()}
