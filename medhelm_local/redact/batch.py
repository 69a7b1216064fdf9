"""JSONL in, JSONL out: `scan` writes PHI spans per document, `apply` writes redacted text.

Input lines are {"id": str or int, "text": str}; blank lines are skipped. A line that is not UTF-8,
not JSON, or not such an object stops the run with an error naming the line, and the output file
is not touched: results go to a temporary file beside it, renamed over it only at the end.
`apply` writes only {"id", "text"}, so no other field of the input can carry PHI through.

A text longer than `WINDOW` characters (a whole chart on one line) is detected window by window,
each with `CONTEXT` characters of context either side, so memory stays bounded by the window, not
the line; a name found in one window still marks its other mentions in the whole text.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from medhelm_local.errors import MedhelmError
from medhelm_local.output_paths import refuse_unsafe_output
from medhelm_local.redact.detector import Detector
from medhelm_local.redact.surrogates import DocumentSurrogates, Policy, Style, mask
from medhelm_local.redact.types import PhiType, Span, merge_spans
from medhelm_local.safe_parse import parse_json

WINDOW = 32_768  # characters detected at once
CONTEXT = 1_024  # characters of context either side of a window: more than any span or cue reaches
MAX_LINE = 32 << 20  # bytes in one input line (one document)
_WORD = re.compile(r"\w+")


class RedactionInputError(MedhelmError):
    """A JSONL input file for `redact scan`/`apply` is unreadable or has a malformed line."""


@dataclass(frozen=True)
class BatchResult:
    """What a batch run did: documents read and spans found."""

    documents: int
    spans: int


def read_documents(path: Path) -> Iterator[tuple[int, str | int, str]]:
    """(line number, id, text) for each non-blank line; RedactionInputError names a bad line."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise RedactionInputError(f"cannot read the input file ({exc.strerror})", where=str(path),
                                  fix="check the path given to --input") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise RedactionInputError("the input file is not a regular file (a folder, pipe or device)", where=str(path),
                                  fix="give a JSON-lines file to --input")
    with os.fdopen(fd, "rb") as handle:
        for number, raw in enumerate(iter(lambda: handle.readline(MAX_LINE + 1), b""), 1):
            where = f"{path}, line {number}"
            if len(raw) > MAX_LINE:
                raise RedactionInputError(f"line {number} is longer than {MAX_LINE >> 20} MiB", where=where,
                                          fix="split the document, or check that this is a JSON-lines file")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RedactionInputError(f"line {number} is not valid UTF-8 (byte {exc.start + 1} of the line)",
                                          where=where, fix="re-encode the file as UTF-8") from None
            if not line.strip():
                continue
            item = parse_json(line.rstrip("\r\n"), str(path), f"input line {number}", error=RedactionInputError,
                              first_line=number)
            yield number, *_fields(item, number, where)


def _fields(item: Any, number: int, where: str) -> tuple[str | int, str]:
    if not isinstance(item, dict):
        raise RedactionInputError(f"line {number} is a JSON {type(item).__name__}, not an object", where=where,
                                  fix='write one JSON object per line: {"id": ..., "text": ...}')
    doc_id, text = item.get("id"), item.get("text")
    if isinstance(doc_id, bool) or not isinstance(doc_id, str | int):
        raise RedactionInputError(f"line {number} has no \"id\" string or integer", where=where,
                                  fix='give every line an "id"')
    if not isinstance(text, str):
        raise RedactionInputError(f"line {number} has no \"text\" string", where=where,
                                  fix='give every line a "text" string')
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise RedactionInputError(f"line {number} has a lone surrogate escape (\\ud800-\\udfff) in \"text\"",
                                  where=where, fix="fix the text's encoding") from None
    return doc_id, text


@contextmanager
def atomic_output(path: Path) -> Iterator[IO[str]]:
    """A text file that appears at `path` only if the block finishes; otherwise nothing is left. A `path` that
    is there but not a regular file (a link, FIFO or device) is refused first."""
    refuse_unsafe_output(path, RedactionInputError, "--output")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise RedactionInputError(f"cannot write the output file ({exc.strerror})", where=str(path),
                                  fix="check that its folder exists and is writable") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
        os.replace(temp, path)
    except BaseException as exc:
        Path(temp).unlink(missing_ok=True)
        if isinstance(exc, OSError):  # a full disk while writing, a folder that became read-only
            raise RedactionInputError(f"cannot write the output file ({exc.strerror or exc}); nothing was left "
                                      "half-written", where=str(path),
                                      fix="free space on that disk or choose another folder, then run it again"
                                      ) from None
        raise


def _cut(text: str, at: int) -> int:
    """A cut point at or just before `at` that splits no word (at most 64 characters back)."""
    if at <= 0 or at >= len(text):
        return max(0, min(at, len(text)))
    for back in range(at, max(0, at - 64), -1):
        if text[back - 1].isspace():
            return back
    return at


def detect_long(detector: Detector, text: str) -> list[Span]:
    """`detector.detect(text)`, in bounded memory for texts longer than one window."""
    if len(text) <= WINDOW + 2 * CONTEXT:
        return detector.detect(text)
    spans: list[Span] = []
    start = 0
    while start < len(text):
        end = _cut(text, start + WINDOW) if start + WINDOW < len(text) else len(text)
        end = end if end > start else min(len(text), start + WINDOW)
        low, high = _cut(text, start - CONTEXT), _cut(text, end + CONTEXT) if end < len(text) else len(text)
        spans += [Span(s.start + low, s.end + low, s.type) for s in detector.detect(text[low:high])
                  if start <= s.start + low < end]
        start = end
    return merge_spans(spans + _other_mentions(text, spans))


def _other_mentions(text: str, spans: list[Span]) -> list[Span]:
    """Every whole-word mention, anywhere in `text`, of a word of a name found in some window."""
    names = {w for s in spans if s.type == PhiType.NAME for w in _WORD.findall(text[s.start:s.end])
             if len(w) >= 3 and w.isalpha()}
    return [Span(m.start(), m.end(), PhiType.NAME) for m in _WORD.finditer(text) if m.group() in names]


def _run(input_path: Path, output_path: Path, detector: Detector,
         line_for: Callable[[str | int, str, list[Any]], dict[str, Any]]) -> BatchResult:
    documents = spans_found = 0
    with atomic_output(output_path) as out:
        for _number, doc_id, text in read_documents(input_path):
            spans = detect_long(detector, text)
            out.write(json.dumps(line_for(doc_id, text, spans), ensure_ascii=False) + "\n")
            documents += 1
            spans_found += len(spans)
    return BatchResult(documents, spans_found)


def scan_file(input_path: Path, output_path: Path, detector: Detector) -> BatchResult:
    """Write {"id", "spans": [{"start", "end", "type"}]} per input line (end-exclusive code points)."""
    return _run(input_path, output_path, detector,
                lambda doc_id, text, spans: {"id": doc_id, "spans": [s.to_dict() for s in spans]})


def apply_file(input_path: Path, output_path: Path, detector: Detector, policy: Policy, style: Style,
               key: bytes | None = None) -> BatchResult:
    """Write {"id", "text"} per input line with PHI masked or replaced by surrogates."""
    secret = key if key is not None else os.urandom(32)

    def redact(doc_id: str | int, text: str, spans: list[Any]) -> dict[str, Any]:
        if style == "mask":
            return {"id": doc_id, "text": mask(text, spans, policy.mask_format)}
        doc = DocumentSurrogates(secret, str(doc_id), policy, detector.words)
        return {"id": doc_id, "text": doc.apply(text, spans)}

    return _run(input_path, output_path, detector, redact)
