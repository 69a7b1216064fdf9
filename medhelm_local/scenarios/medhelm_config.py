"""MedHELM's configurable benchmark (a YAML with prompt_file and dataset_file, a CSV with
correct_answer and incorrect_answers) read as a card, unchanged."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from medhelm_local.errors import ConfigError
from medhelm_local.scenarios.card import Card, CardColumns, CardData, CardMetrics, CardPrompt, CardTask, CardTaxonomy
from medhelm_local.scenarios.tabular import MEDHELM_CHOICES

# MedHELM's own configurable format says nothing about the taxonomy: such benchmarks sit here
# until a card places them.
HOSPITAL_CATEGORY = "Hospital benchmarks"
UNPLACED_SUBCATEGORY = "Not yet placed in the taxonomy"
FIELDS = frozenset({"name", "description", "prompt_file", "dataset_file", "max_tokens", "metrics"})


def is_medhelm_config(data: object) -> bool:
    """True for MedHELM's configurable-benchmark YAML (it has prompt_file and dataset_file)."""
    return isinstance(data, dict) and "dataset_file" in data and "prompt_file" in data


def card_from_medhelm(path: Path, data: dict[str, Any]) -> Card:
    """The card equivalent of a MedHELM configurable-benchmark config."""
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise ConfigError(f"MedHELM benchmark config has unknown field(s) {', '.join(unknown)}", where=str(path),
                          fix="MedHELM configs take " + ", ".join(sorted(FIELDS)))
    prompt_path = path.parent / str(data["prompt_file"])
    try:
        template = prompt_path.read_text("utf-8")
    except OSError:
        raise ConfigError("the prompt file named by prompt_file cannot be read", where=str(prompt_path),
                          fix="check prompt_file in the config") from None
    metrics = [m.get("name") if isinstance(m, dict) else m for m in data.get("metrics") or []]
    generation = bool(metrics) and metrics[0] != "exact_match"
    name = re.sub(r"[^a-z0-9_]+", "_", str(data["name"]).lower()).strip("_") or "medhelm_benchmark"
    try:
        return Card(
            name=name, display_name=str(data["name"]), description=str(data.get("description", "")),
            access="private",
            taxonomy=CardTaxonomy(subcategory=UNPLACED_SUBCATEGORY, category=HOSPITAL_CATEGORY,
                                  task=str(data["name"])),
            data=CardData(file=str(data["dataset_file"])),
            task=CardTask(type="generation" if generation else "multiple_choice"),
            columns=CardColumns(reference="correct_answer", choices=None if generation else MEDHELM_CHOICES),
            prompt=CardPrompt(template=template, max_tokens=int(data.get("max_tokens", 16))),
            metrics=CardMetrics(main="rouge_l" if generation else "exact_match"),
        )
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"the MedHELM benchmark config cannot be read ({str(exc).splitlines()[0]})",
                          where=str(path), fix="check name, max_tokens and the prompt file") from None

