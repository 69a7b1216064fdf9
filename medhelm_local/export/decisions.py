"""What may leave, run by run and artifact by artifact, for one role: the export gate's first half.

The policy file's rule for (role, access level, artifact), capped by the rules in code, decides
each artifact of each run: `as_is`, `redacted`, or `never` (withheld). A request the policy
cannot satisfy is refused as a whole rather than quietly trimmed: an artifact named with
`--include` that some run may not export, or `--unredacted` for data that must be redacted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from medhelm_local.policy.file_schemas import ARTIFACTS, ON_REQUEST, Artifact, Treatment
from medhelm_local.policy.loader import Policy
from medhelm_local.policy.rules import ExportDecision, export_treatment, stricter


@dataclass(frozen=True)
class RunAccess:
    """A run and the access level the gate treats its data at (and, when that is private for a run stored as
    public, why: `public_check.py`)."""

    run_id: str
    access: str
    why_private: str | None = None

    def describe(self) -> str:
        """Its data as messages name it."""
        if self.why_private:
            return f"handled as private data, since {self.why_private}"
        return f"{self.access} data"


@dataclass
class ExportPlan:
    """Per run, how each artifact leaves; what is withheld; and why the request is refused, if it is."""

    role: str
    decisions: dict[str, dict[Artifact, ExportDecision]] = field(default_factory=dict)
    withheld: list[dict[str, str]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    # Per run whose report leaves: how each part of it may leave (the report's treatment, capped by each part's).
    report_contents: dict[str, dict[str, str]] = field(default_factory=dict)

    def treatment(self, run_id: str, artifact: Artifact) -> str:
        """as_is, redacted or never for one run's artifact."""
        return self.decisions[run_id][artifact].treatment

    def leaving(self, artifact: Artifact) -> list[str]:
        """The runs whose `artifact` goes into the bundle."""
        return [run for run, chosen in self.decisions.items() if chosen[artifact].allowed]


def report_contents(policy: Policy, role: str, access: str, report: Treatment) -> dict[str, str]:
    """What a run's page in an exported report may show, part by part: its aggregates, answers, prompts and
    references, judges' ratings, each as the policy lets that artifact leave for this role (whether or not it
    was asked for), and never more loosely than the report itself."""
    return {part: stricter(report, export_treatment(policy, role, access, part).treatment)
            for part in ("aggregates", "completions", "prompts", "ratings")}


def plan_export(policy: Policy, role: str, user: str, runs: Sequence[RunAccess],
                include: Iterable[Artifact] | None = None, unredacted: bool = False) -> ExportPlan:
    """Decide every (run, artifact) for `user` acting as `role`; fill `refusals` when the request as asked
    cannot be met."""
    plan = ExportPlan(role)
    if role not in policy.export.who_may_export:
        allowed = ", ".join(sorted(policy.export.who_may_export)) or "none"
        plan.refusals.append(f"role '{role}' may not export anything (export.yaml who_may_export names: {allowed})")
        return plan
    members = policy.roles.roles[role].members
    if members is not None and user not in members:
        plan.refusals.append(f"user '{user}' does not hold role '{role}' (roles.yaml members)")
        return plan
    asked: tuple[Artifact, ...] = (tuple(include) if include is not None
                                   else tuple(a for a in ARTIFACTS if a not in ON_REQUEST))
    for run in runs:
        chosen = {artifact: (export_treatment(policy, role, run.access, artifact) if artifact in asked
                             else ExportDecision("never", "not asked for (--include)")) for artifact in ARTIFACTS}
        plan.decisions[run.run_id] = chosen
        if chosen["report"].allowed:
            plan.report_contents[run.run_id] = report_contents(policy, role, run.access, chosen["report"].treatment)
        for artifact in asked:
            decision = chosen[artifact]
            if not decision.allowed:
                if include is not None:
                    plan.refusals.append(f"{artifact} of run {run.run_id} ({run.describe()}) may not leave: "
                                         f"{decision.reason}")
                else:
                    reason = decision.reason + (f" (the run is {run.describe()})" if run.why_private else "")
                    plan.withheld.append({"run_id": run.run_id, "artifact": artifact, "reason": reason})
            elif unredacted and decision.treatment != "as_is":
                plan.refusals.append(f"{artifact} of run {run.run_id} may not leave unredacted: {decision.reason}"
                                     if decision.treatment == "redacted" and run.access == "public" else
                                     f"{artifact} of run {run.run_id} is {run.describe()}, which never leaves "
                                     "unredacted (a rule in the program, not a setting)")
    if runs and not plan.refusals and not any(plan.leaving(a) for a in ARTIFACTS):
        plan.refusals.append(f"nothing in the selection may leave for role '{role}': every artifact is withheld")
    return plan
