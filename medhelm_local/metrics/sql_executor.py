"""Run one model-written SQL query on a SQLite file: read-only, and bounded in time, memory and result size.

A model's answer is untrusted code. The database opens read-only (`mode=ro`) and an authorizer
allows only plain queries (no ATTACH, PRAGMA or writes). Each query is stopped after a time limit
(a progress handler), no single string or blob may exceed MAX_VALUE_BYTES (SQLite's length
limit), SQLite's own allocations stop at SQLITE_HEAP_LIMIT (a recursive CTE that keeps growing
gets "out of memory" instead of the machine's memory or disk: temporary tables stay in memory
under that limit), and the rows are fetched one at a time up
to MAX_RESULT_ROWS and MAX_RESULT_BYTES. Any of these raises one of QUERY_ERRORS: for an answer
that is a wrong answer, never a crash of the run.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias
from urllib.parse import quote

QUERY_TIME_LIMIT_S = 10.0
MAX_VALUE_BYTES = 1 << 20
MAX_RESULT_ROWS = 100_000
MAX_RESULT_BYTES = 32 << 20
# Process-wide (SQLite has one allocator); nothing else in this program uses SQLite.
SQLITE_HEAP_LIMIT = 256 << 20

Row: TypeAlias = tuple[Hashable, ...]


class QueryTooLarge(Exception):  # noqa: N818  (a limit reached, reported like a failing query)
    """The query needed more memory, or returned more rows or bytes, than the limits allow."""


# What a failing query can raise: SQL errors (a syntax error, "interrupted" at the time limit,
# "string or blob too big", "not authorized"), Python 3.11's Warning for two statements in one
# string, values Python cannot convert, and the limits above.
QUERY_ERRORS = (sqlite3.Error, sqlite3.Warning, ValueError, OverflowError, QueryTooLarge)

_ALLOWED_ACTIONS = frozenset({sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                              sqlite3.SQLITE_RECURSIVE})


def _read_only_authorizer(action: int, *_: str | None) -> int:
    # mode=ro already refuses writes to the database; this also refuses ATTACH (which could
    # create files), PRAGMA and every other statement that is not a plain query.
    return sqlite3.SQLITE_OK if action in _ALLOWED_ACTIONS else sqlite3.SQLITE_DENY


def _size(value: object) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 8


@dataclass
class SqliteExecutor:
    """Runs single SELECT statements read-only on a SQLite file within the limits above."""

    path: Path
    time_limit_s: float = QUERY_TIME_LIMIT_S
    max_rows: int = MAX_RESULT_ROWS
    max_bytes: int = MAX_RESULT_BYTES
    _cache: dict[str, list[Row] | BaseException] = field(default_factory=dict, repr=False)

    def rows(self, sql: str) -> list[Row]:
        """The result rows in order; raises one of QUERY_ERRORS if the query fails or passes a limit."""
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        conn = sqlite3.connect(uri, uri=True)
        try:
            conn.execute(f"PRAGMA hard_heap_limit={SQLITE_HEAP_LIMIT}")
            # Temporary tables and sorts in memory, under the heap limit, rather than in unbounded temp files.
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            conn.set_authorizer(_read_only_authorizer)
            deadline = time.monotonic() + self.time_limit_s
            conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
            return self._fetch(conn.execute(sql))
        except MemoryError:
            # SQLite reports its heap limit as "out of memory", which Python raises as MemoryError.
            raise QueryTooLarge("the query needed more memory than allowed") from None
        finally:
            conn.close()

    def _fetch(self, cursor: sqlite3.Cursor) -> list[Row]:
        found: list[Row] = []
        total = 0
        for row in cursor:  # one row at a time: a batch of large values could itself be too much
            total += sum(_size(value) for value in row) + 8
            if len(found) >= self.max_rows or total > self.max_bytes:
                raise QueryTooLarge(f"the result passed {self.max_rows} rows or {self.max_bytes} bytes")
            found.append(tuple(row))
        return found

    def cached_rows(self, sql: str) -> list[Row]:
        """rows(), remembered per SQL text (for gold queries, run once per run); raises as rows() does."""
        if sql not in self._cache:
            try:
                self._cache[sql] = self.rows(sql)
            except QUERY_ERRORS as exc:
                self._cache[sql] = exc
        found = self._cache[sql]
        if isinstance(found, BaseException):
            raise found
        return found
