"""The egress allowlist the HTTP clients and the guard enforce, taken from the policy's egress.yaml.

The policy file is the only source of reachable endpoints. Settings name model deployments,
but cannot widen the list: a deployment whose host:port is not in egress.yaml is inert until a
run or check uses it, and is then refused with a message naming the policy file. Refusing at use
rather than at load keeps unrelated commands working when a config file lists endpoints for
another site, and keeps layers (a), (b) and (c) identical, since the Kubernetes NetworkPolicy
is generated from egress.yaml alone.

The purpose an endpoint is listed with limits what it serves: a model deployment needs purpose
inference or judge (a judge endpoint may also serve models under evaluation), a judge needs judge,
and a staging-only host serves published data to `data stage` and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.client.allowed_hosts import Allowlist, canonical_host
from medhelm_local.errors import EgressRefusedError
from medhelm_local.policy.loader import Policy, load_policy
from medhelm_local.settings import Deployment, Settings

# Endpoints that may receive prompts for evaluation: a judge endpoint may also serve models (as in the demo).
MODEL_PURPOSES = frozenset({"inference", "judge"})


@dataclass(frozen=True)
class Unlisted:
    """A configured deployment the policy does not let serve models: not listed, or listed for staging only."""

    source: str  # "deployment NAME"
    host: str
    port: int


class PolicyAllowlist(Allowlist):
    """An Allowlist built from egress.yaml, which knows its file and the configured endpoints it refuses."""

    def __init__(self, pairs: Iterable[tuple[str, int]], source: Path | None = None,
                 deployments: Mapping[str, Deployment] | None = None,
                 purposes: Iterable[tuple[tuple[str, int], str]] | None = None) -> None:
        super().__init__(pairs)
        self.source = source
        # An endpoint may be listed more than once (say, judge and inference): it has every purpose it is listed with.
        self.purposes: dict[tuple[str, int], frozenset[str]] = {}
        for (h, p), why in purposes or ():
            key = (canonical_host(h), p)
            self.purposes[key] = self.purposes.get(key, frozenset()) | {why}
        self.unlisted = tuple(Unlisted(f"deployment {name}", canonical_host(dep.host_port[0]), dep.host_port[1])
                              for name, dep in sorted((deployments or {}).items())
                              if not self.purposes_of(*dep.host_port) & MODEL_PURPOSES)

    @classmethod
    def from_policy(cls, policy: Policy, settings: Settings) -> PolicyAllowlist:
        """The policy's endpoints; configured deployments outside them are noted in `unlisted`, not added."""
        return cls([(e.host, e.port) for e in policy.egress.allow], policy.path_of("egress.yaml"), settings.deployments,
                   [((e.host, e.port), e.purpose) for e in policy.egress.allow])

    @classmethod
    def deny_all(cls) -> PolicyAllowlist:
        """Nothing reachable: what the guard enforces until the policy is loaded."""
        return cls([])

    def where(self) -> str:
        """The policy file, for messages."""
        return str(self.source) if self.source else "policies/egress.yaml"

    def purposes_of(self, host: str, port: int) -> frozenset[str]:
        """The purposes egress.yaml lists host:port with (empty when it is not listed)."""
        return self.purposes.get((canonical_host(host), port), frozenset())

    def require(self, name: str, deployment: Deployment) -> None:
        """Raise EgressRefusedError, naming the policy file, unless a model deployment's endpoint is listed with
        a purpose that serves models: inference, or judge (a judge endpoint may also serve models under evaluation).
        A staging-only host serves published data to `data stage`, never prompts."""
        self._require_purpose(name, deployment, "model", MODEL_PURPOSES)

    def require_judge(self, name: str, deployment: Deployment) -> None:
        """Raise EgressRefusedError unless a judge deployment's endpoint is listed with purpose `judge`."""
        self._require_purpose(name, deployment, "judge", frozenset({"judge"}))

    def _require_purpose(self, name: str, deployment: Deployment, role: str, allowed: frozenset[str]) -> None:
        host, port = deployment.host_port
        if not self.permits(host, port):
            raise EgressRefusedError(
                f"{role} deployment '{name}' ({host}:{port}) is not on the egress allowlist, so nothing is sent to it",
                where=self.where(),
                fix=f"if {host}:{port} is inside your network, add it to {self.where()} under allow (host: {host}, "
                    f"port: {port}, purpose: {_wanted(role)}, why) and have the change reviewed; "
                    "`medhelm-local policy check` shows the result")
        listed = self.purposes_of(host, port)
        if not listed & allowed:
            raise EgressRefusedError(
                f"{role} deployment '{name}' ({host}:{port}) is on the egress allowlist with purpose "
                f"{' and '.join(sorted(listed))}, not {_wanted(role)}, so nothing is sent to it", where=self.where(),
                fix=f"if {host}:{port} serves {_served(role)}, list it in {self.where()} with purpose {_wanted(role)} "
                    f"(host: {host}, port: {port}, purpose: {_wanted(role)}, why) and have the change reviewed; "
                    f"else point deployment '{name}' at an endpoint listed for it")


def _wanted(role: str) -> str:
    return "inference" if role == "model" else "judge"


def _served(role: str) -> str:
    return "a model under evaluation" if role == "model" else "a judge model (a judge endpoint may also serve " \
                                                              "models under evaluation)"


def allowlist_for(settings: Settings) -> PolicyAllowlist:
    """Load the policy in `settings.policy_dir` (ConfigError if it does not validate) and build its allowlist."""
    return PolicyAllowlist.from_policy(load_policy(settings.policy_dir), settings)
