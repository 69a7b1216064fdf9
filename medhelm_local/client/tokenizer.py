"""The model's own tokenizer, as its server offers it: vLLM's /tokenize and /detokenize at the server root.

Token counts come from the server that will answer the prompt, so they are exact for that model
(chat prompts are counted with the chat template, as the server will apply it). No tokenizer is
ever loaded or downloaded here. A server without these endpoints (Ollama, most hosted APIs) gives
no counts: prompts are then sent whole, and the server cuts or refuses what does not fit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from medhelm_local.client.completions import ModelClient
from medhelm_local.client.engines import offers_tokenize
from medhelm_local.records import Prompt

log = logging.getLogger("medhelm_local.client")


@dataclass(frozen=True)
class TokenCount:
    """A prompt's length in the model's tokens, and the most the model's context holds."""

    tokens: int
    context: int


class ServerTokenizer:
    """Counts, encodes and decodes text with the tokenizer of the server behind a client."""

    def __init__(self, client: ModelClient, model: str) -> None:
        self.client = client
        self.model = client.deployment.model or model
        # unknown until the first answer; engines without vLLM's /tokenize are never asked
        self.available: bool | None = None if offers_tokenize(client.deployment.engine) else False

    async def _call(self, path: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        if self.available is False:
            return None
        reply = await self.client.server_call(path, {"model": self.model, **payload})
        if self.available is None:
            self.available = reply is not None
            if reply is None:
                log.info("the server at %s offers no %s: prompts are sent whole", self.client.deployment.base_url,
                         path)
        return reply

    async def count(self, prompt: Prompt) -> TokenCount | None:
        """The prompt's length as the server will see it, or None when it cannot say."""
        body = self.client.request_body(prompt, self.model)
        payload = ({"messages": body["messages"], "add_generation_prompt": True} if "messages" in body
                   else {"prompt": body["prompt"]})
        reply = await self._call("/tokenize", payload)
        try:
            return TokenCount(int(reply["count"]), int(reply["max_model_len"])) if reply else None
        except (KeyError, TypeError, ValueError):
            return None

    async def encode(self, text: str) -> list[int] | None:
        """A piece of text as token ids (no special tokens added), or None."""
        reply = await self._call("/tokenize", {"prompt": text, "add_special_tokens": False})
        tokens = reply.get("tokens") if reply else None
        return [int(t) for t in tokens] if isinstance(tokens, list) else None

    async def decode(self, tokens: list[int]) -> str | None:
        """Token ids back to text, or None."""
        reply = await self._call("/detokenize", {"tokens": tokens})
        text = reply.get("prompt") if reply else None
        return text if isinstance(text, str) else None
