"""What the default detector finds in a text, in forms tests can compare."""

from __future__ import annotations

from medhelm_local.redact import detect


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
