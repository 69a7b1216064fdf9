"""MedicationQA: consumers' questions about medications with the MedInfo 2019 gold-standard answers,
read from the workbook with the standard library (Office Open XML parts)."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from xml.etree import ElementTree

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

WORKBOOK = "MedInfo2019-QA-Medications.xlsx"
_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_COLUMN = re.compile(r"[A-Z]+")


def _cell_text(cell: ElementTree.Element, shared: list[str]) -> str:
    """The text of one sheet cell: shared string, inline string, or the literal value."""
    kind = cell.get("t")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{_NS}t"))
    value = cell.find(f"{_NS}v")
    raw = (value.text or "") if value is not None else ""
    return shared[int(raw)] if kind == "s" else raw


def read_sheet_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(row number, {column letter: text}) for every row of the workbook's first sheet; empty cells left out.

    Reads the Office Open XML parts with the standard library: the shared-string table holds the
    text, the sheet refers to it by index.
    """
    with zipfile.ZipFile(path) as book:
        shared: list[str] = []
        if "xl/sharedStrings.xml" in book.namelist():
            table = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
            # A shared string is plain (<t>) or rich text (<r><t>...); phonetic hints (<rPh>) are not text.
            shared = ["".join(t.text or "" for r in item if r.tag != f"{_NS}rPh" for t in r.iter(f"{_NS}t"))
                      for item in table.iter(f"{_NS}si")]
        sheet = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    for row in sheet.iter(f"{_NS}row"):
        cells: dict[str, str] = {}
        for cell in row.iter(f"{_NS}c"):
            column = _COLUMN.match(cell.get("r", ""))
            if column is None:
                raise ValueError(f"row {row.get('r')}: a cell has no column reference")
            text = _cell_text(cell, shared)
            if text:
                cells[column.group()] = text
        yield int(row.get("r", "0")), cells


@reader("medication_qa")
def read_medication_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per sheet row with an answer (MedHELM drops the others), keyed by its row number."""
    try:
        rows = list(read_sheet_rows(paths[WORKBOOK]))
    except (zipfile.BadZipFile, ElementTree.ParseError) as exc:
        raise ValueError(f"the workbook cannot be read ({exc})") from None
    if not rows:
        raise ValueError("the first sheet is empty")
    _, header = rows[0]
    by_name = {name: column for column, name in header.items()}
    missing = [name for name in ("Question", "Answer") if name not in by_name]
    if missing:
        raise ValueError(f"the first row lacks the column(s) {', '.join(missing)}")
    question, answer = by_name["Question"], by_name["Answer"]
    for number, cells in rows[1:]:
        if not cells.get(answer):
            continue
        if not cells.get(question):
            raise ValueError(f"row {number} has an answer but no question")
        extra = MappingProxyType({"focus": cells.get(by_name.get("Focus (Drug)", ""), ""),
                                  "question_type": cells.get(by_name.get("Question Type", ""), "")})
        yield Instance(f"row-{number:04d}", cells[question], (Reference(cells[answer]),), extra=extra)
