"""The egress allowlist the HTTP clients and the guard enforce, taken from the policy's egress.yaml.

The policy file is the only source of reachable endpoints. Settings name model deployments,
but cannot widen the list: a deployment whose host:port is not in egress.yaml is inert until a
run or check uses it, and is then refused with a message naming the policy file. Refusing at use
rather than at load keeps unrelated commands working when a config file lists endpoints for
another site, and keeps layers (a), (b) and (c) identical, since the Kubernetes NetworkPolicy
is generated from egress.yaml alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.client.allowlist import Allowlist, canonical_host
from medhelm_local.errors import EgressRefusedError
from medhelm_local.policy.loader import Policy, load_policy
from medhelm_local.settings import Deployment, Settings


@dataclass(frozen=True)
class Unlisted:
    """A configured endpoint the policy does not permit."""

    source: str  # "deployment NAME"
    host: str
    port: int


class PolicyAllowlist(Allowlist):
    """An Allowlist built from egress.yaml, which knows its file and the configured endpoints it refuses."""

    def __init__(self, pairs: Iterable[tuple[str, int]], source: Path | None = None,
                 deployments: Mapping[str, Deployment] | None = None,
                 purposes: Mapping[tuple[str, int], str] | None = None) -> None:
        super().__init__(pairs)
        self.source = source
        self.purposes = {(canonical_host(h), p): why for (h, p), why in (purposes or {}).items()}
        self.unlisted = tuple(Unlisted(f"deployment {name}", canonical_host(dep.host_port[0]), dep.host_port[1])
                              for name, dep in sorted((deployments or {}).items()) if not self.permits(*dep.host_port))

    @classmethod
    def from_policy(cls, policy: Policy, settings: Settings) -> PolicyAllowlist:
        """The policy's endpoints; configured deployments outside them are noted in `unlisted`, not added."""
        return cls([(e.host, e.port) for e in policy.egress.allow], policy.path_of("egress.yaml"), settings.deployments,
                   {(e.host, e.port): e.purpose for e in policy.egress.allow})

    @classmethod
    def deny_all(cls) -> PolicyAllowlist:
        """Nothing reachable: what the guard enforces until the policy is loaded."""
        return cls([])

    def where(self) -> str:
        """The policy file, for messages."""
        return str(self.source) if self.source else "policies/egress.yaml"

    def require(self, name: str, deployment: Deployment) -> None:
        """Raise EgressRefusedError, naming the policy file, if a deployment's endpoint is not permitted."""
        host, port = deployment.host_port
        if self.permits(host, port):
            return
        raise EgressRefusedError(
            f"model deployment '{name}' ({host}:{port}) is not on the egress allowlist, so nothing is sent to it",
            where=self.where(),
            fix=f"if {host}:{port} is inside your network, add it to {self.where()} under allow (host, port, "
                "purpose, why) and have the change reviewed; `medhelm-local policy check` shows the result",
        )

    def require_judge(self, name: str, deployment: Deployment) -> None:
        """Raise EgressRefusedError unless a judge deployment's endpoint is listed with purpose `judge`."""
        self.require(name, deployment)
        host, port = deployment.host_port
        purpose = self.purposes.get((canonical_host(host), port))
        if purpose != "judge":
            raise EgressRefusedError(
                f"judge deployment '{name}' ({host}:{port}) is on the egress allowlist with purpose {purpose}, not "
                "judge, so it may not judge", where=self.where(),
                fix=f"if {host}:{port} serves a judge model, set its purpose to judge in {self.where()} (a judge "
                    "endpoint may also serve models under evaluation) and have the change reviewed")


def allowlist_for(settings: Settings) -> PolicyAllowlist:
    """Load the policy in `settings.policy_dir` (ConfigError if it does not validate) and build its allowlist."""
    return PolicyAllowlist.from_policy(load_policy(settings.policy_dir), settings)
