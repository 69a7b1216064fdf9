"""Where run entries come from: the command line, MedHELM conf files, and YAML suite files.

MedHELM conf files (`entries: [{description: "...", priority: N}, ...]`, `#` comments) are read
as HELM writes them; `--priority N` keeps entries of priority N or lower, as `helm-run` does. A
YAML suite file (benchmarks x models x options) is for people who do not know HELM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from medhelm_local.errors import ConfigError, RunEntryError, UnknownScenarioError
from medhelm_local.run.entries import RunEntry, parse_run_entry
from medhelm_local.safe_parse import decode, read_bounded
from medhelm_local.yaml_lines import load_located, validate_located

SHIPPED_CONFS = {"public": "run_entries_public.conf", "gated": "run_entries_gated.conf"}
_ENTRY = re.compile(r'\{\s*description\s*:\s*"((?:[^"\\]|\\.)*)"\s*,\s*priority\s*:\s*(\d+)\s*,?\s*\}\s*,?')


@dataclass(frozen=True)
class ConfEntry:
    """One line of a conf file: a run entry and its priority."""

    description: str
    priority: int
    line: int


def conf_path(name_or_path: str) -> Path:
    """A conf file path; the shipped ones can be named (`public`, `gated`)."""
    if name_or_path in SHIPPED_CONFS:
        return Path(str(resources.files("medhelm_local").joinpath("confs", SHIPPED_CONFS[name_or_path])))
    return Path(name_or_path)


def _strip_comment(line: str) -> str:
    in_string = False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            in_string = not in_string
        elif not in_string and (ch == "#" or line.startswith("//", i)):
            return line[:i]
    return line


def read_conf(path: Path) -> list[ConfEntry]:
    """Parse a MedHELM run-entries conf file; anything that is not an entry is an error with its line."""
    what = "run-entries conf file"
    data = read_bounded(path, what, if_missing="check the path; the conf name `public` is the shipped public conf")
    lines = decode(data, str(path), what).splitlines()
    entries: list[ConfEntry] = []
    opened = closed = False
    for number, raw in enumerate(lines, start=1):
        text = _strip_comment(raw).strip()
        if not opened:
            if re.fullmatch(r"entries\s*[:=]\s*\[", text):
                opened = True
            elif text:
                raise ConfigError("the conf file must start with `entries: [`", where=f"{path}, line {number}",
                                  fix="write entries as MedHELM does: entries: [ {description: \"...\", priority: 1} ]")
            continue
        while text:
            match = _ENTRY.match(text)
            if match:
                entries.append(ConfEntry(match.group(1).replace('\\"', '"'), int(match.group(2)), number))
                text = text[match.end():].strip()
            elif text == "]":
                closed, text = True, ""
            else:
                raise ConfigError(f"cannot read this line as an entry: {text[:60]!r}", where=f"{path}, line {number}",
                                  fix='each entry is {description: "benchmark:model=...", priority: N}')
    if not opened or not closed:
        raise ConfigError("the conf file has no complete `entries: [ ... ]` list", where=str(path),
                          fix="close the list with ]")
    return entries


def entries_from_conf(path: Path, priority: int | None, model: str | None, deployment: str | None) -> list[RunEntry]:
    """The conf's run entries up to `priority`; `model`/`deployment` replace the conf's own (duplicates merged)."""
    from medhelm_local.scenarios import registry  # here: the registry imports every benchmark

    selected: dict[str, RunEntry] = {}
    for item in read_conf(path):
        if priority is not None and item.priority > priority:
            continue
        try:
            entry = parse_run_entry(item.description, default_deployment=deployment)
            if entry.scenario != registry.CONFIGURABLE:  # its config is read when the run is planned
                registry.get(entry.scenario)  # an unknown benchmark is named with its line, not later without it
        except (RunEntryError, UnknownScenarioError) as exc:
            raise type(exc)(exc.what, where=f"{path}, line {item.line}", fix=exc.fix) from None
        if model or deployment:
            entry = RunEntry(entry.scenario, entry.args, model or entry.model, deployment or entry.deployment)
        selected.setdefault(entry.canonical, entry)
    if not selected:
        raise ConfigError("no run entries are selected from the conf file", where=str(path),
                          fix="raise --priority, or check the file lists entries")
    return list(selected.values())


class SuiteModel(BaseModel):
    """A model to evaluate and the deployment that serves it."""

    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="Model name, e.g. local/qwen2.5-7b")
    deployment: str = Field(description="A deployment name from the config file")


class SuiteBenchmark(BaseModel):
    """A benchmark and its run-entry arguments."""

    model_config = ConfigDict(extra="forbid")
    name: str
    args: dict[str, str | int] = Field(default_factory=dict)


class SuiteFile(BaseModel):
    """A YAML suite: every benchmark crossed with every model, with run options."""

    model_config = ConfigDict(extra="forbid")
    suite: str | None = Field(None, description="Suite name (the store's name); --suite overrides it")
    models: list[SuiteModel] = Field(min_length=1)
    benchmarks: list[SuiteBenchmark | str] = Field(min_length=1)
    max_eval_instances: int | None = Field(None, ge=1)
    concurrency: int | None = Field(None, ge=1)


@dataclass(frozen=True)
class Suite:
    """A suite file's run entries and options."""

    name: str | None
    entries: list[RunEntry]
    max_eval_instances: int | None
    concurrency: int | None


def read_suite(path: Path) -> Suite:
    """Load and check a YAML suite file; errors name the field and its line."""
    doc = load_located(path, "suite file")
    parsed: SuiteFile = validate_located(
        SuiteFile, doc, "suite file", "a suite file takes suite, models (each {model, deployment}), benchmarks (each "
        "a name or {name, args}), max_eval_instances and concurrency: see README 'Many benchmarks at once'")
    entries = []
    for number, bench in enumerate(parsed.benchmarks):
        spec = SuiteBenchmark(name=bench) if isinstance(bench, str) else bench
        args = ",".join(f"{k}={v}" for k, v in spec.args.items())
        for m in parsed.models:
            text = f"{spec.name}:{args + ',' if args else ''}model={m.model},model_deployment={m.deployment}"
            try:
                entries.append(parse_run_entry(text))
            except RunEntryError as exc:
                line = doc.line_of(("benchmarks", number))
                raise RunEntryError(exc.what, where=f"{path}, line {line}", fix=exc.fix) from None
    return Suite(parsed.suite, entries, parsed.max_eval_instances, parsed.concurrency)
