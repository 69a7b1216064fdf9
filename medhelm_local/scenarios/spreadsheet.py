"""Excel workbooks (.xlsx) read with the standard library: the first sheet's rows, as text.

An .xlsx file is a zip of Office Open XML parts: the shared-string table holds the text and the
sheet refers to it by index. Reading those two parts needs no third-party package.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

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


def sheet_records(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(row number, {header: text}) for every row below the header row of the first sheet; empty cells are ""."""
    try:
        rows = iter(list(read_sheet_rows(path)))
    except (zipfile.BadZipFile, ElementTree.ParseError, KeyError) as exc:
        raise ValueError(f"the workbook cannot be read ({type(exc).__name__})") from None
    first = next(rows, None)
    if first is None:
        raise ValueError("the first sheet is empty")
    header = {column: name.strip() for column, name in first[1].items()}
    for number, cells in rows:
        yield number, {name: cells.get(column, "") for column, name in header.items()}
