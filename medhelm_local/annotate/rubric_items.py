"""Grading each instance's own rubric items (HealthBench), one request per item and judge: met or not met.

HealthBench gives every conversation its own rubric: items with a criterion, points (negative for an
undesirable behaviour) and tags. A judge is shown the conversation ending in the model's answer and
one item (`[points] criterion`, as OpenAI's simple-evals writes it), and answers
`{"explanation": "...", "criteria_met": true|false}`. The judge's score for the instance is OpenAI's:
the points of the items met over the positive points (`metrics.health_bench`).

A grader file (`grader: 1`, shipped in `annotate/graders/`, or a card's own) holds the judges'
prompt, a template over `{conversation}` and `{rubric_item}`. The shipped one (`health_bench`) asks
what OpenAI's grader asks, in this project's words. A judge that fails on any item (unreachable,
unparseable, no verdict) leaves its rating of the instance failed, with the items it did grade kept
in the row and the failed ones named: nothing is guessed for an ungraded item.

The answer is data here as for every judge (`annotate.quoting`): in the conversation the last
assistant turn is the answer quoted between its marker lines, the judges are told so after the
prompt, and a reply is read without what it echoes of the answer, so a `"criteria_met": true` the
answer wrote never becomes a verdict; a reply whose only verdict was copied from it is a failure
(`echoed_answer`) for that item.
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from medhelm_local.annotate.parse import first_json_object
from medhelm_local.annotate.quoting import ECHOED_ANSWER, echoed, quotation_notice, quote_answer, read_own
from medhelm_local.annotate.rubric import Rubric, load_rubric, shipped
from medhelm_local.metrics.health_bench import example_score, rubric_items
from medhelm_local.records import Prompt
from medhelm_local.yaml_lines import load_located, validate_located

PLACEHOLDERS = ("conversation", "rubric_item")
GRADER_FIX = "see docs/jury.md, 'Graders of rubric items'"
VERDICT = "criteria_met"  # the key a judge's verdict on one item is written under
_SHOWN = 200


class ItemGrader(BaseModel):
    """A grader file (format version 1): the prompt each judge gets for one rubric item."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    grader: Literal[1] = 1
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = Field(min_length=3)
    system: str | None = Field(None, description="System prompt for the judges")
    prompt: str = Field(min_length=10, description="Template over {conversation} and {rubric_item}")
    max_tokens: int = Field(2048, ge=16, le=32_768, description="Room for the judge's JSON answer")
    explanation_characters: int = Field(1000, ge=1, le=10_000)

    @field_validator("prompt")
    @classmethod
    def _placeholders(cls, value: str) -> str:
        try:
            used = {f for _, f, _, _ in string.Formatter().parse(value) if f is not None}
        except ValueError as exc:
            raise ValueError(f"the prompt is malformed ({exc}); write a literal brace as {{{{ or }}}}") from None
        if used != set(PLACEHOLDERS):
            raise ValueError("the prompt must use exactly {conversation} and {rubric_item}")
        return value

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema the server constrains each verdict to."""
        return {"type": "object", "additionalProperties": False, "required": ["explanation", VERDICT],
                "properties": {"explanation": {"type": "string", "maxLength": self.explanation_characters},
                               VERDICT: {"type": "boolean"}}}

    def prompts(self, instance_id: str, response: str, extra: Mapping[str, str]) -> list[Prompt]:
        """One request per rubric item of the instance: the conversation ending in the answer (quoted), the item,
        and the notice that the quotation is data."""
        quoted, begins, ends = quote_answer(response)
        conversation = transcript([*messages_of(extra), {"role": "assistant", "content": quoted}])
        notice = quotation_notice(begins, ends)
        filled = (self.prompt.format(conversation=conversation, rubric_item=str(item)).rstrip()
                  for item in rubric_items(extra))
        return [Prompt(instance_id, f"{text}\n\n{notice}", max_tokens=self.max_tokens, temperature=0.0,
                       system=self.system, json_schema=self.json_schema()) for text in filled]

    def read(self, replies: Sequence[str], extra: Mapping[str, str], answer: str) -> ItemReading:
        """The verdicts of one judge on every item of an instance (replies to `answer`), and its score; or which
        items failed and why."""
        items = rubric_items(extra)
        ratings: dict[str, dict[str, Any]] = {}
        met: list[bool] = []
        problems: list[tuple[str, str]] = []
        for index, reply in enumerate(replies, start=1):
            verdict = read_verdict(reply, answer)
            if verdict.met is None:
                problems.append((verdict.failure or "unparseable", f"item {index}: {verdict.explanation}"))
                continue
            ratings[item_key(index)] = {"score": int(verdict.met), "explanation": verdict.explanation}
            met.append(verdict.met)
        if problems:
            return ItemReading(ratings, None, problems[0][0], "; ".join(m for _, m in problems))
        return ItemReading(ratings, example_score(items, met))


@dataclass(frozen=True)
class ItemReading:
    """One judge's verdicts on an instance's items (score 1 met, 0 not met), its score, or why it has none."""

    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)
    score: float | None = None
    error_type: str | None = None
    error_message: str | None = None

    @property
    def ok(self) -> bool:
        """True when every item has a verdict."""
        return self.error_type is None

    @property
    def mean(self) -> float | None:
        """The judge's score of the instance (OpenAI's rule; None when an item has no verdict)."""
        return self.score if self.ok else None


def item_key(index: int) -> str:
    """The key of the index-th (1-based) rubric item in a ratings row."""
    return f"item_{index:03d}"


def messages_of(extra: Mapping[str, str]) -> list[dict[str, str]]:
    """The conversation a reader stored with the instance (`messages`: a JSON list of {role, content})."""
    found = json.loads(extra.get("messages") or "[]")
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in found]


def transcript(messages: Sequence[Mapping[str, str]]) -> str:
    """A conversation as simple-evals shows it to its grader: `role: content`, turns apart by a blank line."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


@dataclass(frozen=True)
class Verdict:
    """A judge's reply on one item: met or not (None: no verdict, with the failure kind and its reason)."""

    met: bool | None
    explanation: str
    failure: str | None = None


def read_verdict(text: str, answer: str = "") -> Verdict:
    """The verdict in one reply to the answer under review (its first JSON object, possibly in a code fence or
    before other text), or why there is none."""
    verdict, copied = read_own(text, answer, (VERDICT,), _verdict, lambda v: v.met is not None)
    if copied:
        return Verdict(None, echoed("verdict", verdict.explanation), ECHOED_ANSWER)
    return verdict


def _verdict(text: str) -> Verdict:
    found, broken = first_json_object(text)
    if found is None or (broken and VERDICT not in found):
        # Nothing, or only a piece of an object that does not parse.
        what = "holds no JSON object" if found is None else "holds JSON that does not parse"
        return Verdict(None, f"the reply {what}: {' '.join(text.split())[:_SHOWN]!r}", "unparseable")
    if VERDICT not in found:
        return Verdict(None, f"the reply has no {VERDICT}", "missing_criterion")
    value = found[VERDICT]
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        value = value.strip().lower() == "true"
    if not isinstance(value, bool):
        return Verdict(None, f"{VERDICT} is {str(value)[:20]!r}, not true or false", "unparseable")
    explanation = found.get("explanation", "")
    return Verdict(value, explanation if isinstance(explanation, str) else json.dumps(explanation))


@lru_cache(maxsize=16)
def _read(path: Path) -> ItemGrader:
    doc = load_located(path, "grader file")
    grader: ItemGrader = validate_located(ItemGrader, doc, "grader file", GRADER_FIX)
    return grader


@lru_cache(maxsize=64)
def _is_grader_file(path: Path) -> bool:
    doc = load_located(path, "rubric file")
    return isinstance(doc.data, dict) and "grader" in doc.data


def shipped_graders() -> list[str]:
    """The names of the built-in graders of rubric items."""
    folder = resources.files("medhelm_local.annotate").joinpath("graders")
    return sorted(e.name.removesuffix(".yaml") for e in folder.iterdir() if e.name.endswith(".yaml"))


def load_grader(name: str, relative_to: Path | None = None, where: str = "rubric") -> Rubric | ItemGrader:
    """A rubric, or a grader of rubric items, by shipped name or file (relative to `relative_to`)."""
    if name in shipped_graders():
        return _read(Path(str(resources.files("medhelm_local.annotate").joinpath("graders").joinpath(f"{name}.yaml"))))
    if name in shipped():
        path = Path(str(resources.files("medhelm_local.annotate").joinpath("rubrics").joinpath(f"{name}.yaml")))
    else:
        path = Path(name)
        if not path.is_absolute() and relative_to is not None:
            path = Path(os.path.abspath(relative_to / path))  # links kept: a loop is reported, not raised
    if path.suffix in (".yaml", ".yml") and path.is_file() and _is_grader_file(path):
        return _read(path)
    return load_rubric(name, relative_to, where)
