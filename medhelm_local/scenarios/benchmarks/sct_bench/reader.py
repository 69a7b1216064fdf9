"""SCT-Bench: Script Concordance Tests, rated -2 to +2 against an expert panel (sct_cleaned_full.csv).

Read as MedHELM reads it (its `sct_bench` scenario, after SCT-Bench's own `modeling.py`): rows with an
empty stem, hypothesis or new information are skipped; the prompt is SCT-Bench's guideline and test
case with the row filled in (`reason=True` keeps the guideline's request for a brief explanation,
which MedHELM's default drops); the reference is the rating the panel weighted most ("-2" ... "+2",
the first on a tie); the panel's weights for -2..+2 go with the instance for the metrics
(`metrics.sct_bench`). The id is the file's question_id.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import require_columns

FILE = "sct_cleaned_full.csv"
PANEL = ("-2", "-1", "0", "1", "2")
RATINGS = ("-2", "-1", "0", "+1", "+2")
REQUIRED = ("question_id", "sct_stem", "question", "additional_info", *PANEL)
TRUE, FALSE = ("true", "True", "1"), ("false", "False", "0")
# SCT-Bench's prompt (github.com/SCT-Bench/sctpublic @c2843137, MIT, Copyright (c) 2025 liamgmccoy), as
# MedHELM's scenario writes it: MedHELM's prompts are reproduced byte for byte here, as for every benchmark.
GUIDELINE = """# Script Concordance Testing

You are taking a Script Concordance Test, which evaluates your understanding of medical knowledge.

In this test, you will evaluate how new information impacts a specific hypothesis. Use the following scale to rate the impact:

-2: Strongly decreases the likelihood of the hypothesis
-1: Slightly decreases the likelihood of the hypothesis
0: No effect on the likelihood of the hypothesis
+1: Slightly increases the likelihood of the hypothesis
+2: Strongly increases the likelihood of the hypothesis

## Response format

Respond with "Rating: " followed by a rating (-2, -1, 0, +1, +2) and a brief explanation for your choice.

This is an exam, and you are required to provide a valid answer.
"""  # noqa: E501  (SCT-Bench's text, kept byte for byte)
TEST_CASE = """## Scenario

{{ scenario }}

## Hypothesis

{{ hypothesis }}

## Additional Information

{{ additional information }}

## Response"""
EXPLANATION = " and a brief explanation for your choice"


def check_args(args: Mapping[str, str]) -> None:
    """reason= is a boolean, as MedHELM's run entries write it."""
    value = args.get("reason", "False")
    if value not in (*TRUE, *FALSE):
        raise RunEntryError(f"reason={value} is not true or false", where="run entry for sct_bench",
                            fix="write reason=True or reason=False")


def prompt_text(stem: str, hypothesis: str, information: str, reason: bool = False) -> str:
    """The prompt MedHELM sends for one test case (before its generation layout's closing line break)."""
    guideline = GUIDELINE if reason else GUIDELINE.replace(EXPLANATION, "")
    return (guideline + TEST_CASE).replace("{{ scenario }}", stem).replace("{{ hypothesis }}", hypothesis) \
        .replace("{{ additional information }}", information)


@reader("sct_bench", check_args=check_args)
def read_sct_bench(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per complete row: the filled-in prompt, the panel's favourite rating, the panel's weights."""
    reason = args.get("reason", "False") in TRUE
    with paths[FILE].open(newline="", encoding="utf-8") as fh:
        rows = csv.DictReader(fh)
        require_columns(FILE, rows.fieldnames, REQUIRED)
        for number, row in enumerate(rows, start=2):
            if not row["sct_stem"] or not row["question"] or not row["additional_info"]:
                continue  # MedHELM skips an incomplete test case
            try:
                panel = [float(row[column]) for column in PANEL]
            except ValueError:
                raise ValueError(f"line {number}: an expert panel weight (-2 .. 2) is not a number") from None
            best = RATINGS[panel.index(max(panel))]
            text = prompt_text(row["sct_stem"], row["question"], row["additional_info"], reason)
            yield Instance(str(row["question_id"]), text, (Reference(best),),
                           extra=MappingProxyType({"expert_distribution": json.dumps(panel),
                                                   "source": row.get("source") or ""}))
