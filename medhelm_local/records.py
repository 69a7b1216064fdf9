"""The records that flow through the pipeline: one frozen dataclass per stage.

Instance -> Prompt -> Completion -> Score -> Aggregate. Each is written to the store as
soon as it exists, keyed by (run id, instance id).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType


def _frozen(mapping: Mapping[str, str] | None = None) -> Mapping[str, str]:
    return MappingProxyType(dict(mapping or {}))


class TaskType(StrEnum):
    """What kind of answer a benchmark expects; decides prompt shape and metric."""

    MULTIPLE_CHOICE = "multiple_choice"
    CALCULATION = "calculation"
    CLASSIFICATION = "classification"
    GENERATION = "generation"


@dataclass(frozen=True)
class Reference:
    """One reference answer; for multiple choice, one option, marked correct or not."""

    text: str
    correct: bool = True


@dataclass(frozen=True)
class Instance:
    """One evaluation item as read from a local dataset file."""

    id: str
    input: str
    references: tuple[Reference, ...]
    split: str = "test"
    extra: Mapping[str, str] = field(default_factory=_frozen)
    slices: Mapping[str, str] = field(default_factory=_frozen)  # the card's slice keys -> this instance's values

    @property
    def correct_references(self) -> tuple[Reference, ...]:
        """The references marked correct."""
        return tuple(r for r in self.references if r.correct)


@dataclass(frozen=True)
class Prompt:
    """What is sent to a model for one instance, with the decoding settings."""

    instance_id: str
    text: str
    max_tokens: int
    temperature: float = 0.0
    stop: tuple[str, ...] = ()
    logprobs: bool = False
    system: str | None = None
    json_schema: Mapping[str, object] | None = None  # ask the server for JSON matching this schema
    # Earlier turns of a conversation, (role, content) each, sent before `text` (the last user turn).
    history: tuple[tuple[str, str], ...] = ()
    cut_from_tokens: int | None = None  # its length in tokens before its record was cut to fit the model, if it was


@dataclass(frozen=True)
class Completion:
    """A model's answer to one prompt, or the reason there is none.

    A failed request is a Completion with ok=False and an error; it is stored and counted,
    never scored.
    """

    instance_id: str
    ok: bool
    text: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None
    attempts: int = 1
    error_type: str | None = None
    error_message: str | None = None
    logprobs_json: str | None = None
    reasoning: str | None = None  # a reasoning model's thinking: stored apart, never scored or shown as the answer
    # The reply as HELM's output processors leave it, where that differs from `text` (a chat template opened the
    # reasoning block, so HELM keeps the reasoning): what HELM's strict metrics read. Not stored.
    helm_text: str | None = None
    # The model build that answered, as the server named it (client.completions.served_model).
    served_model: str | None = None


@dataclass(frozen=True)
class Score:
    """One metric's value for one instance; `extracted` is the answer the metric read.

    A metric that could not score an answer (its scorer raised, or a database it needs failed)
    has `value` None and `error` saying why: the instance is counted as failed for that metric,
    never given a value.
    """

    instance_id: str
    metric: str
    value: float | None
    extracted: str | None = None
    detail: Mapping[str, object] | None = None  # what an aggregation needs: gold and read labels, code counts
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the metric produced a value."""
        return self.value is not None


@dataclass(frozen=True)
class Aggregate:
    """A metric over a run: its value over scored instances (a mean, or a run-level figure such as
    macro-F1), a 95 % interval, and the failures counted beside it. `detail` holds what a run-level
    figure is made of (per-label counts, a confusion table)."""

    metric: str
    n: int
    n_scored: int
    n_failed: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    detail: Mapping[str, object] | None = None

    @property
    def n_pending(self) -> int:
        """Instances neither scored nor failed (a run that has not finished)."""
        return self.n - self.n_scored - self.n_failed
