"""Send prompts to an OpenAI-compatible server (vLLM, Ollama) and turn every outcome into a Completion.

Retries 429, 5xx, timeouts, dropped connections and unreadable replies with jittered exponential
backoff, up to the deployment's `max_retries`; other 4xx answers (e.g. a prompt longer than the
model's context) fail at once. A request that never succeeds becomes a failed Completion with
its reason: it is stored and counted, never scored.

Requests are posted as JSON over the guarded aiohttp session rather than through the openai SDK:
measured here, the SDK (over httpx2) cost ~1.5 ms CPU per request plus 0.35 s of imports, aiohttp
0.12 ms, and the harness budget is 1 ms per instance (bench/throughput.py). The wire format is
the same OpenAI-compatible JSON.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import aiohttp

from medhelm_local.client.allowlist import Allowlist
from medhelm_local.client.egress import build_session
from medhelm_local.errors import EndpointUnreachableError
from medhelm_local.records import Completion, Prompt
from medhelm_local.settings import Deployment

BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 20.0
TOP_LOGPROBS = 5
# Connection failures, resets, truncated bodies and timeouts: all worth another try.
_TRANSIENT = (aiohttp.ClientError, asyncio.TimeoutError)
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class _StatusError(Exception):
    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        try:
            detail = json.loads(body).get("error", {})
            message = detail.get("message") if isinstance(detail, dict) else str(detail)
        except (ValueError, AttributeError):
            message = None
        super().__init__(str(message or body[:200].decode("utf-8", "replace"))[:300])


def _backoff(attempt: int) -> float:
    """Full-jitter exponential backoff: uniform in [0, min(cap, base * 2**attempt)]."""
    return random.uniform(0, min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** attempt))


def _describe(exc: BaseException) -> tuple[str, str]:
    """A short error type and message for the store; server bodies are cut short."""
    if isinstance(exc, _StatusError):
        return f"http_{exc.status}", str(exc)
    if isinstance(exc, asyncio.TimeoutError):
        return "timeout", "the request timed out"
    if isinstance(exc, aiohttp.ClientError):
        return "connection", "the connection failed or was dropped"
    if isinstance(exc, ValueError):
        return "bad_response", "the server's reply was not valid OpenAI-compatible JSON"
    return type(exc).__name__, str(exc)[:300]


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, _StatusError):
        return exc.status in _RETRYABLE_STATUS
    return isinstance(exc, (*_TRANSIENT, ValueError))


class ModelClient:
    """One deployment's client: a concurrency limit, a per-request timeout and bounded retries."""

    def __init__(self, deployment: Deployment, model: str, allowlist: Allowlist,
                 concurrency: int | None = None) -> None:
        self.deployment = deployment
        self.model = deployment.model or model
        self.limit = min(concurrency or deployment.max_concurrency, deployment.max_concurrency)
        self._session = build_session(allowlist, deployment.timeout_s, self.limit)
        self._headers = {"Authorization": f"Bearer {deployment.api_key()}", "Content-Type": "application/json"}
        path = "/chat/completions" if deployment.api == "chat" else "/completions"
        self._url = deployment.base_url + path
        self._slots = asyncio.Semaphore(self.limit)

    async def aclose(self) -> None:
        """Release pooled connections."""
        await self._session.close()

    async def check_reachable(self) -> list[str]:
        """The model names the server offers; raises if nothing answers at the URL."""
        fix = "start the model server (e.g. vLLM) or correct base_url in your config; `medhelm-local doctor` checks it"
        try:
            async with self._session.get(self.deployment.base_url + "/models", headers=self._headers) as response:
                status, raw = response.status, await response.read()
        except _TRANSIENT:
            raise EndpointUnreachableError("nothing answered at the deployment's URL",
                                           where=self.deployment.base_url, fix=fix) from None
        if status != 200:
            raise EndpointUnreachableError(
                f"the server answered HTTP {status} to GET /models", where=self.deployment.base_url,
                fix="check base_url ends in /v1 and the API key file, if the server needs one")
        try:
            return [str(m["id"]) for m in json.loads(raw)["data"]]
        except (ValueError, KeyError, TypeError):
            raise EndpointUnreachableError("the server at this URL does not speak the OpenAI API",
                                           where=self.deployment.base_url, fix=fix) from None

    async def complete(self, prompt: Prompt) -> Completion:
        """Send one prompt, retrying transient failures; always returns a Completion."""
        payload = self._payload(prompt)
        async with self._slots:
            started = time.perf_counter()
            attempt = 0
            while True:
                try:
                    body = await self._post(payload)
                    return self._parse(prompt, body, time.perf_counter() - started, attempt + 1)
                except (_StatusError, *_TRANSIENT, ValueError, KeyError, IndexError, TypeError) as exc:
                    if not _retryable(exc) or attempt >= self.deployment.max_retries:
                        error_type, message = _describe(exc)
                        return Completion(prompt.instance_id, ok=False, latency_s=time.perf_counter() - started,
                                          attempts=attempt + 1, error_type=error_type, error_message=message)
                    await asyncio.sleep(_backoff(attempt))
                    attempt += 1

    def _payload(self, prompt: Prompt) -> bytes:
        body: dict[str, Any] = {"model": self.model, "max_tokens": prompt.max_tokens,
                                "temperature": prompt.temperature}
        if prompt.stop:
            body["stop"] = list(prompt.stop)
        if self.deployment.api == "chat":
            messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
            body["messages"] = [*messages, {"role": "user", "content": prompt.text}]
            if prompt.logprobs:
                body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        else:
            body["prompt"] = f"{prompt.system}\n\n{prompt.text}" if prompt.system else prompt.text
            if prompt.logprobs:
                body["logprobs"] = TOP_LOGPROBS
        return json.dumps(body).encode()

    async def _post(self, payload: bytes) -> dict[str, Any]:
        post = self._session.post(self._url, data=payload, headers=self._headers, allow_redirects=False)
        async with post as response:
            raw = await response.read()
            if response.status != 200:
                raise _StatusError(response.status, raw)
        body: dict[str, Any] = json.loads(raw)
        return body

    def _parse(self, prompt: Prompt, body: dict[str, Any], latency: float, attempts: int) -> Completion:
        choice = body["choices"][0]
        usage = body.get("usage") or {}
        if self.deployment.api == "chat":
            text = (choice.get("message") or {}).get("content") or ""
            logprobs = (choice.get("logprobs") or {}).get("content")
        else:
            text = choice.get("text") or ""
            logprobs = choice.get("logprobs")
        return Completion(
            prompt.instance_id, ok=True, text=text, finish_reason=choice.get("finish_reason"),
            prompt_tokens=usage.get("prompt_tokens"), completion_tokens=usage.get("completion_tokens"),
            latency_s=latency, attempts=attempts,
            logprobs_json=json.dumps(logprobs, separators=(",", ":")) if logprobs else None,
        )
