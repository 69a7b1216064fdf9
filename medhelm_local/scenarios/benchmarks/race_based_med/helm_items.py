"""Race-based medicine as MedHELM reads the supplement: its 167 items, so scores compare with its leaderboard.

MedHELM's loader (crfm-helm 0.5.16) reads the .docx with python-docx and keeps a paragraph as a run
when its text starts with "Run " and holds ": "; the response is every paragraph up to the next
such one (headings of the next question group included, blank paragraphs kept as empty lines), and
the answer is "yes" when any run of those paragraphs is coloured pure red. Its items pass through a
CSV file (so a carriage return reads as a line feed) and a dict keyed by the prompt, which merges
identical question-response pairs (the first place, the last answer). The same rules are applied
here with the standard library; `parse=runs` (race_based_med.py) keeps every run instead.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_RED = "FF0000"
# python-docx's text for a run's inner elements (a page or column break has none).
_INNER = {f"{_W}tab": "\t", f"{_W}ptab": "\t", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}


@dataclass(frozen=True)
class Paragraph:
    """A body paragraph as python-docx gives it: its text stripped, and whether one of its own runs is red."""

    text: str
    red: bool


def _run_text(run: ElementTree.Element) -> str:
    parts = []
    for element in run:
        if element.tag == f"{_W}t":
            parts.append(element.text or "")
        elif element.tag == f"{_W}br":
            parts.append("\n" if element.get(f"{_W}type", "textWrapping") == "textWrapping" else "")
        else:
            parts.append(_INNER.get(element.tag, ""))
    return "".join(parts)


def _is_red(run: ElementTree.Element) -> bool:
    color = run.find(f"{_W}rPr/{_W}color")
    return color is not None and (color.get(f"{_W}val") or "").upper() == _RED


def _paragraph(element: ElementTree.Element) -> Paragraph:
    texts: list[str] = []
    red = False
    for child in element:
        if child.tag == f"{_W}r":
            texts.append(_run_text(child))
            red = red or _is_red(child)  # python-docx's paragraph.runs: the paragraph's own runs only
        elif child.tag == f"{_W}hyperlink":
            texts.extend(_run_text(run) for run in child.findall(f"{_W}r"))
    return Paragraph("".join(texts).strip(), red)


def paragraphs(docx: Path) -> list[Paragraph]:
    """The body's paragraphs (not those inside tables), in order."""
    with zipfile.ZipFile(docx) as archive:
        root = ElementTree.fromstring(archive.read("word/document.xml"))
    body = root.find(f"{_W}body")
    if body is None:
        raise ValueError("word/document.xml has no body")
    return [_paragraph(p) for p in body.findall(f"{_W}p")]


def _starts_run(text: str) -> bool:
    return text.startswith("Run ") and ":" in text


def _through_csv(text: str) -> str:
    # MedHELM writes its items to a CSV file and reads them back in text mode: CR and CRLF become LF.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def helm_items(found: list[Paragraph]) -> Iterator[tuple[str, str, bool]]:
    """(question, response, harmful) for every item MedHELM's loader makes, before it merges duplicates."""
    for index, paragraph in enumerate(found):
        if not _starts_run(paragraph.text):
            continue
        parts = paragraph.text.split(": ", 1)
        if len(parts) < 2:
            continue  # e.g. "Run 2:" followed by a no-break space: MedHELM drops the run
        response: list[Paragraph] = []
        for following in found[index + 1:]:
            if _starts_run(following.text):
                break
            response.append(following)
        text = "\n".join(p.text for p in response).strip()
        yield _through_csv(parts[1].strip()), _through_csv(text), any(p.red for p in response)


def merged(items: Iterator[tuple[str, str, bool]], prompt: str) -> dict[str, tuple[str, str, bool]]:
    """Items by their prompt (`prompt` formatted with question and response), as MedHELM keys them: a repeated
    pair keeps its first place and takes the last answer."""
    by_prompt: dict[str, tuple[str, str, bool]] = {}
    for question, response, harmful in items:
        by_prompt[prompt.format(question=question, response=response)] = (question, response, harmful)
    return by_prompt
