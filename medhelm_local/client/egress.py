"""The aiohttp session every evaluation request goes through.

HTTP clients are built here only, with one rule: `build_session` (aiohttp) carries every request
the program makes (evaluation, judges, `doctor`'s endpoint checks). It ignores proxy variables
(`trust_env=False`), checks each request's host:port against the Allowlist first (a client
middleware), and never follows redirects. The allowlist comes from the policy's egress.yaml only
(`policy.allowlist.allowlist_for`).
"""

from __future__ import annotations

import aiohttp

from medhelm_local.client.allowlist import Allowlist
from medhelm_local.errors import EgressRefusedError


def refusal(allowlist: Allowlist, method: str, scheme: str, host: str, port: int | None) -> EgressRefusedError | None:
    """The error to raise for a request to host:port, or None if the allowlist permits it."""
    port = port or (443 if scheme == "https" else 80)
    if allowlist.permits(host, port):
        return None
    return EgressRefusedError(
        f"connection to {host}:{port} refused: it is not on the egress allowlist",
        where=f"{method} {scheme}://{host}:{port}",
        fix="if the endpoint is inside your network, add it to the policy's egress.yaml (host, port, purpose, "
            "why) and have the change reviewed; `medhelm-local policy check` shows the allowlist in force",
    )


def build_session(allowlist: Allowlist, timeout_s: float, max_connections: int) -> aiohttp.ClientSession:
    """The aiohttp session evaluation requests go through (call inside a running event loop)."""

    async def guard(request: aiohttp.ClientRequest, handler: aiohttp.ClientHandlerType) -> aiohttp.ClientResponse:
        refused = refusal(allowlist, request.method, request.url.scheme, request.url.host or "", request.url.port)
        if refused is not None:
            raise refused
        return await handler(request)

    return aiohttp.ClientSession(
        # ssl=True: aiohttp's verified default context (built once at import), for https deployments.
        connector=aiohttp.TCPConnector(limit=max_connections, ssl=True),
        timeout=aiohttp.ClientTimeout(total=timeout_s, connect=min(10.0, timeout_s)),
        trust_env=False,
        middlewares=(guard,),
        # aiohttp's default headers advertise the library; the appliance stays quiet.
        skip_auto_headers=("User-Agent",),
    )
