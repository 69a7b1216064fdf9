"""The egress allowlist as data: (host, port) pairs, compared in one canonical form.

Standard library only, so the audit-hook guard can be installed before anything heavy is imported.
Where the pairs come from (the policy's egress.yaml) is `policy.egress_allowlist`'s business.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Iterator


@functools.lru_cache(maxsize=256)  # checked on every request: parse each host once
def canonical_host(host: str) -> str:
    """A host as the allowlist compares it: lower case; IP addresses in their canonical form."""
    text = host.strip().lower().strip("[]")
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return text.rstrip(".")
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


class Allowlist:
    """A set of (host, port) pairs that clients may connect to; everything else is refused."""

    def __init__(self, pairs: Iterable[tuple[str, int]]) -> None:
        self._pairs = frozenset((canonical_host(h), p) for h, p in pairs)

    def permits(self, host: str, port: int) -> bool:
        """True if a connection to host:port is allowed."""
        return (canonical_host(host), port) in self._pairs

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(sorted(self._pairs))
