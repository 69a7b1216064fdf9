"""The effective policy in plain words, one row per rule, each saying where the rule comes from."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.policy.file_schemas import ARTIFACTS
from medhelm_local.policy.loader import Policy
from medhelm_local.policy.networkpolicy import RenderedLayer, describe_peer, describe_ports, disagreements
from medhelm_local.policy.rules import EGRESS_DEFAULT, level_treatment
from medhelm_local.redact.quality import residual_risk
from medhelm_local.settings import Settings

PROGRAM = "the program (not configurable)"
ACCESS_LEVELS = ("public", "gated", "private")


@dataclass(frozen=True)
class Row:
    """One rule of the effective policy."""

    section: str
    subject: str
    rule: str
    source: str


def _egress(policy: Policy, settings: Settings | None) -> list[Row]:
    src = "egress.yaml"
    rows = [Row("egress", "everything not listed", f"{EGRESS_DEFAULT}: refused by the HTTP clients, the in-process "
                "guard and, under the Helm chart, the NetworkPolicy", PROGRAM)]
    rows += [Row("egress", f"{e.host}:{e.port}", f"allowed ({e.purpose}): {e.why}", src) for e in policy.egress.allow]
    if not policy.egress.allow:
        rows.append(Row("egress", "(no entries)", "no endpoint is reachable: every run will be refused", src))
    staging = [f"{e.host}:{e.port}" for e in policy.egress.allow if e.purpose == "staging"]
    rows.append(Row("egress", "data stage", (
        f"may fetch published benchmark data from {', '.join(staging)} only: a connected staging host's policy, "
        "which the appliance's must never be") if staging else (
        "refused: no host is listed with purpose staging, so nothing can be downloaded; benchmark data comes in as "
        "a bundle staged on a connected host (`medhelm-local data import BUNDLE`)"), src))
    rows += [Row("egress", "DNS", "only the host names above are looked up; numeric addresses need no look-up",
                 PROGRAM),
             Row("egress", "programs and libraries", "no subprocesses except `uname` (Python's platform module "
                 "runs it); native libraries only from the Python installation", PROGRAM)]
    if settings is not None:
        refused = {u.source for u in PolicyAllowlist.from_policy(policy, settings).unlisted}
        for name, dep in sorted(settings.deployments.items()):
            host, port = dep.host_port
            rows.append(Row("egress", f"deployment {name}", f"{host}:{port} " + (
                "NOT permitted: runs using it are refused" if f"deployment {name}" in refused else "permitted"),
                "settings"))
    return rows


def _network(policy: Policy, layer: RenderedLayer | None, described_at: Path) -> list[Row]:
    """Layer (c) as the Helm chart rendered it for this pod's release, or why it is not in use."""
    subject, chart = "NetworkPolicy (layer c)", f"Helm chart ({described_at})"
    if layer is None:
        return [Row("network", subject, f"not in use here: no rendered NetworkPolicy is described at {described_at}, "
                    "so this is not a pod of the Helm chart; layers (a) and (b) still apply, and outside Kubernetes "
                    "the host's firewall is the site's to set", PROGRAM)]
    release = f"release {layer.release} in namespace {layer.namespace}"
    if not layer.enabled:
        return [Row("network", subject, f"not in use: {release} was installed with networkPolicy.enabled=false; "
                    "layers (a) and (b) still apply", chart)]
    rows = [Row("network", subject, f"in force for {release}: every pod of the release is denied all ingress and "
                "egress except the rules below", chart)]
    rows += [Row("network", f"egress {r.host}:{r.port}", f"allowed ({r.purpose}) to "
                 f"{' or '.join(describe_peer(p) for p in r.to)} on {describe_ports(r.ports)}", chart)
             for r in layer.rules]
    rows.append(Row("network", "DNS", "none: every allowed host is an IP address" if layer.dns is None else
                    f"allowed to {' or '.join(describe_peer(p) for p in layer.dns.to)} on "
                    f"{describe_ports(layer.dns.ports)}, because an allowed host is a name", chart))
    problems = disagreements(layer, policy)
    rows.append(Row("network", "agreement with egress.yaml", "DIFFERS: " + "; ".join(problems) + ". Generate the "
                    "values with `medhelm-local policy chart-values` and upgrade the release" if problems else
                    f"matches (both from policy sha256 {policy.digest[:16]}...)", chart))
    return rows


def _export(policy: Policy) -> list[Row]:
    rows = [Row("export", "unredacted", "only public data may ever leave unredacted; gated, private and unknown "
                "access levels never do", PROGRAM),
            Row("export", "audit", "every export attempt, allowed or refused, is an audit record", PROGRAM),
            Row("export", "redaction style", policy.export.redaction.style, "export.yaml"),
            Row("export", "PHI detection", residual_risk(), "bench/phi.py (measured)")]
    for role, artifacts in sorted(policy.export.who_may_export.items()):
        rows.append(Row("export", f"role {role}", "may export " + (", ".join(artifacts) or "nothing"),
                        "export.yaml"))
    for access in ACCESS_LEVELS:
        parts = [f"{artifact} {level_treatment(policy, access, artifact).treatment}" for artifact in ARTIFACTS]
        rows.append(Row("export", f"{access} data", "; ".join(parts), "export.yaml, capped by the program"))
    jury = policy.export.jury_validation
    bound = "the low end of its 95 % interval" if jury.judged_on == "lower_bound" else "its estimate"
    rows.append(Row("export", "jury validation", f"a jury-scored column is validated when a clinicians' rating "
                    f"campaign reaches ICC3k-z {jury.min_icc:g} ({bound}) over at least {jury.min_answers} answers; "
                    f"a report with one not validated is {'refused' if jury.refuse_unvalidated else 'marked'}, "
                    f"by `report` and in an exported bundle alike",
                    "export.yaml"))
    return rows


def _retention(policy: Policy) -> list[Row]:
    r = policy.retention
    return [Row("retention", "result stores", f"kept {r.results.keep_days} days", "retention.yaml"),
            Row("retention", "export bundles", f"kept {r.exports.keep_days} days", "retention.yaml"),
            Row("retention", "audit log", f"kept {r.audit.keep_days} days (never shorter than the above)",
                "retention.yaml")]


def explain(policy: Policy, settings: Settings | None = None, network: RenderedLayer | None = None,
            network_described_at: Path | None = None) -> list[Row]:
    """Every rule in force, in order: policy identity, egress, the NetworkPolicy, export, retention, roles.

    The NetworkPolicy rows appear when `network_described_at` is given: the chart's description
    read from there (`network`), or None when there was none."""
    rows = [Row("policy", "folder", str(policy.directory), "setting policy_dir"),
            Row("policy", "version", f"sha256 {policy.digest}", "all four files")]
    rows += _egress(policy, settings)
    if network_described_at is not None:
        rows += _network(policy, network, network_described_at)
    rows += _export(policy) + _retention(policy)
    rows += [Row("roles", name, role.description + (f" Members: {', '.join(role.members)}." if role.members is not None
                                                    else " Anyone may name it (recorded).")
                  + (" Approves the policy and rule pack exports use." if role.approves_policy else "")
                  + f" Sees gated and private text {role.sensitive_text} on the rating pages.", "roles.yaml")
             for name, role in sorted(policy.roles.roles.items())]
    return rows


def render_text(rows: list[Row]) -> str:
    """The rows as plain text, one line each."""
    return "\n".join(f"[{r.section}] {r.subject}: {r.rule}  ({r.source})" for r in rows)
