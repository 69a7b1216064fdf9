"""MedHELM run entries: `scenario:arg=value,...,model=ORG/NAME,model_deployment=NAME`.

Existing MedHELM run entries parse unchanged. `model` and `model_deployment` are the model
keys; every other argument belongs to the scenario and is checked by it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from medhelm_local.errors import RunEntryError

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODEL_KEYS = ("model", "model_deployment")


@dataclass(frozen=True)
class RunEntry:
    """A parsed run entry: which benchmark, with which arguments, on which model deployment."""

    scenario: str
    args: Mapping[str, str]
    model: str
    deployment: str

    @property
    def canonical(self) -> str:
        """The entry with arguments in a fixed order; equal entries give equal strings."""
        parts = [f"{k}={v}" for k, v in sorted(self.args.items())]
        parts += [f"model={self.model}", f"model_deployment={self.deployment}"]
        return f"{self.scenario}:{','.join(parts)}"

    def run_id(self, suite: str) -> str:
        """A stable id for this entry in this suite: rerunning it resumes the same run."""
        digest = hashlib.sha256(f"{suite}\n{self.canonical}".encode()).hexdigest()[:12]
        model = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.model)
        return f"{self.scenario}-{model}-{digest}"


def parse_run_entry(text: str, default_deployment: str | None = None) -> RunEntry:
    """Parse one run entry, or raise RunEntryError naming the part that is wrong."""
    where = f"run entry {text!r}"
    entry = text.strip()
    if not entry:
        raise RunEntryError("the run entry is empty", where=where,
                            fix='write it as "pubmed_qa:model=local/qwen,model_deployment=vllm-local"')
    name, sep, rest = entry.partition(":")
    name = name.strip()
    if not _NAME.match(name):
        from medhelm_local.scenarios.registry import names  # here: the registry imports every benchmark

        raise RunEntryError(f"'{name}' is not a benchmark name", where=where,
                            fix=f"start with one of: {', '.join(names())}")
    args: dict[str, str] = {}
    for raw in filter(None, (p.strip() for p in rest.split(","))) if sep else ():
        key, eq, value = raw.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise RunEntryError(f"'{raw}' is not of the form key=value", where=where,
                                fix="separate arguments with commas, each as key=value")
        if key in args:
            raise RunEntryError(f"'{key}' is given twice", where=where, fix="give each argument once")
        args[key] = value
    model = args.pop("model", None)
    deployment = args.pop("model_deployment", None) or default_deployment
    if not model:
        raise RunEntryError("no model is named", where=where, fix="add model=ORG/NAME, e.g. model=local/qwen")
    if not deployment:
        raise RunEntryError("no model deployment is named", where=where,
                            fix="add model_deployment=NAME, one of the deployments in your config file")
    return RunEntry(name, MappingProxyType(args), model, deployment)
