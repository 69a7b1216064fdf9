"""Juries as configuration: a named jury (settings) or MedHELM's `jury_config_path`, resolved to local judges.

A judge is a deployment like any other, on the egress allowlist with purpose `judge`. Resolving a
jury checks every judge before anything is sent: the deployment is configured, its endpoint is
listed for judging, and the server's model name is known. MedHELM's jury files name cloud judges;
`judge_map` (settings) says which local deployment stands in for each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from medhelm_local.errors import ConfigError, DeploymentError
from medhelm_local.policy.egress_allowlist import PolicyAllowlist
from medhelm_local.settings import Deployment, JuryJudge, Settings
from medhelm_local.yaml_lines import load_located, validate_located

MEDHELM_PREFIX = "medhelm:"


@dataclass(frozen=True)
class Judge:
    """One judge ready to be asked: its deployment, the model name the server knows, its request limit."""

    name: str  # the deployment's name: what ratings rows record
    deployment: Deployment
    model: str
    concurrency: int


@dataclass(frozen=True)
class ResolvedJury:
    """A jury whose every judge was checked."""

    name: str
    judges: tuple[Judge, ...]

    @property
    def judge_names(self) -> list[str]:
        """The judges' deployment names, in order."""
        return [j.name for j in self.judges]


def _judge(settings: Settings, allowlist: PolicyAllowlist, member: JuryJudge, where: str) -> Judge:
    deployment = settings.deployments.get(member.deployment)
    if deployment is None:
        known = ", ".join(sorted(settings.deployments)) or "none configured"
        raise DeploymentError(f"the jury names judge deployment '{member.deployment}', which is not configured",
                              where=where, fix=f"use one of: {known}; or add [deployments.{member.deployment}] with "
                                               "base_url and model to your config file")
    allowlist.require_judge(member.deployment, deployment)
    model = member.model or deployment.model
    if not model:
        raise ConfigError(f"judge deployment '{member.deployment}' names no model", where=where,
                          fix=f"set model in [deployments.{member.deployment}] (the name its server knows)")
    limit = min(member.max_concurrency or deployment.max_concurrency, deployment.max_concurrency)
    return Judge(member.deployment, deployment, model, limit)


def resolve_jury(settings: Settings, allowlist: PolicyAllowlist, name: str | None) -> ResolvedJury | None:
    """The named jury (default: the `jury` setting), checked; None when no jury is named or configured."""
    chosen = name or settings.jury
    if chosen is None:
        return None
    if chosen.startswith(MEDHELM_PREFIX):
        return jury_from_medhelm_file(Path(chosen.removeprefix(MEDHELM_PREFIX)), settings, allowlist)
    jury = settings.juries.get(chosen)
    if jury is None:
        known = ", ".join(sorted(settings.juries)) or "none configured"
        raise ConfigError(f"there is no jury called '{chosen}'", where="the jury named, or the jury setting",
                          fix=f"use one of: {known}; or declare [juries.{chosen}] with judges = [...] in your config")
    where = f"jury '{chosen}' (setting juries.{chosen})"
    return ResolvedJury(chosen, tuple(_judge(settings, allowlist, m, where) for m in jury.members))


class _MedhelmJudge(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)  # other keys of MedHELM's file are not ours to read

    name: str | None = None
    model_name: str | None = None
    model: str | None = None
    model_deployment: str | None = None


class _MedhelmJury(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    judges: list[_MedhelmJudge] = Field(min_length=1)


def jury_from_medhelm_file(path: Path, settings: Settings, allowlist: PolicyAllowlist) -> ResolvedJury:
    """A MedHELM jury file (`judges: [{name, model_name, model_deployment}]`) with each judge mapped to a local
    deployment: by `judge_map` (its name, deployment or model), else a deployment of the same name."""
    doc = load_located(path, "jury config file")
    parsed: _MedhelmJury = validate_located(_MedhelmJury, doc, "jury config file",
                                            "write judges: [{name: ..., model_name: ..., model_deployment: ...}]")
    named = [([k for k in (item.name, item.model_deployment, item.model_name, item.model) if k],
              f"{path}, line {doc.line_of(('judges', index))}") for index, item in enumerate(parsed.judges)]
    return _mapped(f"{MEDHELM_PREFIX}{path.stem}", named, "the MedHELM jury file", str(path), settings, allowlist)


def jury_from_medhelm_judges(name: str, judges: Sequence[tuple[str, str]], where: str, settings: Settings,
                             allowlist: PolicyAllowlist) -> ResolvedJury:
    """The judges a MedHELM configurable benchmark's `jury_score` names ((deployment name, model name) each),
    mapped to local deployments as for a MedHELM jury file."""
    named = [([deployment, model], f"{where} (judge {deployment})") for deployment, model in judges]
    return _mapped(name, named, "the benchmark config's jury_score", where, settings, allowlist)


def _mapped(name: str, named: Sequence[tuple[list[str], str]], what: str, where: str, settings: Settings,
            allowlist: PolicyAllowlist) -> ResolvedJury:
    """MedHELM judges (each its names and where it is written) mapped to local deployments: by `judge_map`
    (any of its names), else a deployment of the same name."""
    judges = []
    for index, (keys, at) in enumerate(named):
        local = next((settings.judge_map[k] for k in keys if k in settings.judge_map), None)
        local = local or next((k for k in keys if k in settings.deployments), None)
        if local is None:
            label = keys[0] if keys else f"number {index + 1}"
            raise ConfigError(f"judge '{label}' of {what} has no local deployment", where=at,
                              fix=f"map it in your config: [judge_map] \"{label}\" = \"<a judge deployment>\"")
        judges.append(_judge(settings, allowlist, JuryJudge(deployment=local), f"{at} (judge {keys[0]})"))
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise ConfigError(f"two judges of {what} map to the same local deployment", where=where,
                          fix="map each judge to its own deployment in [judge_map]")
    return ResolvedJury(name, tuple(judges))


def self_judging(jury: ResolvedJury, deployment: str, model: str) -> list[str]:
    """Judges that are the model being evaluated (same deployment or same model name): a warning each."""
    return [f"judge '{j.name}' of jury '{jury.name}' is the model being evaluated ({model}): a model rating its "
            "own answers is biased towards them" for j in jury.judges
            if j.name == deployment or j.model == model or (j.deployment.model is not None and j.deployment.model
                                                             == model)]
