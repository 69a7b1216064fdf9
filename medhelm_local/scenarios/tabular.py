"""A card's own data file (CSV, JSONL or Parquet) read row by row into instances.

Rows are streamed, never held all at once. Every problem names the file and the row: a missing
column, a row with a column left empty that the card needs, a reference that is not an option or
label. MedHELM's configurable-benchmark CSV (correct_answer, optional since MedHELM lets a jury-only
benchmark go without; incorrect_answers as a JSON list) is read too.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from medhelm_local.errors import ConfigError, DatasetCorruptError, DatasetMissingError
from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.card import PROMPT_FIELDS, Card, template_fields
from medhelm_local.scenarios.long_inputs import compose
from medhelm_local.scenarios.prompting import LETTERS, lettered_options

PARQUET_BATCH = 1024
# Clinical notes pass csv's default field limit (128 KiB); MedHELM lifts it for its private CSVs too.
CSV_FIELD_LIMIT = 1 << 30
csv.field_size_limit(CSV_FIELD_LIMIT)
_LONG = "\x00long\x00"


def require_columns(where: str, have: Iterable[str] | None, wanted: Sequence[str]) -> None:
    """Raise ValueError naming the columns `where` lacks."""
    present = set(have or [])
    missing = [c for c in wanted if c not in present]
    if missing:
        raise ValueError(f"{where} lacks column(s) {', '.join(missing)}")


def delimited_rows(path: Path, delimiter: str = ",") -> Iterator[dict[str, str]]:
    """Rows of a CSV (or, with delimiter "\\t", TSV) file, gzip-compressed when its name ends in .gz; streamed."""
    opened = gzip.open(path, "rt", newline="", encoding="utf-8-sig") if path.suffix == ".gz" else \
        path.open(newline="", encoding="utf-8-sig")
    with opened as fh:
        reader = csv.DictReader(fh, delimiter=delimiter)
        for row in reader:
            if None in row:  # more fields than the header names: a stray delimiter shifts the columns after it
                extra = row[None]
                raise ValueError(f"{path.name}, line {reader.line_num}: {len(extra)} field(s) more than the header's "
                                 f"{len(reader.fieldnames or [])} columns")
            # A short row leaves its last columns None: keep them visible as missing, not as "None".
            yield {k: v for k, v in row.items() if v is not None}


def _csv_rows(path: Path) -> Iterator[dict[str, str]]:
    return delimited_rows(path)


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSON-lines file; a line that is not an object is named."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                item = json.loads(line)
                if not isinstance(item, dict):
                    raise ValueError(f"line {number} is not a JSON object")
                yield number, item


def _jsonl_rows(path: Path) -> Iterator[dict[str, str]]:
    for _, item in json_lines(path):
        yield {k: v if isinstance(v, str) else json.dumps(v) for k, v in item.items() if v is not None}


def _parquet_rows(path: Path) -> Iterator[dict[str, str]]:
    import pyarrow.parquet as pq

    for batch in pq.ParquetFile(path).iter_batches(batch_size=PARQUET_BATCH):
        for row in batch.to_pylist():
            yield {k: str(v) for k, v in row.items() if v is not None}


_FORMATS = {".csv": _csv_rows, ".jsonl": _jsonl_rows, ".ndjson": _jsonl_rows, ".parquet": _parquet_rows}


def read_rows(path: Path) -> Iterator[dict[str, str]]:
    """Rows of a CSV, JSONL or Parquet file as strings, streamed; a problem names the file."""
    if not path.is_file():
        raise DatasetMissingError("the card's data file is missing", where=str(path),
                                  fix="put the file there, or correct data.file in the card")
    rows = _FORMATS.get(path.suffix.lower())
    if rows is None:
        raise ConfigError(f"data files must be .csv, .jsonl or .parquet, not {path.suffix or 'no extension'}",
                          where=str(path), fix="convert the file, or point data.file at the right one")
    try:
        yield from rows(path)
    except (UnicodeDecodeError, ValueError, OSError, csv.Error) as exc:
        raise DatasetCorruptError(f"the data file cannot be read ({str(exc)[:120]})", where=str(path),
                                  fix="check it is complete UTF-8 CSV, JSONL or Parquet") from None
    except Exception as exc:  # pyarrow raises its own types for a damaged Parquet file
        raise DatasetCorruptError(f"the data file cannot be read ({type(exc).__name__})", where=str(path),
                                  fix="check it is a complete Parquet file") from None


BLANK_SLICE = "(blank)"  # the slice of instances whose slice column is empty


def named_columns(card: Card) -> list[str]:
    """Every data column the card uses: id, reference, choices and the template's placeholders."""
    columns = card.columns
    if columns is None:
        return []
    named = [*([columns.reference] if columns.reference else []),
             *(f for f in template_fields(card.prompt.template) if f not in PROMPT_FIELDS)]
    if columns.id:
        named.append(columns.id)
    if isinstance(columns.choices, list):
        named += columns.choices
    elif columns.choices:
        named.append(columns.choices)
    return list(dict.fromkeys([*named, *card.slices]))


def _choices(card: Card, row: dict[str, str]) -> list[str]:
    spec = card.columns.choices if card.columns else None
    if isinstance(spec, list):
        return [row[c] for c in spec if row.get(c, "").strip()]
    values = json.loads(row[spec]) if spec else []
    if not isinstance(values, list):
        raise TypeError("the choices column is not a JSON list")
    return [str(v) for v in values]


def _references(card: Card, row: dict[str, str], where: str) -> tuple[tuple[Reference, ...], list[str]]:
    """The instance's references and the options (or labels) its prompt lists."""
    column = card.columns.reference if card.columns else None
    if column is None:
        return (), []  # a generation card rated only by a jury: no gold answer
    reference = row[column]
    if card.task.type == "multiple_choice":
        try:
            options = _choices(card, row)
        except (ValueError, TypeError):
            raise DatasetCorruptError(f"{where}: the choices column is not a JSON list", where=where,
                                      fix="write choices as a JSON list, e.g. [\"yes\", \"no\"]") from None
        lettered = len(reference) == 1 and "A" <= reference <= LETTERS[max(len(options) - 1, 0)]
        if reference not in options and not lettered:
            raise DatasetCorruptError(f"{where}: the reference is neither an option nor an option letter",
                                      where=where, fix="make the reference column hold the correct option")
        correct = reference if reference in options else options[ord(reference) - 65]
        return tuple(Reference(o, o == correct) for o in options), options
    if card.task.type == "classification":
        labels = card.task.labels or []
        if reference not in labels:
            raise DatasetCorruptError(f"{where}: the reference is not one of task.labels", where=where,
                                      fix="fix the row, or add the label to task.labels")
        return tuple(Reference(label, label == reference) for label in labels), labels
    return (Reference(reference),), []


def row_instances(card: Card, rows: Iterable[dict[str, str]], where: str,
                  incorrect: str | None = None) -> Iterator[Instance]:
    """Instances from rows, after checking each row has every column the card names (`incorrect`: a column of
    wrong answers as a JSON list, MedHELM's `incorrect_answers`, kept as references that are not correct)."""
    wanted = named_columns(card)
    fields = template_fields(card.prompt.template)
    empty = True
    for number, row in enumerate(rows, start=1):
        empty = False
        at = f"{where}, row {number}"
        missing = [c for c in wanted if c not in row]
        if missing:
            have = ", ".join(sorted(row))
            what = "the data has no" if number == 1 else f"row {number} has no value for"
            raise DatasetCorruptError(f"{what} column(s) {', '.join(missing)} (it has: {have})", where=at,
                                      fix="fill the row in, rename the column in the data, or correct the card")
        references, options = _references(card, row, at)
        if incorrect is not None:
            references += incorrect_answers(row, incorrect, at)
        values = {k: row[k] for k in fields if k not in PROMPT_FIELDS}
        if "options" in fields:
            values["options"] = lettered_options(options).rstrip("\n")
        if "labels" in fields:
            values["labels"] = ", ".join(card.task.labels or [])
        id_column = card.columns.id if card.columns else None
        ident = row[id_column] if id_column else f"row-{number:05d}"
        if not ident.strip():
            raise DatasetCorruptError(f"row {number} has an empty id (column {id_column})", where=at,
                                      fix="give every row its own id, or leave columns.id out of the card to number "
                                          "rows")
        text, extra = _fill(card, values)
        slices = MappingProxyType({k: row[k].strip() or BLANK_SLICE for k in card.slices})
        yield Instance(str(ident), text, references, extra=extra, slices=slices)
    if empty:
        raise DatasetCorruptError("the data file holds no rows", where=where,
                                  fix="add data, or point at the right file")


def _fill(card: Card, values: dict[str, str]) -> tuple[str, Mapping[str, str]]:
    """The template filled in, with the record column's place marked when the card names one."""
    long = card.columns.long if card.columns else None
    if long is None or long not in values:
        return card.prompt.template.format_map(values), MappingProxyType({})
    before, _, after = card.prompt.template.format_map({**values, long: _LONG}).partition(_LONG)
    text, extra = compose(before, values[long], after.replace(_LONG, values[long]))
    return text, MappingProxyType(extra)


def incorrect_answers(row: dict[str, str], column: str, where: str) -> tuple[Reference, ...]:
    """MedHELM's `incorrect_answers`: a JSON list of wrong answers, kept as references that are not correct."""
    text = row.get(column, "")
    if not text.strip():
        return ()
    try:
        values = json.loads(text)
    except ValueError:
        values = None
    if not isinstance(values, list):
        raise DatasetCorruptError(f"{where}: {column} is not a JSON list", where=where,
                                  fix=f'write {column} as a JSON list, e.g. ["first wrong answer", "second"]')
    return tuple(Reference(str(v), False) for v in values)
