"""The egress rule every request obeys: a host:port off the allowlist is refused before any connection.

`client.http.HttpClient` asks `refusal` first for every request it sends (evaluation, judges, `doctor`,
`data stage`); the audit hook (`policy.guard`) is the second layer, under every library. The
allowlist comes from the policy's egress.yaml only (`policy.egress_allowlist.allowlist_for`).
"""

from __future__ import annotations

from medhelm_local.client.allowed_hosts import Allowlist
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
