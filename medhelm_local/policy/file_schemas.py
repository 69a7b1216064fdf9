"""The shape of each policy file, validated strictly: unknown keys and unknown values are errors.

Rules that are not the hospital's to change are checked here too, so a file that asks for them
fails to load instead of being silently overridden: egress is deny-by-default, and gated or
private data never leaves `as_is`.
"""

from __future__ import annotations

import ipaddress
import re
from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from medhelm_local.client.allowed_hosts import canonical_host

AccessLevel = Literal["public", "gated", "private"]
Artifact = Literal["aggregates", "scores", "completions", "prompts", "ratings", "report"]
Treatment = Literal["never", "redacted", "as_is"]

ARTIFACTS: tuple[Artifact, ...] = ("aggregates", "scores", "completions", "prompts", "ratings", "report")
# Built only when asked for with --include: the report shows, readably, what the other artifacts hold.
ON_REQUEST: tuple[Artifact, ...] = ("report",)
_HOST_NAME = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")
_ROLE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_UNREDACTED_MESSAGE = ("'as_is' is not allowed for gated or private data: nothing derived from it leaves "
                       "unredacted (a rule in the program, not a setting); use 'redacted' or 'never'")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EgressEntry(_Strict):
    """One endpoint clients may connect to."""

    host: str = Field(description="DNS name or IP address; no wildcards, ranges or schemes")
    port: int = Field(ge=1, le=65535, description="TCP port")
    purpose: Literal["inference", "judge", "staging"] = Field(
        description="What the endpoint serves: a model (inference, judge), or published benchmark data that "
                    "`data stage` fetches (staging; a connected staging host's policy only, never the appliance's)")
    why: str = Field(min_length=3, description="The reason, for the reviewer")

    @field_validator("host")
    @classmethod
    def _check_host(cls, value: str) -> str:
        host = canonical_host(value)
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            if not _HOST_NAME.match(host):
                raise ValueError("must be one DNS name or IP address, without scheme, port, path or "
                                 "wildcard (e.g. vllm.medhelm.svc.cluster.local or 10.0.0.5)") from None
            return host
        if address.is_unspecified or address.is_multicast:
            raise ValueError(f"{host} is not one host; name the server's own address")
        return host


class EgressPolicy(_Strict):
    """egress.yaml: the allowlist; everything else is refused."""

    default: Literal["deny"] = Field(description="Always deny: the program allows nothing else")
    allow: list[EgressEntry] = Field(default_factory=list, description="The only endpoints clients may reach")

    @field_validator("default", mode="before")
    @classmethod
    def _only_deny(cls, value: object) -> object:
        if value != "deny":
            raise ValueError("must be 'deny': egress is deny-by-default in the program; list exceptions under allow")
        return value


class RedactionRules(_Strict):
    """How PHI is removed from an export."""

    style: Literal["mask", "surrogate"] = Field(description="mask: [NAME]; surrogate: a made-up value")


class ReviewRules(_Strict):
    """A person's review before free text of gated or private runs leaves (`medhelm-local review`)."""

    # True when the file says nothing: a hospital's policy written before reviews existed gets the safe side,
    # and only a file that says `required: false` (approved like any change) lets redacted text leave unread.
    required: bool = Field(True, description="Completions, prompts and ratings of gated or private runs (and a "
                                             "report that shows them) leave only after a compliance officer "
                                             "approved the redacted text in the viewer; false: they leave "
                                             "redacted with no person's review")
    different_person: bool = Field(True, description="Whoever approves is not whoever asked for the review, nor "
                                                     "whoever exports")


class PublicRules(_Strict):
    """Treatments for artifacts from public benchmarks."""

    aggregates: Treatment
    scores: Treatment
    completions: Treatment
    prompts: Treatment
    # Judges' ratings with their explanations (free text that can quote the answer). A policy written
    # before juries existed does not name them: they then never leave.
    ratings: Treatment = "never"
    report: Treatment | None = Field(None, description="The HTML report (`export --include report`); its "
                                                       "per-instance pages also follow completions and prompts. "
                                                       "Absent: as aggregates")

    def treatment(self, artifact: Artifact) -> Treatment:
        """The treatment this file gives an artifact."""
        value: Treatment | None = getattr(self, artifact)
        return self.aggregates if value is None else value


class SensitiveRules(PublicRules):
    """Treatments for gated or private data: nothing leaves `as_is`."""

    @field_validator("aggregates", "scores", "completions", "prompts", "ratings", "report")
    @classmethod
    def _never_unredacted(cls, value: Treatment | None) -> Treatment | None:
        if value == "as_is":
            raise ValueError(_UNREDACTED_MESSAGE)
        return value


class AccessLevelRules(_Strict):
    """One set of treatments per access level; all three must be written out."""

    public: PublicRules
    gated: SensitiveRules
    private: SensitiveRules

    def for_level(self, access: AccessLevel) -> PublicRules:
        """The rules for an access level."""
        rules: PublicRules = getattr(self, access)
        return rules


class JuryValidationRules(_Strict):
    """When a jury-scored column counts as validated by this hospital's clinicians (a rating campaign)."""

    min_icc: float = Field(0.5, ge=-1.0, le=1.0, description="The agreement a campaign must reach: MedHELM's figure, "
                           "ICC(3,k) on z-scores between the jury and the clinicians' mean (`judge validate`)")
    judged_on: Literal["estimate", "lower_bound"] = Field(
        "estimate", description="estimate: the figure itself must reach min_icc; lower_bound: the low end of its "
                                "95 % interval must (stricter: a small campaign cannot pass by chance)")
    min_answers: int = Field(10, ge=3, le=100_000, description="Fewer answers rated by clinicians and the jury "
                             "both: not validated, whatever the figure")
    refuse_unvalidated: bool = Field(False, description="true: `report` writes no report (any format), and "
                                     "`export` carries none, with a jury-scored column that is not validated; "
                                     "false: only `--validated-only` refuses")


class ExportPolicy(_Strict):
    """export.yaml: who may export what, and how it is redacted."""

    who_may_export: dict[str, list[Artifact]] = Field(description="Role -> artifacts it may export")
    redaction: RedactionRules
    access_levels: AccessLevelRules
    review: ReviewRules = Field(default_factory=ReviewRules)
    min_slice_size: int = Field(10, ge=1, le=100_000, description="A slice (the instances with one value of a card's "
                                "slice key) with fewer instances is suppressed in exports: neither its value nor its "
                                "figures leave, and the largest gap is taken over the other slices")
    jury_validation: JuryValidationRules = Field(default_factory=JuryValidationRules,
                                                 description="When reports call a jury-scored column validated")

    @field_validator("who_may_export")
    @classmethod
    def _no_repeats(cls, value: dict[str, list[Artifact]]) -> dict[str, list[Artifact]]:
        for role, artifacts in value.items():
            if len(set(artifacts)) != len(artifacts):
                raise ValueError(f"role '{role}' lists an artifact twice")
        return value


class Period(_Strict):
    """A retention period."""

    keep_days: int = Field(ge=1, le=36500, description="Whole days to keep")


class RetentionPolicy(_Strict):
    """retention.yaml: how long stores, exports and the audit log are kept."""

    results: Period
    exports: Period
    audit: Period

    @field_validator("audit")
    @classmethod
    def _audit_outlives(cls, value: Period, info: ValidationInfo) -> Period:
        others = [p.keep_days for p in (info.data.get("results"), info.data.get("exports")) if p is not None]
        if others and value.keep_days < max(others):
            raise ValueError(f"keep_days ({value.keep_days}) is shorter than another period here "
                             f"({max(others)} days): an audit record must outlive what it describes")
        return value


class Role(_Strict):
    """A role people hold."""

    description: str = Field(min_length=3, description="Who holds it and what they do")
    members: list[str] | None = Field(None, description="Who may act in this role: operating-system user names, "
                                                        "or system:serviceaccount:NAMESPACE:NAME in Kubernetes; "
                                                        "absent: anyone may name the role (it is recorded)")
    approves_policy: bool = Field(False, description="May approve the policy and redaction rule pack exports "
                                                     "must use (`medhelm-local policy approve`)")
    sensitive_text: Literal["redacted", "full"] = Field(
        "redacted", description="How a rater in this role sees the inputs, answers and references of gated and "
                                "private runs on the rating pages: redacted (identifiers masked by the redaction "
                                "rule pack) or full")


class RolesPolicy(_Strict):
    """roles.yaml: the role names other files may use."""

    roles: dict[str, Role]

    @field_validator("roles")
    @classmethod
    def _names(cls, value: dict[str, Role]) -> dict[str, Role]:
        for name in value:
            if not _ROLE_NAME.match(name):
                raise ValueError(f"role name '{name}' must be lower case letters, digits and _")
        return value


class AuditSink(_Strict):
    """One place outside the appliance's log where every audit record is also sent as it is written."""

    syslog: str | None = Field(None, description="The local syslog/journald socket, e.g. /dev/log (a Unix socket)")
    file: str | None = Field(None, description="An append-only file (e.g. chattr +a), one JSON record a line")

    @model_validator(mode="after")
    def _exactly_one(self) -> AuditSink:
        chosen = [p for p in (self.syslog, self.file) if p is not None]
        if len(chosen) != 1:
            raise ValueError("give exactly one of syslog (a socket path) or file (a file path)")
        if not PurePosixPath(chosen[0]).is_absolute():
            raise ValueError(f"'{chosen[0]}' must be an absolute path")
        return self


class AuditPolicy(_Strict):
    """audit.yaml (optional): where audit records are forwarded, beyond the appliance's own log."""

    forward: list[AuditSink] = Field(description="Append-only sinks the hospital runs; [] for none")
