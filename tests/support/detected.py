"""What the default detector finds in a text, in forms tests can compare."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from medhelm_local.redact import detect

Case = Callable[[str], str]  # str, str.upper or str.lower

# A PHI test in the three cases a note reaches the detector in: as written, all capitals, all lower case (issue 32).
# The test takes `case: Case` and applies it to its text and the value it expects.
in_every_case = pytest.mark.parametrize("case", [str, str.upper, str.lower], ids=["as_written", "upper", "lower"])


def found(text: str) -> dict[str, list[str]]:
    """Detected strings by type."""
    out: dict[str, list[str]] = {}
    for span in detect(text):
        out.setdefault(span.type.value, []).append(text[span.start:span.end])
    return out


def flagged(text: str) -> list[str]:
    """Every detected string."""
    return [text[s.start:s.end] for s in detect(text)]


def covered(text: str, value: str) -> bool:
    """Whether every letter and digit of `value` (where it first occurs in `text`) lies inside a detected span."""
    start = text.index(value)
    spans = [(s.start, s.end) for s in detect(text)]
    return all(not ch.isalnum() or any(a <= pos < b for a, b in spans)
               for pos, ch in enumerate(text[start:start + len(value)], start))
