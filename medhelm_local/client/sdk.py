"""The openai SDK client, over an httpx2 transport that enforces the same egress allowlist.

Kept apart from `egress` because httpx2 and openai cost ~0.4 s to import and only `doctor` (and
future SDK-level features) need them; `run` posts JSON over aiohttp.
"""

from __future__ import annotations

import httpx2
import openai

from medhelm_local.client.allowlist import Allowlist
from medhelm_local.client.egress import refusal, tls_context


class GuardedTransport(httpx2.AsyncBaseTransport):
    """An async transport that raises EgressRefusedError for hosts off the allowlist."""

    def __init__(self, allowlist: Allowlist, inner: httpx2.AsyncBaseTransport | None = None,
                 max_connections: int = 256) -> None:
        self._allowlist = allowlist
        self._inner = inner or httpx2.AsyncHTTPTransport(
            verify=tls_context(),
            trust_env=False,
            limits=httpx2.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Check the destination, then hand the request to the real transport."""
        url = request.url
        refused = refusal(self._allowlist, request.method, url.scheme, url.host, url.port)
        if refused is not None:
            raise refused
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._inner.aclose()


def build_async_http_client(allowlist: Allowlist, timeout_s: float, max_connections: int = 256) -> httpx2.AsyncClient:
    """The only way medhelm-local makes an async HTTP client."""
    return httpx2.AsyncClient(
        transport=GuardedTransport(allowlist, max_connections=max_connections),
        trust_env=False,
        follow_redirects=False,
        timeout=httpx2.Timeout(timeout_s, connect=min(10.0, timeout_s)),
    )


def build_openai_client(base_url: str, api_key: str, allowlist: Allowlist, timeout_s: float) -> openai.AsyncOpenAI:
    """An openai SDK client over the same guarded transport (for SDK-level calls; the hot path posts JSON)."""
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout_s,
                              http_client=build_async_http_client(allowlist, timeout_s, max_connections=4))
