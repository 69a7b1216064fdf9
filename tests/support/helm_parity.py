"""This project's prompts against HELM's, instance by instance, from the committed golden digests.

`tests/data/helm_parity/<benchmark>.json` holds, per instance id, the sha256 of the prompt HELM
0.5.16 builds (tools/helm_parity/generate.py, which runs HELM's own scenario and adapter code on
the published files), HELM's request parameters, and the sha256 of the files the digests came
from. With those very files (the published datasets) a check compares id by id: the same ids,
every prompt identical. With other files holding the same items (the demo subsets, cut from the
published files) ids made from positions in a file no longer line up, so each prompt built here
must be one of HELM's. HELM is never needed here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medhelm_local.records import Prompt
from medhelm_local.scenarios import DataRoot, create

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "helm_parity"
# Synthetic files in a published layout, for benchmarks with no copy of the published files here.
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "datasets"
REGENERATE = ".cache/helm-venv/bin/python tools/helm_parity/generate.py"
# MedHELM's public benchmarks without digests, and why (the tool lists them too).
_FORK = "not in HELM 0.5.16: added by MedHELM's maintained fork (PyPI medhelm 0.8.0)"
WITHOUT_DIGESTS: dict[str, str] = {
    "sct_bench": f"{_FORK}; 174 / 174 identical to the fork's own prompts (docs/helm-parity.md)",
    "medxpert_qa_text": f"{_FORK}; 244 / 244 identical to the fork's own prompts on the authors' sample "
                        "(docs/helm-parity.md)",
    "health_bench": f"{_FORK}; the conversation is sent as it is, as the fork's chat adapter sends it",
    "health_bench_professional": f"{_FORK}; the conversation is sent as it is, as the fork's chat adapter sends it",
}
PUBLISHED, SUBSET, FIXTURE = "published", "subset", "fixture"


@dataclass(frozen=True)
class Golden:
    """One benchmark's digests of HELM's prompts."""

    benchmark: str
    helm: str
    checks: tuple[dict[str, Any], ...]
    root: str  # published (the published datasets) or fixture (tests/data/datasets)
    folder: str
    source_files: dict[str, str]
    request: dict[str, Any]
    prompts: dict[str, str]

    @staticmethod
    def read(path: Path) -> Golden:
        """A digest file as generate.py writes it."""
        doc = json.loads(path.read_text("utf-8"))
        return Golden(doc["benchmark"], doc["helm"], tuple(doc["checks"]), doc["source_root"], doc["source_folder"],
                      doc["source_files"], doc["request"], doc["prompts"])

    def same_files(self, root: Path) -> bool:
        """True when `root/<folder>` holds the very files the digests were made from."""
        folder = root / self.folder
        return all((folder / name).is_file() and sha256((folder / name).read_bytes()) == digest
                   for name, digest in self.source_files.items())


@dataclass(frozen=True)
class Outcome:
    """How this project's prompts for one run entry compare with HELM's."""

    benchmark: str
    args: dict[str, str]
    covers: str  # all: the same instances as HELM's; part: a part of them
    mode: str  # published (checked id by id) or subset (each prompt one of HELM's)
    helm: int
    here: int
    identical: int
    differing: list[str] = field(default_factory=list)  # ids whose prompt differs from HELM's
    missing: list[str] = field(default_factory=list)  # HELM's ids not built here
    extra: list[str] = field(default_factory=list)  # ids built here that HELM does not make
    request: list[str] = field(default_factory=list)  # request parameters that differ

    @property
    def entry(self) -> str:
        """The run entry, as a user writes it."""
        return self.benchmark + "".join(f":{k}={v}" for k, v in self.args.items())

    @property
    def ok(self) -> bool:
        """Every prompt identical, the same instances when it covers all, the same request parameters."""
        whole = not self.missing if self.covers == "all" and self.mode == PUBLISHED else True
        return whole and not self.differing and not self.extra and not self.request and self.identical == self.here


def sha256(data: bytes) -> str:
    """Hex sha256."""
    return hashlib.sha256(data).hexdigest()


def goldens() -> list[Golden]:
    """Every committed digest file, by benchmark name."""
    return [Golden.read(path) for path in sorted(GOLDEN.glob("*.json"))]


def request_differences(golden: Golden, prompt: Prompt) -> list[str]:
    """The request parameters in which this project's request would differ from HELM's."""
    helm = golden.request
    found = []
    if prompt.max_tokens != helm["max_tokens"]:
        found.append(f"max_tokens {prompt.max_tokens} (HELM {helm['max_tokens']})")
    if prompt.temperature != helm["temperature"]:
        found.append(f"temperature {prompt.temperature} (HELM {helm['temperature']})")
    if list(prompt.stop) != helm["stop_sequences"]:
        found.append(f"stop {list(prompt.stop)} (HELM {helm['stop_sequences']})")
    # HELM sends the prompt as one user message; a system message here would be a second one.
    if prompt.system is not None or helm["messages"] is not None:
        found.append("messages: HELM sends one user message")
    if (helm["num_completions"], helm["top_p"], helm["presence_penalty"], helm["frequency_penalty"]) != (1, 1, 0, 0):
        found.append("HELM sets sampling parameters this project leaves at the server's defaults")
    return found


def compare(golden: Golden, args: dict[str, str], covers: str, data: DataRoot, mode: str) -> Outcome:
    """This project's prompts for `benchmark:args` on `data`, against HELM's digests."""
    bench = create(golden.benchmark, args)
    built = {instance.id: bench.prompt(instance) for instance in bench.load(data)}
    digests = {key: sha256(prompt.text.encode("utf-8")) for key, prompt in built.items()}
    request = sorted({d for prompt in built.values() for d in request_differences(golden, prompt)})
    if mode == SUBSET:
        known = set(golden.prompts.values())
        differing = sorted(key for key, digest in digests.items() if digest not in known)
        return Outcome(golden.benchmark, args, covers, mode, len(golden.prompts), len(built),
                       len(built) - len(differing), differing, request=request)
    differing = sorted(k for k, d in digests.items() if k in golden.prompts and golden.prompts[k] != d)
    identical = sum(1 for k, d in digests.items() if golden.prompts.get(k) == d)
    return Outcome(golden.benchmark, args, covers, mode, len(golden.prompts), len(built), identical, differing,
                   missing=sorted(set(golden.prompts) - set(built)), extra=sorted(set(built) - set(golden.prompts)),
                   request=request)
