"""A hospital's own open-ended benchmark (a card and a CSV) and a config with a jury, for jury tests and bench."""

from __future__ import annotations

import csv
import random
from pathlib import Path

WORDS = ("chest", "pain", "fever", "cough", "renal", "hepatic", "acute", "chronic", "dose", "daily")


def write_generation_card(folder: Path, n: int, name: str = "ward_notes", rubric: str = "clinical_text",
                          seed: int = 3, words: int = 12) -> Path:
    """A generation card (main metric jury_score, ROUGE-L second) with its own CSV of n short instances."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    with (folder / f"{name}.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "question", "answer"])
        for i in range(n):
            question = " ".join(rng.choice(WORDS) for _ in range(words))
            writer.writerow([f"q{i:05d}", f"Summarise case {i}: {question}", " ".join(rng.choice(WORDS)
                                                                                    for _ in range(words))])
    card = folder / f"{name}.yaml"
    card.write_text(f"""card: 2
name: {name}
description: Short summaries of ward cases (synthetic, for tests).
access: private
taxonomy:
  subcategory: Documenting Patient Visits
data:
  file: {name}.csv
columns:
  id: id
  reference: answer
task:
  type: generation
prompt:
  template: "{{question}}"
  output_noun: Summary
  max_tokens: 16
metrics:
  main: jury_score
  also: [rouge_l]
rubric: {rubric}
""")
    return card


def jury_toml(judges: list[str], name: str = "local", default: bool = True, cards: Path | None = None) -> str:
    """Config lines: a jury of these judge deployments (the default jury), and the card folder."""
    top = [f'jury = "{name}"'] if default else []
    if cards is not None:
        top.append(f'benchmark_cards = ["{cards}"]')
    return "\n".join([*top, "", f"[juries.{name}]", "judges = [" + ", ".join(f'"{j}"' for j in judges) + "]"])


def jury_config(tmp_path: Path, data_root: Path, generator: str, judges: dict[str, str], cards: Path,
                judge_fields: dict[str, object] | None = None, extra: str = "", jury: bool = True,
                generator_fields: dict[str, object] | None = None) -> Path:
    """A config: deployment `gen` at `generator`, judge deployments {name: base_url} (purpose judge on the
    egress allowlist), the jury `local` of them as the default, and the card folder."""
    from conftest import write_config

    deployments: dict[str, dict[str, object]] = {"gen": {"base_url": generator, "max_concurrency": 8,
                                                         "timeout_s": 5, "max_retries": 0, **(generator_fields or {})}}
    for name, url in judges.items():
        deployments[name] = {"base_url": url, "model": name, "max_concurrency": 4, "timeout_s": 5, "max_retries": 0,
                             **(judge_fields or {})}
    lines = jury_toml(list(judges), cards=cards, default=jury)
    return write_config(tmp_path / "config.toml", data_root, tmp_path / "results", deployments,
                        judges=tuple(judges), extra=f"{lines}\n{extra}")
