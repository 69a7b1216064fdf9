"""Reader hooks: the Python a published dataset layout needs to become instances.

A card whose data is a published dataset folder names its reader (`data.reader: pubmed_qa`); the
reader gets the verified files (by name) and the run-entry arguments, and yields instances in
file order. Everything else about the benchmark (prompt, metrics, taxonomy, licence) is data in
the card. A reader raises ValueError (or KeyError, TypeError, IndexError) naming the row or item
when the data does not have the published layout; the benchmark turns that into a clear error.
A reader may also check its arguments (e.g. that `db=` is a SQLite file) before any file is read.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.records import Instance

ReadFn = Callable[[Mapping[str, Path], Mapping[str, str]], Iterable[Instance]]
CheckFn = Callable[[Mapping[str, str]], None]


@dataclass(frozen=True)
class Reader:
    """A registered format hook."""

    name: str
    read: ReadFn
    check_args: CheckFn | None = None


_READERS: dict[str, Reader] = {}


def reader(name: str, *, check_args: CheckFn | None = None) -> Callable[[ReadFn], ReadFn]:
    """Decorator: register a function `(paths, args) -> instances` as the reader `name`."""

    def register(read: ReadFn) -> ReadFn:
        if name in _READERS and _READERS[name].read is not read:
            raise ValueError(f"reader {name!r} registered twice")
        _READERS[name] = Reader(name, read, check_args)
        return read

    return register


@functools.cache
def _load_builtins() -> None:
    # Once: every reader module registers itself on import.
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")


def _own_module(name: str) -> Reader | None:
    """The reader from the module named for it alone (most are; `mtsamples` holds two): a run imports one
    reader module, not all of them (~40 ms of start-up, bench/throughput.py)."""
    if not name.isidentifier():
        return None
    try:
        importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    return _READERS.get(name)


def get_reader(name: str, where: str) -> Reader:
    """The reader registered as `name`, or an error listing them."""
    found = _READERS.get(name) or _own_module(name)
    if found is None:
        _load_builtins()
        found = _READERS.get(name)
    if found is None:
        raise ConfigError(f"there is no data reader called '{name}'", where=where,
                          fix=f"use one of: {', '.join(sorted(_READERS))}, or give data.file for a CSV/JSONL/"
                              "Parquet file")
    return found
