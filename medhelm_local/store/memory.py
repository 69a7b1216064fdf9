"""How much memory DuckDB may use for a store: a run's streaming settings, and room for long texts.

DuckDB reads, writes and checkpoints a text column 2,048 values at a time, so a store's limit must
leave room for vectors of its longest texts: a run sizes it from what it will write (`run/plan.py`),
a report from what is stored (`fitted_memory`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import duckdb

from medhelm_local.store.schema import SCHEMAS, StoreKind

log = logging.getLogger("medhelm_local.store")

# DuckDB reads, writes and checkpoints a text column a vector of values at a time, holding the whole vector in
# one allocation rounded up to a power of two: a store's memory limit must leave room for that, or a commit or
# a read fails ("failed to allocate"; tests/store/test_writer.py, the sizes in docs/performance.md).
VECTOR_ROWS = 2048
_MAX_STRING = re.compile(r"Max String Length: (\d+)")

# For a run, which streams rows in through one writer thread: one DuckDB thread, an allocator that hands
# freed memory back soon, a small DuckDB memory limit (DuckDB otherwise keeps every page it reads or writes,
# up to most of RAM; a run never reads them back; beyond the limit it evicts or spills, encrypted), and
# frequent checkpoints (each checkpoint's memory grows with the log it folds in) keep a long run's peak
# memory near a short run's, no slower (bench/memory.py; the history in docs/performance.md). What a run
# must hold at once stays below the limit: a transaction's text is bounded (store/writer.py), a store of
# longer texts is opened with more, and one of shorter texts with less (run/plan.py store_memory_for).
# The store_memory_limit setting replaces all of these.
STREAMING: dict[str, str | int | float | list[str]] = {
    "threads": 1, "allocator_background_threads": "true", "allocator_flush_threshold": "4MB",
    "memory_limit": "48MB", "checkpoint_threshold": "2MB"}


def text_memory_mb(longest: int) -> int:
    """MB DuckDB holds at once to read or write a text column whose longest value has `longest` bytes: a vector
    of 2,048 of them, rounded up to a power of two as DuckDB allocates it."""
    return 1 << max(0, (VECTOR_ROWS * max(longest, 1) - 1).bit_length() - 20)


def fitted_memory(con: duckdb.DuckDBPyConnection, kind: StoreKind, default_mb: int, path: Path) -> str:
    """The default limit, or more when the store's longest texts need it. A query that joins the per-instance
    tables and builds each instance's JSON (the report's instance pages) holds several vectors of the longest
    column at once: 2,200 instances of 100 KB needed 1,280 MB (1 GB failed). So: four vectors of the longest
    column, one of each other text column, and the default on top. The lengths come from the columns'
    statistics: reading the texts themselves would need the memory being sized."""
    longest: dict[str, int] = {}
    for table in SCHEMAS[kind][0]:
        text = {c.name for c in table.columns if c.kind == "text"}
        for column, stats in con.execute(f"SELECT column_name, stats FROM pragma_storage_info('{table.name}')"
                                         ).fetchall():
            found = _MAX_STRING.search(stats or "")
            if column in text and found:
                key = f"{table.name}.{column}"
                longest[key] = max(longest.get(key, 0), int(found.group(1)))
    vectors = sorted(text_memory_mb(n) for n in longest.values())
    needed = 4 * vectors[-1] + sum(vectors[:-1]) if vectors else 0
    if needed <= default_mb // 4:  # the usual case: short texts fit in the default's working room
        return f"{default_mb}MB"
    log.info("store %s: memory limit %dMB, room to read texts up to %d KB", path.name, default_mb + needed,
             max(longest.values()) // 1024)
    return f"{default_mb + needed}MB"
