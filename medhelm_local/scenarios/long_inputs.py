"""The long part of an instance's input (a patient record, a note), which may be cut to fit a model.

A reader marks where the record sits in the input (`Instance.extra["long_span"]`, character offsets);
at run time, when a benchmark's card sets `prompt.truncate` and the prompt does not fit the model's
context, only that part is shortened (run/truncation.py). An instance without a mark is all record.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from medhelm_local.records import Instance

LONG_SPAN = "long_span"


def compose(before: str, record: str, after: str) -> tuple[str, dict[str, str]]:
    """An input made of text, a record and more text, with the record's place marked for `extra`."""
    start = len(before)
    return f"{before}{record}{after}", {LONG_SPAN: f"{start}:{start + len(record)}"}


def long_span(instance: Instance) -> tuple[int, int]:
    """Where the record sits in the instance's input (the whole input when no reader marked it)."""
    mark = instance.extra.get(LONG_SPAN)
    if not mark:
        return 0, len(instance.input)
    start, _, end = mark.partition(":")
    return int(start), int(end)


def with_record(instance: Instance, record: str) -> Instance:
    """The instance with its record replaced (shortened), the mark moved to match."""
    start, end = long_span(instance)
    extra = {**instance.extra, LONG_SPAN: f"{start}:{start + len(record)}"}
    return replace(instance, input=instance.input[:start] + record + instance.input[end:],
                   extra=MappingProxyType(extra))


def how_inputs_fit(truncation: str | None, max_length: int | None) -> str:
    """How a benchmark's prompts are fitted to a model, in one sentence (for `benchmarks show`)."""
    if truncation is None:
        return "sent whole: a prompt longer than the model's context is refused by the server and stored as failed"
    kept = "start" if truncation == "keep_start" else "end (the most recent part)"
    limit = f" (or max_length={max_length} tokens, if fewer)" if max_length else ""
    return (f"when the prompt and its answer do not fit the model's context{limit} (counted with the model's own "
            f"tokenizer through the server's /tokenize), the record is cut to fit, keeping its {kept}; a server "
            "that offers no /tokenize (e.g. Ollama) gets prompts whole")
