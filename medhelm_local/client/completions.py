"""Send prompts to an OpenAI-compatible server (vLLM, Ollama) and turn every outcome into a Completion.

Retries 429, 5xx, timeouts, dropped connections and unreadable replies with jittered exponential
backoff, up to the deployment's `max_retries`; other 4xx answers (e.g. a prompt longer than the
model's context) fail at once. A request that never succeeds becomes a failed Completion with
its reason: it is stored and counted, never scored.

Requests are posted as JSON over the project's one HTTP client (`client.http`, egress-guarded)
rather than through the openai SDK: measured here, the SDK (over httpx2) cost ~1.5 ms CPU per
request plus 0.35 s of imports, `client.http` ~0.1 ms and 7 ms, and the harness budget is 1 ms per
instance (bench/throughput.py). The wire format is the same OpenAI-compatible JSON; `client.api`
builds it for the deployment's API style. `doctor` uses the same client, so runs and checks share
one HTTP stack.

A reply larger than the deployment's `max_reply_bytes` is cut off and stored as a failure
(`reply_too_large`): a broken or hostile server cannot fill the appliance's memory.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import time
from typing import Any

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.api import API_STYLES
from medhelm_local.client.http import HttpClient
from medhelm_local.client.wire import HttpError, ReplyTooLargeError
from medhelm_local.errors import EndpointUnreachableError
from medhelm_local.records import Completion, Prompt
from medhelm_local.settings import Deployment

BACKOFF_BASE_S = 0.25
BACKOFF_CAP_S = 20.0
# Connection failures, resets, truncated bodies and timeouts: all worth another try.
_TRANSIENT = (HttpError, TimeoutError)
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
    if isinstance(exc, ReplyTooLargeError):
        return "reply_too_large", f"{exc} (the deployment's max_reply_bytes)"
    if isinstance(exc, TimeoutError):
        return "timeout", "the request timed out"
    if isinstance(exc, HttpError):
        return "connection", "the connection failed or was dropped"
    if isinstance(exc, ValueError):
        return "bad_response", "the server's reply was not valid OpenAI-compatible JSON"
    return type(exc).__name__, str(exc)[:300]


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, _StatusError):
        return exc.status in _RETRYABLE_STATUS
    return isinstance(exc, (*_TRANSIENT, ValueError))


def concurrency_limit(deployment: Deployment, concurrency: int | None = None) -> int:
    """Requests a deployment's client keeps in flight: the command's `--concurrency`, capped by the
    deployment's `max_concurrency`."""
    return min(concurrency or deployment.max_concurrency, deployment.max_concurrency)


# What to start, named as the deployment's `engine` setting names it, for the error when nothing answers.
_SERVERS = {"vllm": "the vLLM server", "llama.cpp": "llama.cpp's server (llama-server)", "ollama": "Ollama"}


class ModelClient:
    """One deployment's client: a concurrency limit, a per-request timeout and bounded retries."""

    def __init__(self, deployment: Deployment, model: str, allowlist: Allowlist,
                 concurrency: int | None = None) -> None:
        self.deployment = deployment
        self.model = deployment.model or model
        self.limit = concurrency_limit(deployment, concurrency)
        self._http = HttpClient(allowlist, deployment.timeout_s, self.limit)
        self._headers = {"Authorization": f"Bearer {deployment.api_key()}", "Content-Type": "application/json"}
        self._api = API_STYLES[deployment.api]
        self._url = deployment.base_url + self._api.path
        self._slots = asyncio.Semaphore(self.limit)
        self._listed: dict[str, Any] = {}  # what GET /models said of this model (check_reachable)

    async def aclose(self) -> None:
        """Release pooled connections."""
        await self._http.aclose()

    async def adopt(self, sockets: list[socket.socket]) -> int:
        """Keep sockets connected ahead to this deployment's server for its requests; how many were kept."""
        return await self._http.adopt(self._url, sockets)

    async def check_reachable(self) -> list[str]:
        """The model names the server offers; raises if nothing answers at the URL."""
        server = _SERVERS.get(self.deployment.engine, "the model server")
        fix = f"start {server} or correct base_url in your config; `medhelm-local doctor` checks it"
        try:
            models = self.deployment.base_url + "/models"
            async with self._http.request("GET", models, headers=self._headers) as response:
                status, raw = response.status, await response.read(self.deployment.max_reply_bytes)
        except HttpError as exc:
            if exc.tls:  # something answered, but could not prove it is the server named in base_url
                raise EndpointUnreachableError(
                    str(exc), where=self.deployment.base_url,
                    fix="the server's certificate must name its host and be signed by an authority this host "
                        "trusts; for your own CA, point SSL_CERT_FILE at a bundle holding it "
                        "(docs/install-airgapped.md)") from None
            raise EndpointUnreachableError("nothing answered at the deployment's URL",
                                           where=self.deployment.base_url, fix=fix) from None
        except (TimeoutError, ReplyTooLargeError):
            raise EndpointUnreachableError("nothing answered at the deployment's URL",
                                           where=self.deployment.base_url, fix=fix) from None
        if status != 200:
            raise EndpointUnreachableError(
                f"the server answered HTTP {status} to GET /models", where=self.deployment.base_url,
                fix="check base_url ends in /v1 and the API key file, if the server needs one")
        try:
            listed = [m for m in json.loads(raw)["data"] if isinstance(m, dict)]
            names = [str(m["id"]) for m in listed]
        except (ValueError, KeyError, TypeError):
            raise EndpointUnreachableError("the server at this URL does not speak the OpenAI API",
                                           where=self.deployment.base_url, fix=fix) from None
        self._listed = next((m for m in listed if str(m["id"]) == self.model), {})
        return names

    async def complete(self, prompt: Prompt, model: str | None = None) -> Completion:
        """Send one prompt (to `model`, default the deployment's), retrying transient failures; always
        returns a Completion."""
        payload = json.dumps(self.request_body(prompt, model)).encode()
        async with self._slots:
            started = time.perf_counter()
            attempt = 0
            while True:
                try:
                    body = await self._post(payload)
                    return self._parse(prompt, body, time.perf_counter() - started, attempt + 1)
                except (_StatusError, *_TRANSIENT, ValueError, KeyError, IndexError, TypeError,
                        ReplyTooLargeError) as exc:
                    if not _retryable(exc) or attempt >= self.deployment.max_retries:
                        error_type, message = _describe(exc)
                        return Completion(prompt.instance_id, ok=False, latency_s=time.perf_counter() - started,
                                          attempts=attempt + 1, error_type=error_type, error_message=message)
                    await asyncio.sleep(_backoff(attempt))
                    attempt += 1

    async def _post(self, payload: bytes) -> dict[str, Any]:
        async with self._http.request("POST", self._url, payload, self._headers) as response:
            raw = await response.read(self.deployment.max_reply_bytes)
            if response.status != 200:
                raise _StatusError(response.status, raw)
        body: dict[str, Any] = json.loads(raw)
        return body

    async def server_call(self, path: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """POST to the server's root (beside /v1, where vLLM serves /tokenize and /detokenize); the JSON reply,
        or None when the server does not offer the path or cannot answer (one try, no retries)."""
        root = self.deployment.base_url.removesuffix("/v1")
        data = json.dumps(payload).encode()
        async with self._slots:
            try:
                async with self._http.request("POST", root + path, data, self._headers) as response:
                    raw = await response.read(self.deployment.max_reply_bytes)
                    if response.status != 200:
                        return None
                reply: dict[str, Any] = json.loads(raw)
                return reply
            except (*_TRANSIENT, ReplyTooLargeError, ValueError):
                return None

    def request_body(self, prompt: Prompt, model: str | None = None) -> dict[str, Any]:
        """The JSON body this client sends for a prompt (messages for the chat API, a prompt string otherwise)."""
        dep = self.deployment
        return self._api.payload(prompt, dep.model or model or self.model, dep.engine,
                                 dep.reasoning_budget if dep.reasoning else 0)

    def _parse(self, prompt: Prompt, body: dict[str, Any], latency: float, attempts: int) -> Completion:
        reply = self._api.reply(body)
        if reply.failure is not None:  # cut off while reasoning: no answer, and not the model's wrong one
            return Completion(prompt.instance_id, ok=False, finish_reason=reply.finish_reason,
                              prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                              latency_s=latency, attempts=attempts, error_type=reply.failure,
                              error_message="max_tokens ran out inside the reasoning, before any answer: raise the "
                                            "deployment's reasoning_budget", reasoning=reply.reasoning)
        return Completion(prompt.instance_id, ok=True, text=reply.text, finish_reason=reply.finish_reason,
                          prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                          latency_s=latency, attempts=attempts, logprobs_json=reply.logprobs_json,
                          reasoning=reply.reasoning, helm_text=reply.helm_text,
                          served_model=served_model(body, self._listed))


def served_model(body: dict[str, Any], listed: dict[str, Any]) -> str | None:
    """The model build a reply came from, as the server names it: the reply's `model`, then in brackets its
    system_fingerprint or, without one, the weights /v1/models listed for the model (vLLM's `root`) where they
    differ from its name. None when the reply names no model."""
    name = body.get("model")
    if not isinstance(name, str) or not name:
        return None
    build = body.get("system_fingerprint")
    root = listed.get("root")
    if not (isinstance(build, str) and build) and isinstance(root, str) and root not in ("", name):
        build = root
    return f"{name[:200]} [{build[:200]}]" if isinstance(build, str) and build else name[:200]
