"""MedHELM's configurable benchmark (`medhelm_configurable_benchmark`), read as HELM 0.5.16 reads it, or refused.

The config (HELM's `run_specs/medhelm/benchmark_config.py`) names the benchmark, a prompt template file,
a CSV and its metrics; `max_tokens` defaults to 1024. HELM runs it as a generation task: the template
filled in from each row (then a newline, HELM's generation layout), no instructions, no stop
sequences. Here it becomes a card, with:

    name               the run's benchmark name (lower case, `_` for other characters); the original is
                       its display name, so two configurable benchmarks are two benchmarks
    exact_match        HELM's four text rules on the answer against `correct_answer`
                       (`helm_text_exact_match` main, quasi, prefix and quasi-prefix beside it)
    rouge_l            ROUGE-L against `correct_answer`
    jury_score         the jury: its `prompt_file` (MedHELM's judge prompt) is the rubric, on MedHELM's
                       0-5 scale (`jury_score_0_5`), and its `judges` are the jury, each mapped to a local
                       judge deployment as for MedHELM's jury files (`judge_map`, else the same name)
    main: true         the main metric (later HELM releases); else the first metric, as in 0.5.16

`correct_answer` may be absent only when `jury_score` is the only metric (HELM's rule); then the judges
get no reference. `incorrect_answers` (a JSON list) is kept as references that are not correct. Every
key HELM does not read, and every metric this program cannot compute as HELM does (`rouge_1`,
`rouge_2`, BERTScore), is an error naming it. Files are relative to the config (HELM: to the
working directory). Such benchmarks are private and placed under "Hospital benchmarks" until a card
places them.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from medhelm_local.errors import ConfigError
from medhelm_local.metrics.jury import jury_metric_name
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.metrics.text_match import (
    TEXT_EXACT_MATCH,
    TEXT_PREFIX_EXACT_MATCH,
    TEXT_QUASI_EXACT_MATCH,
    TEXT_QUASI_PREFIX_EXACT_MATCH,
)
from medhelm_local.scenarios.card import Card, CardColumns, CardData, CardMetrics, CardPrompt, CardTask, CardTaxonomy
from medhelm_local.yaml_lines import LocatedYaml, validate_located

HOSPITAL_CATEGORY = "Hospital benchmarks"
UNPLACED_SUBCATEGORY = "Not yet placed in the taxonomy"
CONFIG_FIX = ("MedHELM's benchmark config takes name, description, prompt_file, dataset_file, max_tokens and metrics "
              "(docs/benchmark-cards.md, 'MedHELM's configurable benchmarks')")
REFERENCE_COLUMN = "correct_answer"
INCORRECT_COLUMN = "incorrect_answers"
JURY = "jury_score"
# What each of HELM's metric names is scored by here (the first is the main one).
SIMPLE = {
    "exact_match": (TEXT_EXACT_MATCH, TEXT_QUASI_EXACT_MATCH, TEXT_PREFIX_EXACT_MATCH, TEXT_QUASI_PREFIX_EXACT_MATCH),
    "rouge_l": (ROUGE_L,),
}
UNSUPPORTED = {
    "rouge_1": "ROUGE-1 is not computed here (rouge_l is)",
    "rouge_2": "ROUGE-2 is not computed here (rouge_l is)",
    "BERTScore-P": "BERTScore needs a model downloaded at run time, which an air-gapped appliance cannot do",
    "BERTScore-R": "BERTScore needs a model downloaded at run time, which an air-gapped appliance cannot do",
    "BERTScore-F": "BERTScore needs a model downloaded at run time, which an air-gapped appliance cannot do",
}
RUN_TOKENS = 1024  # HELM's default max_tokens for a configurable benchmark


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MedhelmJudge(_Strict):
    """A judge of a `jury_score` metric: MedHELM's deployment name and model name."""

    name: str = Field(min_length=1, description="MedHELM's model deployment name of the judge")
    model_name: str = Field(min_length=1)


class _Metric(_Strict):
    name: str = Field(min_length=1)
    prompt_file: str | None = None
    judges: list[MedhelmJudge] | None = Field(None, min_length=1)
    main: bool = False


class MedhelmConfig(_Strict):
    """The config file as HELM reads it; every other key is refused."""

    name: str = Field(min_length=1)
    description: str
    prompt_file: str = Field(min_length=1)
    dataset_file: str = Field(min_length=1)
    max_tokens: int = Field(RUN_TOKENS, ge=1, le=100_000)
    metrics: list[_Metric] = Field(min_length=1)


def is_medhelm_config(data: object) -> bool:
    """True for MedHELM's configurable-benchmark YAML (it has prompt_file and dataset_file)."""
    return isinstance(data, dict) and "dataset_file" in data and "prompt_file" in data


def benchmark_name(display: str) -> str:
    """The run-entry name of a config's benchmark: its name in lower case, other characters as `_`."""
    name = re.sub(r"[^a-z0-9_]+", "_", display.lower()).strip("_")
    return name if re.match(r"[a-z]", name) else f"medhelm_{name}".rstrip("_")


def _at(doc: LocatedYaml, *loc: str | int) -> str:
    line = doc.line_of(loc)
    return f"{doc.path}, line {line}" if line else str(doc.path)


def _metrics(doc: LocatedYaml, config: MedhelmConfig) -> tuple[list[str], str | None, list[MedhelmJudge]]:
    """(metrics, main first; the jury's judge prompt file; its judges) from the config's metrics list."""
    names: list[list[str]] = []
    rubric, judges = None, list[MedhelmJudge]()
    mains = [i for i, m in enumerate(config.metrics) if m.main]
    if len(mains) > 1:
        raise ConfigError("more than one metric is marked main: true", where=_at(doc, "metrics", mains[1], "main"),
                          fix="mark one metric main (or none: the first is then main)")
    for index, metric in enumerate(config.metrics):
        where = _at(doc, "metrics", index, "name")
        if metric.name == JURY:
            if metric.prompt_file is None or metric.judges is None:
                raise ConfigError("jury_score needs prompt_file (the judge prompt) and judges", where=where,
                                  fix="add prompt_file: JUDGE_PROMPT.txt and judges: [{name: ..., model_name: ...}]")
            if rubric is not None:
                raise ConfigError("jury_score is listed twice", where=where, fix="list one jury_score metric")
            rubric, judges = metric.prompt_file, list(metric.judges)
            names.append([jury_metric_name(0, 5)])
            continue
        extra = [key for key in ("prompt_file", "judges") if getattr(metric, key) is not None]
        if extra:
            raise ConfigError(f"metric '{metric.name}' does not take {', '.join(extra)} (only jury_score does)",
                              where=_at(doc, "metrics", index, extra[0]), fix=f"remove {', '.join(extra)}")
        if metric.name in UNSUPPORTED:
            raise ConfigError(f"metric '{metric.name}' is not supported: {UNSUPPORTED[metric.name]}", where=where,
                              fix=f"use exact_match, rouge_l or jury_score (supported: {', '.join([*SIMPLE, JURY])})")
        if metric.name not in SIMPLE:
            raise ConfigError(f"MedHELM has no configurable-benchmark metric '{metric.name}'", where=where,
                              fix=f"use one of: {', '.join([*SIMPLE, JURY])}")
        names.append(list(SIMPLE[metric.name]))
    first = mains[0] if mains else 0
    ordered = [names[first], *(n for i, n in enumerate(names) if i != first)]
    return list(dict.fromkeys(m for group in ordered for m in group)), rubric, judges


def _template(path: Path, config: MedhelmConfig, doc: LocatedYaml) -> str:
    prompt_path = path.parent / config.prompt_file
    try:
        return prompt_path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        raise ConfigError("the prompt file named by prompt_file cannot be read", where=str(prompt_path),
                          fix=f"check prompt_file ({_at(doc, 'prompt_file')}): a UTF-8 text file, relative to the "
                              "config") from None


def _has_reference_column(path: Path) -> bool:
    """True when the CSV's header names correct_answer (a missing file is reported when the data is read)."""
    import csv

    try:
        with path.open(newline="", encoding="utf-8-sig") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError, csv.Error):
        return True  # read (and reported) with the data
    return REFERENCE_COLUMN in header


def card_from_medhelm(path: Path, doc: LocatedYaml) -> tuple[Card, tuple[MedhelmJudge, ...]]:
    """The card equivalent of a MedHELM configurable-benchmark config, and its jury's judges."""
    config: MedhelmConfig = validate_located(MedhelmConfig, doc, "MedHELM benchmark config", CONFIG_FIX)
    metrics, rubric, judges = _metrics(doc, config)
    jury_only = all(m.name == JURY for m in config.metrics)
    referenced = not jury_only or _has_reference_column(path.parent / config.dataset_file)
    template = _template(path, config, doc)
    try:
        card = Card(
            name=benchmark_name(config.name), display_name=config.name, description=config.description,
            access="private",
            taxonomy=CardTaxonomy(subcategory=UNPLACED_SUBCATEGORY, category=HOSPITAL_CATEGORY, task=config.name),
            provenance=f"MedHELM configurable benchmark {path.name}",
            data=CardData(file=config.dataset_file),
            task=CardTask(type="generation"),
            columns=CardColumns(reference=REFERENCE_COLUMN if referenced else None),
            # HELM's generation layout: the filled-in template, then a newline (prompting.render adds it).
            prompt=CardPrompt(template=template, max_tokens=config.max_tokens),
            metrics=CardMetrics(main=metrics[0], also=metrics[1:]),
            rubric=rubric,
            notes="MedHELM configurable benchmark, read as HELM 0.5.16 reads it (docs/benchmark-cards.md).",
        )
    except ValueError as exc:
        raise ConfigError(f"the MedHELM benchmark config cannot be used ({str(exc).splitlines()[-1].strip()})",
                          where=str(path), fix="check the prompt file's {placeholders}: a literal brace is written "
                                               "{{ or }}, as HELM's Python format requires") from None
    return card, tuple(judges)
