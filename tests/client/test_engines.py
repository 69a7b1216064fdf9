"""Reasoning replies and the differences between engines, on replies shaped as each engine's documentation shows.

vLLM: `reasoning_content` beside the content (its reasoning parsers), `json_schema` structured output, /tokenize.
Ollama (OpenAI-compatible /v1): `reasoning` beside the content, `name:tag` model names, `json_schema`, no /tokenize.
llama-cpp-python's server: `json_object` with a `schema` (the real engine is tested in tests/e2e/test_llamacpp.py).
"""

from __future__ import annotations

from medhelm_local.client.api import ChatApi, CompletionsApi
from medhelm_local.client.engines import model_offered, offers_tokenize, response_format
from medhelm_local.client.reasoning import TRUNCATED_IN_REASONING, split_reasoning
from medhelm_local.records import Prompt

SCHEMA = {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}
# GET /v1/models on Ollama, as its OpenAI-compatibility page shows it: tagged names, owned by "library".
OLLAMA_MODELS = {"object": "list", "data": [
    {"id": "qwen3:latest", "object": "model", "created": 1745000000, "owned_by": "library"},
    {"id": "deepseek-r1:8b", "object": "model", "created": 1745000000, "owned_by": "library"}]}


def _chat(message: dict[str, object], finish: str = "stop") -> dict[str, object]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 412, "total_tokens": 462}}


def test_an_inline_think_block_is_reasoning_and_only_what_follows_it_is_the_answer() -> None:
    reply = ChatApi().reply(_chat({"content": "<think>\nFirst-line is metformin, C.\n</think>\n\nC"}))
    assert (reply.text.strip(), reply.reasoning, reply.failure) == ("C", "First-line is metformin, C.", None)
    assert reply.completion_tokens == 412, "reasoning tokens are counted with the answer's, as the server counts"


def test_a_block_opened_by_the_chat_template_ends_at_its_closing_tag() -> None:
    content = "Painless jaundice: Courvoisier, so D.\n</think>\n\nD"
    split = split_reasoning(content)
    assert (split.answer.strip(), split.reasoning) == ("D", "Painless jaundice: Courvoisier, so D.")
    # HELM's remove_thinking never saw the opening tag, so its strict metrics see the whole reply.
    assert split.helm_text == content and split_reasoning("<think>x</think>D").helm_text is None


def test_vllm_reasoning_content_and_ollama_reasoning_fields_are_kept_apart_from_the_answer() -> None:
    vllm = ChatApi().reply(_chat({"content": "B", "reasoning_content": "Absence seizures: ethosuximide."}))
    ollama = ChatApi().reply(_chat({"content": "B", "reasoning": "Absence seizures: ethosuximide."}))
    for reply in (vllm, ollama):
        assert (reply.text, reply.reasoning, reply.failure) == ("B", "Absence seizures: ethosuximide.", None)


def test_a_reply_cut_off_inside_its_reasoning_is_a_failure_with_its_reason_not_an_empty_answer() -> None:
    inline = ChatApi().reply(_chat({"content": "<think>\nSIRS needs two of"}, finish="length"))
    field = ChatApi().reply(_chat({"content": "", "reasoning_content": "SIRS needs two of"}, finish="length"))
    plain = CompletionsApi().reply({"choices": [{"text": "<think>\nSIRS needs", "finish_reason": "length"}]})
    for reply in (inline, field, plain):
        assert reply.failure == TRUNCATED_IN_REASONING and reply.text == "" and reply.reasoning


def test_a_reply_that_closed_its_reasoning_and_said_nothing_is_an_empty_answer_not_a_cut() -> None:
    split = split_reasoning("<think>\nMortality was not reduced. So no.\n</think>\n", None, "stop")
    assert (split.answer.strip(), split.failure) == ("", None)
    unclosed = split_reasoning("<think>\nStill thinking", None, "stop")
    assert (unclosed.answer, unclosed.failure) == ("", None)


def test_the_word_think_in_an_answer_is_not_reasoning() -> None:
    text = "I think so: ACE inhibitors such as lisinopril commonly cause a dry cough."
    assert split_reasoning(text) == split_reasoning(text, None, "stop")
    assert split_reasoning(text).answer == text and split_reasoning(text).reasoning is None


def test_structured_output_travels_in_each_engines_own_parameter() -> None:
    prompt = Prompt("i1", "Rate it.", max_tokens=64, json_schema=SCHEMA)
    vllm = ChatApi().payload(prompt, "m", "vllm")["response_format"]
    ollama = ChatApi().payload(prompt, "m", "ollama")["response_format"]
    llama = ChatApi().payload(prompt, "m", "llama.cpp")["response_format"]
    assert vllm == ollama == {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}
    assert llama == {"type": "json_object", "schema": SCHEMA} == response_format(SCHEMA, "llama.cpp")


def test_a_reasoning_deployment_adds_its_budget_to_every_benchmarks_max_tokens() -> None:
    prompt = Prompt("i1", "Answer with a letter.", max_tokens=1)
    assert ChatApi().payload(prompt, "m", "vllm", 4096)["max_tokens"] == 4097
    assert CompletionsApi().payload(prompt, "m")["max_tokens"] == 1


def test_ollama_model_names_carry_a_tag_and_an_untagged_name_means_latest() -> None:
    listed = [m["id"] for m in OLLAMA_MODELS["data"]]
    assert model_offered("qwen3", listed, "ollama") and model_offered("qwen3:latest", listed, "ollama")
    assert model_offered("deepseek-r1:8b", listed, "ollama")
    assert not model_offered("deepseek-r1", listed, "ollama"), "only :latest is implied, never another tag"
    assert not model_offered("qwen3", listed, "vllm"), "vLLM serves names exactly as given"


def test_only_vllm_is_asked_for_its_tokenizer() -> None:
    assert offers_tokenize("vllm") and not offers_tokenize("ollama") and not offers_tokenize("llama.cpp")
