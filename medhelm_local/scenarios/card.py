"""The benchmark card: one declaration per benchmark, built-in or a hospital's own.

A card says what the benchmark is (name, description, access level, taxonomy place, provenance,
licence, citation), where its data is (a CSV/JSONL/Parquet file beside the card, or a dataset
folder in the data root read by a named reader hook for a published format), the task (type,
labels, tolerance), the prompt (instructions, template, nouns, system prompt, few-shot examples,
length), the metrics (from the metric registry, main first), the rubric its LLM jury rates by, and
the run-entry arguments it takes.
Cards are checked strictly: an unknown field, a bad value, an unknown metric or one that cannot
score the task is an error naming the field and its line.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from medhelm_local.errors import ConfigError

NAME_PATTERN = r"^[a-z][a-z0-9_]*$"
TaskName = Literal["multiple_choice", "classification", "calculation", "generation"]
# Which part of a long input (a record) is kept when the prompt does not fit the model's context.
Truncation = Literal["keep_start", "keep_end"]
# Placeholders the prompt fills in itself; every other {name} is a data column.
PROMPT_FIELDS = frozenset({"options", "labels"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CardTaxonomy(_Strict):
    """Where the benchmark sits in MedHELM's taxonomy (an existing subcategory, or a new one)."""

    subcategory: str
    category: str | None = Field(None, description="Required only for a subcategory MedHELM does not have")
    task: str | None = Field(None, description="The clinical task within the subcategory")


class CardColumns(_Strict):
    """Which data columns hold what (cards with their own data file)."""

    id: str | None = None
    reference: str | None = Field(None, description="The column with the correct answer; a generation card rated "
                                  "only by a jury may have none")
    choices: list[str] | str | None = Field(None, description="Option columns, or one column with a JSON list")
    long: str | None = Field(None, description="The column holding the record: with prompt.truncate, the part "
                             "cut to fit the model's context")


class CardTolerance(_Strict):
    """Numeric answers within `absolute` or `relative` of the reference count as correct."""

    absolute: float | None = Field(None, ge=0)
    relative: float | None = Field(None, ge=0)


class CardTask(_Strict):
    """What kind of answer the benchmark expects."""

    type: TaskName
    labels: list[str] | None = Field(None, min_length=2, description="Classification: the label set")
    synonyms: dict[str, str] = Field(default_factory=dict, description="Words that name a label, e.g. factual: '0'")
    tolerance: CardTolerance | None = None

    @model_validator(mode="after")
    def _complete(self) -> CardTask:
        if self.type == "classification" and not self.labels:
            raise ValueError("a classification task needs labels, e.g. labels: [\"yes\", \"no\"]")
        if self.labels and len(set(self.labels)) != len(self.labels):
            raise ValueError("task.labels lists a label twice")
        unknown = sorted(set(self.synonyms.values()) - set(self.labels or []))
        if unknown:
            raise ValueError(f"task.synonyms name label(s) not in task.labels: {', '.join(unknown)}")
        return self


class CardFewShot(_Strict):
    """In-context examples: `k` drawn with a seed from a file or split that is never the evaluated one."""

    k: int = Field(ge=1, le=64)
    file: str | None = Field(None, description="A data file with the same columns, relative to the card")
    split: str | None = Field(None, description="A split the reader can read, e.g. train")
    seed: int = 0

    @model_validator(mode="after")
    def _one_source(self) -> CardFewShot:
        if (self.file is None) == (self.split is None):
            raise ValueError("few_shot needs exactly one of file (a data file) or split (a reader split)")
        return self


class CardPrompt(_Strict):
    """The prompt: instructions, the input (a template over the data columns), and the answer cue."""

    template: str = Field("{input}", min_length=1, description="{column} placeholders, {options}, {labels}")
    instructions: str = ""
    system: str | None = None
    input_noun: str | None = Field(None, description='Written before the input, e.g. "Question"')
    output_noun: str | None = Field(None, description='The answer cue ending the prompt, e.g. "Answer"')
    nouns_on_own_line: bool = Field(False, description="Break the line after the input noun and the answer cue "
                                    "(HELM's newline_after_input_noun / newline_after_output_noun)")
    max_tokens: int = Field(16, ge=1, le=100_000)
    stop: list[str] = Field(default_factory=list)
    few_shot: CardFewShot | None = None
    truncate: Truncation | None = Field(None, description="When the prompt does not fit the model's context, cut "
                                        "the input's long part (the record) to fit, keeping its start or its end")
    conversation: bool = Field(False, description="Send each instance's conversation (its reader's messages) as "
                               "chat turns, as they are (HELM's chat adapter): no instructions, nouns or template")

    @model_validator(mode="after")
    def _conversation_alone(self) -> CardPrompt:
        if self.conversation and (self.instructions or self.input_noun or self.output_noun or self.few_shot
                                  or self.template != "{input}"):
            raise ValueError("prompt.conversation sends the conversation as it is: leave out instructions, "
                             "input_noun, output_noun, few_shot and template")
        return self

    @field_validator("template")
    @classmethod
    def _parsable(cls, value: str) -> str:
        try:
            template_fields(value)
        except ConfigError as exc:
            raise ValueError(exc.what) from None
        return value


class CardData(_Strict):
    """The data: a file beside the card (optionally pinned, optionally in a MedHELM private format), or a
    data-root folder read by a reader hook."""

    file: str | None = None
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    format: str | None = Field(None, description="A private-benchmark format hook that reads the file (or folder) "
                               "into rows, e.g. shc_med, clear")
    folder: str | None = None
    files: list[str] | None = Field(None, description="Default: every file of the folder's shipped checksums, or of "
                                    "its MANIFEST.json for data brought in with `data import`")
    reader: str | None = Field(None, description="The format hook that reads a published layout")
    below_data_path: str | None = Field(None, description="Where the files sit below MedHELM's data_path= argument, "
                                        "e.g. files/discharge-me/1.3")

    @model_validator(mode="after")
    def _one_kind(self) -> CardData:
        if self.file is None and (self.folder is None or self.reader is None):
            raise ValueError("data needs file (a data file beside the card) or folder and reader (a published "
                             "dataset in the data root)")
        if self.file is not None and (self.folder is not None or self.reader is not None):
            raise ValueError("data takes either file, or folder with reader, not both")
        if self.format is not None and self.file is None:
            raise ValueError("data.format reads a card's own file: give data.file too")
        return self


class CardMetrics(_Strict):
    """Metrics by registry name. `main` may list preferences: the first whose needs are met is main
    (e.g. execution accuracy when a database is given, else SQL match)."""

    main: str | list[str]
    also: list[str] = Field(default_factory=list)

    @property
    def preferences(self) -> list[str]:
        """Main-metric candidates, in order."""
        return [self.main] if isinstance(self.main, str) else list(self.main)


class CardArg(_Strict):
    """A run-entry argument the benchmark takes."""

    help: str
    choices: list[str] | None = None
    default: str | None = None
    files: dict[str, list[str]] = Field(default_factory=dict, description="Files a value reads besides data.files, "
                                        "e.g. split: {dev+test: [phrases_no_exclude_dev.jsonl]}")

    @model_validator(mode="after")
    def _files_for_choices(self) -> CardArg:
        unknown = sorted(set(self.files) - set(self.choices or ()))
        if unknown:
            raise ValueError(f"args files name value(s) that are not among the choices: {', '.join(unknown)}")
        return self


class CardComparability(_Strict):
    """Why the benchmark's scores cannot be set beside published MedHELM results, and the run-entry arguments
    that reproduce MedHELM's behaviour (then they can)."""

    reason: str = Field(min_length=1)
    unless: dict[str, str] = Field(default_factory=dict, description="Run-entry arguments that make a run "
                                   "comparable, e.g. {helm_compat: 'true'}")


class Card(_Strict):
    """A benchmark card (format versions 1 and 2; 1 named its main metric with `metric`)."""

    card: Literal[1, 2] = 2
    name: str = Field(pattern=NAME_PATTERN, description="Run-entry name, e.g. sepsis_triage")
    aliases: list[str] = Field(default_factory=list, description="Other run-entry names MedHELM uses")
    display_name: str | None = None
    description: str
    access: Literal["public", "gated", "private"]
    taxonomy: CardTaxonomy
    provenance: str | None = None
    licence: str | None = None
    citation: str | None = None
    data: CardData
    task: CardTask
    columns: CardColumns | None = None
    prompt: CardPrompt
    metric: str | None = Field(None, description="Format 1: the main metric (format 2: metrics.main)")
    metrics: CardMetrics | None = None
    args: dict[str, CardArg] = Field(default_factory=dict)
    rubric: str | None = Field(None, description="What the LLM jury rates (jury_score): a shipped rubric's name, e.g. "
                               "clinical_note, or a rubric file relative to the card")
    notes: str | None = Field(None, description="How this benchmark differs from MedHELM's, for `benchmarks show`")
    slices: list[str] = Field(default_factory=list, description="Columns of the card's data file to aggregate every "
                              "metric by as well (e.g. section_header, age_band, sex): each value's mean with its "
                              "interval and counts, and the largest gap between values")
    not_comparable: CardComparability | None = Field(None, description="Set when its scores cannot be set beside "
                                                     "published MedHELM results: why, and what makes a run comparable")

    @model_validator(mode="after")
    def _consistent(self) -> Card:
        if self.data.file is not None and self.columns is None:
            raise ValueError("a card with its own data file needs columns (at least columns.reference)")
        if self.columns is not None and self.columns.reference is None and self.task.type != "generation":
            raise ValueError(f"a {self.task.type} card needs columns.reference (the column with the correct answer)")
        if self.task.type == "multiple_choice" and self.data.file is not None and not (
                self.columns and self.columns.choices):
            raise ValueError("a multiple_choice card needs columns.choices (the option columns)")
        if self.metric is not None and self.metrics is not None:
            raise ValueError("give metrics (main, also), or the older metric, not both")
        if self.columns and self.columns.long and self.columns.long not in template_fields(self.prompt.template):
            raise ValueError(f"columns.long names '{self.columns.long}', which the prompt template does not place")
        if self.prompt.few_shot and self.prompt.few_shot.file and self.prompt.few_shot.file == self.data.file:
            raise ValueError("prompt.few_shot.file is the evaluated data file: examples must come from elsewhere")
        if self.slices and self.data.file is None:
            raise ValueError("slices name columns of the card's own data file (data.file); a card read by a reader "
                             "hook has none")
        if len(set(self.slices)) != len(self.slices):
            raise ValueError("slices names a column twice")
        unknown = sorted(set(self.not_comparable.unless) - set(self.args)) if self.not_comparable else []
        if unknown:
            raise ValueError(f"not_comparable.unless names argument(s) the card does not take: {', '.join(unknown)}")
        return self

    def comparability(self, args: Mapping[str, str], defaults: bool = True) -> str | None:
        """Why a run with these arguments (and the card's defaults for the others, unless `defaults` is False)
        cannot be set beside published MedHELM results (None: it can)."""
        found = self.not_comparable
        if found is None:
            return None
        given = {**{k: a.default for k, a in self.args.items() if a.default is not None}, **args} if defaults else args
        return None if found.unless and all(given.get(k) == v for k, v in found.unless.items()) else found.reason

    @property
    def metric_names(self) -> tuple[list[str], list[str]]:
        """(main-metric preferences, other metrics) with the task type's defaults filled in."""
        if self.metrics is not None:
            return self.metrics.preferences, list(self.metrics.also)
        main = self.metric or DEFAULT_METRICS[self.task.type][0]
        also = [m for m in DEFAULT_METRICS[self.task.type] if m != main]
        return [main], also

    @property
    def lettered(self) -> bool:
        """True when the prompt letters the options or labels, so a letter may name one."""
        return self.task.type == "multiple_choice" or "options" in template_fields(self.prompt.template)


DEFAULT_METRICS: dict[str, tuple[str, ...]] = {
    "multiple_choice": ("exact_match", "helm_exact_match"),
    "classification": ("exact_match", "macro_f1", "helm_exact_match"),
    "calculation": ("numeric_tolerance",),
    "generation": ("rouge_l",),
}


def template_fields(template: str) -> list[str]:
    """The placeholder names a template uses, or an error saying how to write one."""
    try:
        return [f for _, f, _, _ in string.Formatter().parse(template) if f]
    except ValueError as exc:
        raise ConfigError(f"the prompt template is malformed ({exc})", where="prompt.template",
                          fix="write placeholders as {column}; write a literal brace as {{ or }}") from None
