"""What differs between the inference servers a deployment may name (`engine`), in one place (docs/engines.md).

vLLM and llama.cpp's server are tested for real; Ollama wraps llama.cpp and is covered by replies shaped as
its documentation shows. The differences that matter to a run:

- the structured-output parameter a judge's JSON schema travels in;
- whether the server has vLLM's `/tokenize` (only vLLM: elsewhere prompts are sent whole);
- how a configured model name matches the names the server lists (Ollama lists `name:tag`, and a name
  without a tag means `name:latest`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

ENGINES = ("vllm", "llama.cpp", "ollama", "other")


def response_format(schema: Mapping[str, object], engine: str) -> dict[str, Any]:
    """The structured-output parameter asking `engine` for JSON matching `schema`.

    vLLM and Ollama take OpenAI's `json_schema` form; llama-cpp-python's server accepts only `json_object`
    with the schema beside it (it answers `json_schema` with a validation error).
    """
    if engine == "llama.cpp":
        return {"type": "json_object", "schema": dict(schema)}
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": dict(schema)}}


def offers_tokenize(engine: str) -> bool:
    """Whether the server has vLLM's /tokenize and /detokenize beside /v1 (asked once; a 404 is remembered)."""
    return engine in ("vllm", "other")


def model_offered(model: str, offered: Iterable[str], engine: str) -> bool:
    """Whether the server lists `model`; on Ollama, "qwen3" is "qwen3:latest"."""
    names = set(offered)
    if model in names:
        return True
    return engine == "ollama" and ":" not in model and f"{model}:latest" in names
