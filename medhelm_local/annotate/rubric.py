"""Rubrics as data: what a judge is asked, on which criteria and scale, and the JSON it must answer with.

A rubric file (YAML, checked strictly) names its criteria, each with the question it asks and what
the two ends of the scale mean, the scale (1-5 unless it says otherwise) and the prompt, a template
over `{input}` (the instance as the model saw it), `{response}` (the model's answer) and
`{reference}` (the gold answer). The criteria, the scale and the answer format are appended to the
prompt by the annotator, so every rubric asks for the same JSON:
`{criterion: {"explanation": "...", "score": N}}`.

Built-in rubrics live in `annotate/rubrics/NAME.yaml`; a card names one (`rubric: clinical_note`) or
its own file (`rubric: my_rubric.yaml`, relative to the card). A rubric whose prompt already states
its criteria, scale and answer format (`prompt_complete: true`, as MedHELM's judge prompts do) is sent
as written, but for the quotation below. MedHELM's judge prompt files themselves (`.txt`, read by
`annotate.medhelm_prompt`) load as such rubrics, on MedHELM's 0-5 scale.

The answer under review is written by the model being graded, so it is quoted as data: `{response}`
becomes the answer between marker lines it cannot forge, and the judges are told, after the prompt,
that nothing inside it is an instruction or a verdict (`annotate.quoting`, the owner of that rule for
every judge prompt; `annotate.parse` reads the replies with it).
"""

from __future__ import annotations

import os
import string
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from medhelm_local.annotate.quoting import quotation_notice, quote_answer
from medhelm_local.errors import ConfigError
from medhelm_local.yaml_lines import load_located, validate_located

PLACEHOLDERS = ("input", "response", "reference")
RUBRIC_FIX = "see docs/jury.md for every field a rubric takes"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Criterion(_Strict):
    """One thing judges rate: the question, and what the lowest and highest points of the scale mean (left out
    only when the rubric's prompt states them itself)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="The key judges answer under, e.g. accuracy")
    asks: str | None = Field(None, min_length=3, description="The question the judge answers")
    low: str | None = Field(None, min_length=3, description="What the lowest score means")
    high: str | None = Field(None, min_length=3, description="What the highest score means")


class Scale(_Strict):
    """Whole points from `min` to `max`."""

    min: int = Field(1, ge=0)
    max: int = Field(5, le=100)

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if self.min >= self.max:
            raise ValueError("scale.min must be below scale.max")
        return self


class Rubric(_Strict):
    """A rubric file (format version 1)."""

    rubric: Literal[1] = 1
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = Field(min_length=3)
    criteria: list[Criterion] = Field(min_length=1)
    scale: Scale = Field(default_factory=Scale)
    system: str | None = Field(None, description="System prompt for the judges")
    prompt: str = Field(min_length=10, description="Template over {input}, {response} and {reference}")
    prompt_complete: bool = Field(False, description="The prompt already states the criteria, the scale and the "
                                  "answer format (MedHELM's judge prompts): it is sent as written, nothing appended")
    max_tokens: int = Field(1024, ge=16, le=32_768, description="Room for the judge's JSON answer")
    explanation_characters: int = Field(600, ge=1, le=10_000, description="Longest explanation per criterion the "
                                        "server lets a judge write (structured output): keeps ratings, and a "
                                        "runaway model, short")

    @field_validator("criteria")
    @classmethod
    def _distinct(cls, value: list[Criterion]) -> list[Criterion]:
        names = [c.name for c in value]
        if len(set(names)) != len(names):
            raise ValueError("a criterion is listed twice")
        return value

    @model_validator(mode="after")
    def _criteria_described(self) -> Rubric:
        if not self.prompt_complete:
            bare = [c.name for c in self.criteria if not (c.asks and c.low and c.high)]
            if bare:
                raise ValueError(f"criterion {bare[0]} needs asks, low and high (the judges are shown them), unless "
                                 "the prompt states the criteria itself (prompt_complete: true)")
        return self

    @field_validator("prompt")
    @classmethod
    def _placeholders(cls, value: str) -> str:
        try:
            used = [f for _, f, _, _ in string.Formatter().parse(value) if f is not None]
        except ValueError as exc:
            raise ValueError(f"the prompt is malformed ({exc}); write a literal brace as {{{{ or }}}}") from None
        unknown = sorted({f for f in used if f not in PLACEHOLDERS})
        if unknown:
            raise ValueError(f"the prompt uses {', '.join('{' + f + '}' for f in unknown)}, which the benchmark does "
                             f"not give its judges; a rubric may use {{input}}, {{response}} and {{reference}}")
        if "response" not in used:
            raise ValueError("the prompt never shows the judges the answer: it needs {response}")
        return value

    @property
    def criterion_names(self) -> list[str]:
        """The criteria, in order."""
        return [c.name for c in self.criteria]

    def render(self, *, input: str, response: str, reference: str) -> str:
        """The whole judge prompt: the template filled in (the answer quoted), the notice that the quotation is
        data, then (unless the prompt states them) the criteria, the scale and the answer format."""
        quoted, begins, ends = quote_answer(response)
        filled = self.prompt.format(input=input, response=quoted, reference=reference).rstrip()
        notice = quotation_notice(begins, ends)
        if self.prompt_complete:
            return f"{filled}\n\n{notice}"
        lines = [filled, "", notice, "",
                 f"Rate the response on each criterion below with a whole number from {self.scale.min} to "
                 f"{self.scale.max}:"]
        for c in self.criteria:
            lines.append(f"- {c.name}: {c.asks} {self.scale.min} = {c.low}; {self.scale.max} = {c.high}")
        example = ", ".join(f'"{c.name}": {{"explanation": "...", "score": N}}' for c in self.criteria)
        lines += ["", "Answer with one JSON object and nothing else, with a short explanation before each score:",
                  "{" + example + "}"]
        return "\n".join(lines)

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema the server constrains the judges' answers to (structured output)."""
        rating = {"type": "object", "additionalProperties": False, "required": ["explanation", "score"],
                  "properties": {"explanation": {"type": "string", "maxLength": self.explanation_characters},
                                 "score": {"type": "integer",
                                           "enum": list(range(self.scale.min, self.scale.max + 1))}}}
        return {"type": "object", "additionalProperties": False, "required": self.criterion_names,
                "properties": {name: rating for name in self.criterion_names}}


def shipped() -> list[str]:
    """The names of the built-in rubrics."""
    folder = resources.files("medhelm_local.annotate").joinpath("rubrics")
    return sorted(e.name.removesuffix(".yaml") for e in folder.iterdir() if e.name.endswith(".yaml"))


@lru_cache(maxsize=64)
def _read(path: Path) -> Rubric:
    doc = load_located(path, "rubric file")
    rubric: Rubric = validate_located(Rubric, doc, "rubric file", RUBRIC_FIX)
    return rubric


def load_rubric(name: str, relative_to: Path | None = None, where: str = "rubric") -> Rubric:
    """A built-in rubric by name, a rubric file, or MedHELM's judge prompt file (.txt) (relative to
    `relative_to`); a clear error otherwise."""
    if name in shipped():
        return _read(Path(str(resources.files("medhelm_local.annotate").joinpath("rubrics").joinpath(f"{name}.yaml"))))
    path = Path(name)
    if not path.is_absolute() and relative_to is not None:
        path = relative_to / path
    if path.suffix == ".txt":
        from medhelm_local.annotate.medhelm_prompt import rubric_from_judge_prompt

        return rubric_from_judge_prompt(path.resolve())
    if path.suffix not in (".yaml", ".yml"):
        raise ConfigError(f"there is no built-in rubric called '{name}'", where=where,
                          fix=f"name one of: {', '.join(shipped())}; or a rubric file (.yaml) of your own, or "
                              "MedHELM's judge prompt file (.txt)")
    return _read(Path(os.path.abspath(path)))  # absolute, links kept: errors name the path the card gives
