"""Reader hooks: the Python a published dataset layout needs to become instances.

A card whose data is a published dataset folder names its reader (`data.reader: pubmed_qa`), declared by
the `reader.py` in that benchmark's folder (`scenarios/benchmarks/pubmed_qa/`, beside its card); the
reader gets the verified files (by name) and the run-entry arguments, and yields instances in
file order. Everything else about the benchmark (prompt, metrics, taxonomy, licence) is data in
the card. A reader raises ValueError (or KeyError, TypeError, IndexError) naming the row or item
when the data does not have the published layout; the benchmark turns that into a clear error.
A reader may also check its arguments (e.g. that `db=` is a SQLite file) before any file is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.records import Instance
from medhelm_local.registry import Registry

ReadFn = Callable[[Mapping[str, Path], Mapping[str, str]], Iterable[Instance]]
CheckFn = Callable[[Mapping[str, str]], None]


@dataclass(frozen=True)
class Reader:
    """A registered format hook."""

    name: str
    read: ReadFn
    check_args: CheckFn | None = None


_READERS = Registry[Reader]("reader", "medhelm_local.scenarios.benchmarks", hook="reader",
                            same=lambda a, b: a.read is b.read)


def reader(name: str, *, check_args: CheckFn | None = None) -> Callable[[ReadFn], ReadFn]:
    """Decorator: register a function `(paths, args) -> instances` as the reader `name`."""

    def register(read: ReadFn) -> ReadFn:
        _READERS.add(name, Reader(name, read, check_args))
        return read

    return register


def get_reader(name: str, where: str) -> Reader:
    """The reader registered as `name`, or an error listing them. A reader lives in its benchmark's folder, so
    a run imports that one module, not every reader (bench/throughput.py)."""
    found = _READERS.find(name)
    if found is None:
        _READERS.load_all()
        found = _READERS.registered(name)
    if found is None:
        raise ConfigError(f"there is no data reader called '{name}'", where=where,
                          fix=f"use one of: {', '.join(_READERS)}, or give data.file for a CSV/JSONL/"
                              "Parquet file")
    return found
