"""The hand-annotated PHI note sets in tests/data/phi_notes/: read the authoring markup, build and load
the JSONL with character offsets (see that folder's README for how the notes were written).

Markup: a note starts with a header line `### <id> <style>`; its text runs to the next header (the
newline before the header is not part of it). An annotated value is written `{{TYPE|value}}` or
`{{TYPE/class|value}}` (class: what kind of the type, for reporting: `DATE/year2`, `NAME/clinician`);
`{{-|value}}` marks a borderline value that is scored neither way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "data" / "phi_notes"
SETS = ("independent", "dev", "dev2", "dev3", "dev4", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6",
        "heldout7", "heldout8", "heldout9", "heldout10", "heldout11", "dev5", "dev6", "dev7", "dev8", "dev9", "dev10",
        "dev11", "dev12", "dev13", "dev14", "dev15", "heldout12", "heldout13", "dev16", "dev17", "heldout14",
        "heldout15", "heldout16", "heldout17", "dev18", "dev19", "heldout18", "heldout19",
        "dev20", "dev21", "heldout20", "heldout21", "dev22", "dev23", "heldout22", "heldout23", "heldout24",
        "heldout25", "heldout26", "dev24", "dev25", "dev26", "heldout27", "heldout28", "heldout29", "heldout30",
        "heldout31", "dev27", "dev28", "dev29", "heldout32", "heldout33", "heldout34", "heldout35",
        "dev30", "dev31", "dev32", "dev33", "heldout36", "heldout37", "heldout38", "heldout39", "heldout40",
        "heldout42", "heldout43", "heldout41", "heldout44", "dev35", "dev36", "heldout46", "heldout47", "heldout45",
        "dev34", "heldout52", "heldout49", "heldout51", "heldout50", "heldout48", "dev37", "dev39", "dev38",
        "heldout56", "heldout57", "heldout53", "heldout54", "heldout55", "heldout58", "heldout59", "dev43", "dev40",
        "heldout61", "dev42", "heldout60", "dev41", "dev44", "dev45", "heldout62", "heldout63", "heldout64",
        "heldout65", "dev46", "dev47", "heldout66", "heldout67", "heldout68", "dev48", "dev49", "heldout69",
        "heldout70", "dev50", "heldout71", "heldout72", "dev51", "dev52", "dev53", "dev54", "heldout73",
        "heldout74", "heldout75", "heldout76", "heldout77", "heldout78", "dev55", "dev56", "dev57", "dev58",
        "heldout79", "heldout80", "heldout81", "heldout82", "heldout84", "heldout85", "heldout83", "heldout86",
        "dev59", "dev60", "dev61", "dev62", "dev63", "dev64", "heldout87", "dev65", "heldout88", "dev66", "dev68",
        "dev67", "heldout89", "heldout90")
NEUTRAL = "-"
_HEADER = re.compile(r"^### (\S+) (\S+)[ \t]*$", re.MULTILINE)
_MARK = re.compile(r"\{\{([A-Z_]+|-)(?:/([a-z0-9_]+))?\|([^{}|\n]+)\}\}")


@dataclass(frozen=True)
class GoldSpan:
    """One annotated value: `text[start:end]` is `value`, of `type` (and `cls`, or '')."""

    start: int
    end: int
    type: str
    cls: str
    value: str


@dataclass(frozen=True)
class PhiNote:
    """One note of a hand-annotated set."""

    id: str
    style: str
    text: str
    spans: tuple[GoldSpan, ...]


def parse_markup(markup: str) -> list[PhiNote]:
    """Notes from the authoring markup; a malformed mark (unclosed braces) raises ValueError."""
    headers = list(_HEADER.finditer(markup))
    notes = []
    for k, header in enumerate(headers):
        end = headers[k + 1].start() if k + 1 < len(headers) else len(markup)
        body = markup[header.end() + 1:end].rstrip("\n")
        text, spans, pos = [], [], 0
        length = 0
        for m in _MARK.finditer(body):
            text.append(body[pos:m.start()])
            length += m.start() - pos
            kind, cls, value = m.group(1), m.group(2) or "", m.group(3)
            spans.append(GoldSpan(length, length + len(value), kind, cls, value))
            text.append(value)
            length += len(value)
            pos = m.end()
        text.append(body[pos:])
        joined = "".join(text)
        if "{{" in joined or "}}" in joined:
            raise ValueError(f"note {header.group(1)}: a mark is not closed or holds a newline, '|' or brace")
        notes.append(PhiNote(header.group(1), header.group(2), joined, tuple(spans)))
    return notes


def to_jsonl(notes: list[PhiNote]) -> str:
    """The JSONL form: one note a line, spans with offsets, type, class and the annotated value."""
    lines = [json.dumps({"id": n.id, "style": n.style, "text": n.text,
                         "spans": [{"start": s.start, "end": s.end, "type": s.type, "class": s.cls,
                                    "text": s.value} for s in n.spans]}, ensure_ascii=False)
             for n in notes]
    return "\n".join(lines) + "\n"


def load(name: str, folder: Path = FOLDER) -> list[PhiNote]:
    """A set's notes from its JSONL file, each span checked against the text it names."""
    notes = []
    for number, line in enumerate((folder / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        spans = tuple(GoldSpan(s["start"], s["end"], s["type"], s["class"], s["text"]) for s in row["spans"])
        for s in spans:
            if row["text"][s.start:s.end] != s.value:
                raise ValueError(f"{name}.jsonl line {number}: span {s.start}-{s.end} does not hold {s.value!r}")
        notes.append(PhiNote(row["id"], row["style"], row["text"], spans))
    return notes


def build(folder: Path = FOLDER) -> None:
    """Rewrite every set's JSONL from its markup file."""
    for name in SETS:
        source = folder / f"{name}.txt"
        if source.exists():
            (folder / f"{name}.jsonl").write_text(to_jsonl(parse_markup(source.read_text(encoding="utf-8"))),
                                                  encoding="utf-8")


if __name__ == "__main__":
    build()
