"""Private-benchmark formats: a hospital's own file in one of the shapes of MedHELM's private benchmarks.

Stanford's private benchmarks (the shc_*_med classifiers, CLEAR, NoteExtract, MentalHealth,
PatientInstruct) read a CSV or spreadsheet with fixed columns. A hospital that holds data in such
a shape writes a card naming its file and the format (`data: {file: ptbm.csv, format: shc_med}`);
the format hook reads the file into rows (checking the columns it needs, naming the row when one
is wrong), and the card's template, columns and task turn the rows into instances, as for any card
with its own data file. Rows are numbered, never keyed by their text: two rows with the same
prompt are two instances. docs/private-benchmarks.md has an example card per format.

A hook is a function `(path, args) -> rows`, registered by name; `path` is the card's data file
(or folder, for formats that hold one file per variant), `args` the run-entry arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.registry import Registry

RowsFn = Callable[[Path, Mapping[str, str]], Iterable[dict[str, str]]]


@dataclass(frozen=True)
class RowFormat:
    """A registered private-benchmark format."""

    name: str
    rows: RowsFn
    summary: str
    benchmarks: tuple[str, ...]  # MedHELM's run-entry names of the private benchmarks in this shape


_FORMATS = Registry[RowFormat]("format", __name__, same=lambda a, b: a.rows is b.rows)


def row_format(name: str, benchmarks: tuple[str, ...]) -> Callable[[RowsFn], RowsFn]:
    """Decorator: register a function `(path, args) -> rows` as the format `name` of MedHELM's `benchmarks`."""

    def register(rows: RowsFn) -> RowsFn:
        summary = (rows.__doc__ or name).strip().splitlines()[0]
        _FORMATS.add(name, RowFormat(name, rows, summary, benchmarks))
        return rows

    return register


def all_formats() -> dict[str, RowFormat]:
    """Every registered format by name."""
    return _FORMATS.all()


def format_for(benchmark: str) -> RowFormat | None:
    """The format of one of MedHELM's private benchmarks (by run-entry name), if one is shipped."""
    return next((f for f in all_formats().values() if benchmark in f.benchmarks), None)


def get_format(name: str, where: str) -> RowFormat:
    """The format registered as `name`, or an error listing them."""
    found = all_formats().get(name)
    if found is None:
        raise ConfigError(f"there is no data format called '{name}'", where=where,
                          fix=f"use one of: {', '.join(all_formats())}, or leave data.format out for a plain "
                              "CSV/JSONL/Parquet file")
    return found
