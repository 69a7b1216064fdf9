"""MedXpertQA Text: expert-level medical questions with ten options (A-J), JSON lines.

Two published layouts are read, line by line: Hugging Face's `Text/test.jsonl` (the file MedHELM
reads: `options` an object A..J, `label` a letter) and the authors' GitHub evaluation format
(`options` a list of {letter, content} in order, `label` a one-letter list), e.g. their 244-question
sample. As in MedHELM, the input is the question as published (it ends with its own
"Answer Choices: (A) ..." line) and the options, in order, are the references.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader
from medhelm_local.scenarios.tabular import json_lines

TEST_FILE = "Text/test.jsonl"
CATEGORIES = ("medical_task", "body_system", "question_type")


def _options(item: dict[str, Any], number: int) -> tuple[list[tuple[str, str]], str]:
    """(letter, option) pairs in order and the correct letter, from either published layout."""
    options, label = item["options"], item["label"]
    if isinstance(options, dict):  # Hugging Face: {"A": "...", ...}, label "C"
        pairs = [(str(k), str(v)) for k, v in options.items()]
    elif isinstance(options, list):  # GitHub eval format: [{"letter": "A", "content": "..."}], label ["C"]
        pairs = [(str(o["letter"]), str(o["content"])) for o in options]
        if not isinstance(label, list) or len(label) != 1:
            raise ValueError(f"line {number}: label is not a one-letter list")
        label = label[0]
    else:
        raise ValueError(f"line {number}: options is neither an object nor a list")
    letters = [letter for letter, _ in pairs]
    if letters != [chr(65 + i) for i in range(len(pairs))] or len(pairs) < 2:
        raise ValueError(f"line {number}: the options are not lettered A, B, C, ... in order")
    if label not in letters:
        raise ValueError(f"line {number}: the label {str(label)[:8]!r} is not one of the options' letters")
    return pairs, str(label)


@reader("medxpert_qa_text")
def read_medxpert_qa_text(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per line: the question, its options as references, the correct one by its letter."""
    path = next(iter(paths.values()))
    for number, item in json_lines(path):
        pairs, label = _options(item, number)
        question = item["question"]
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"line {number}: the question is empty")
        extra = MappingProxyType({key: str(item[key]) for key in CATEGORIES if key in item})
        yield Instance(str(item["id"]), question, tuple(Reference(text, letter == label) for letter, text in pairs),
                       extra=extra)
