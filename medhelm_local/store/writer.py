"""The store's one writer: a thread that owns the write cursor and commits batches.

Records are handed over the moment they exist and are committed within `flush_interval` seconds (1 s),
one transaction per batch of at most `max_batch` rows and about `max_bytes` of text (DuckDB holds a
transaction's rows in memory until it commits: 2,048 rows of 60 KB notes failed to commit under a 128 MB
memory limit); rows queued as one group (a completion and its scores) are never split across batches, so
they land together or not at all. Rows go in as Arrow tables: DuckDB's `executemany` costs about 1-3 ms a
row on an encrypted store, an Arrow batch 0.1-0.2 ms.

Why a second and not less: answers trickle in from a real server, and each commit of an encrypted store
costs milliseconds whatever it holds, so a short cadence spends the harness's CPU on many small commits
(docs/performance.md, bench/real_server.py). What a commit has not yet taken is what a kill -9 loses: at
most `flush_interval` of answers (or `max_batch` rows), which a rerun sends again; everything committed is
whole, so resuming stays exact. A `when_committed` callback (a run that finished, whose aggregates wait
for its rows) shortens the wait to `settle_interval` (50 ms), so the end of a run does not wait a second.

A fast endpoint can answer faster than the store takes rows (while DuckDB checkpoints, say): rows
then wait in memory. A run awaits `room()` after each hand-over, which returns at once unless more than
`backlog` rows wait, so what waits stays bounded whatever the endpoint's speed (a 100,000-instance run
at 0 ms latency was seen with 6,000-7,000 rows waiting during checkpoints).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import duckdb

from medhelm_local.errors import StoreError
from medhelm_local.store.database import ALIAS, StoreHandle
from medhelm_local.store.integrity import explain_failure, is_out_of_memory
from medhelm_local.store.schema import table as declared

log = logging.getLogger("medhelm_local.store")

# Tables the writer fills, in commit order: instances before the completions that refer to them.
WRITTEN = ("instances", "requests", "completions", "scores", "ratings", "run_metrics")


_STOP = object()


def row_of(table: str, **values: Any) -> tuple[Any, ...]:
    """A row for `table` in the declared column order; columns not given are NULL.

    Naming the values keeps callers right when the declaration gains a column.
    """
    spec = declared(table)
    if not values.keys() <= spec.given_set:
        unknown = sorted(set(values) - spec.given_set)
        raise KeyError(f"table {table} has no column(s) {', '.join(unknown)}")
    return tuple(map(values.get, spec.given_names))  # map, not a generator: per row, measurably cheaper


class _ArrowStream:
    """A batch offered to DuckDB through the Arrow PyCapsule interface only.

    Given a pyarrow Table itself, DuckDB scans it through pyarrow.dataset: the first insert then imports
    pyarrow.dataset (~0.1 s holding the interpreter, as the first requests go out) and every insert
    builds a dataset scanner (~1 ms more a batch). Read as a plain Arrow stream it does neither.
    """

    def __init__(self, table: Any) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The batch as an Arrow C stream (the interface DuckDB reads)."""
        return self._table.__arrow_c_stream__(requested_schema)


def insert_rows(cursor: Any, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert-or-replace rows into one table through an Arrow batch (no transaction handling)."""
    # Imported on first use, in the writer thread: pyarrow's import then overlaps the first requests.
    import pyarrow as pa

    spec = declared(table)
    given = spec.given
    schema = pa.schema([(c.name, pa.type_for_alias(c.arrow_type)) for c in given])
    batch = pa.table({c.name: [row[i] for row in rows] for i, c in enumerate(given)}, schema=schema)
    name = f"_batch_{table}"
    cursor.register(name, _ArrowStream(batch))
    try:
        # Qualified: a cursor does not inherit the connection's `USE store`. Columns named, so the
        # declaration's order is the only order; stamped columns take the commit time.
        values = ", ".join(c.name if not c.stamp else "now()::TIMESTAMP" for c in spec.columns)
        verb = "INSERT OR REPLACE" if spec.indexed else "INSERT"
        cursor.execute(f"{verb} INTO {ALIAS}.{table} ({', '.join(c.name for c in spec.columns)}) "
                       f"SELECT {values} FROM {name}")
    finally:
        cursor.unregister(name)


class StoreWriter:
    """Serialises all writes to one store through a background thread.

    `first_commit_after` holds the first commit that many seconds after the first rows arrive, for a
    caller that has better use for the interpreter just then; close(), or a full batch waiting (`max_batch`
    rows: a fast endpoint), ends the wait.
    """

    def __init__(self, store: StoreHandle, flush_interval: float = 1.0, max_batch: int = 2048,
                 backlog: int = 4 * 2048, max_bytes: int = 4 << 20, first_commit_after: float = 0.0,
                 settle_interval: float = 0.05) -> None:
        self._cursor = store.con.cursor()
        self._path = store.path
        self._queue: queue.Queue[Any] = queue.Queue()
        self._flush_interval = flush_interval
        self._settle_interval = min(settle_interval, flush_interval)
        self._max_batch = max_batch
        self._max_bytes = max_bytes
        self._backlog = backlog
        self._error: BaseException | None = None
        # Two counters, each moved by one thread only (no lock): rows handed over (by the thread that puts,
        # a run's event loop), rows committed (by the writer thread).
        self._handed = 0
        self._committed = 0
        self._commits = 0  # transactions committed (each costs milliseconds on an encrypted store)
        self._room: asyncio.Task[None] | None = None  # the one task polling for room, while any wait
        self._first_commit_after = first_commit_after
        self._release = threading.Event()  # ends the wait before the first commit
        self._thread = threading.Thread(target=self._loop, name="medhelm-store-writer", daemon=True)
        self._thread.start()

    @property
    def committed(self) -> int:
        """Rows committed so far."""
        return self._committed

    @property
    def commits(self) -> int:
        """Transactions committed so far."""
        return self._commits

    def put(self, table: str, row: tuple[Any, ...]) -> None:
        """Queue one row; raises if the writer has already failed, so a run stops early."""
        self.put_group([(table, row)])

    def put_many(self, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
        """Queue rows of one table that belong together: they are committed in one transaction."""
        self.put_group([(table, row) for row in rows])

    def put_group(self, rows: Sequence[tuple[str, tuple[Any, ...]]]) -> None:
        """Queue rows of several tables (a completion and its scores) to commit in one transaction.

        A row for the table name `-TABLE` is a prefix of TABLE's key, (run_id, instance_id, ...), whose
        existing rows are deleted first, in the same transaction (a failed completion replaced by its
        retry, one judge's failed rating replaced by its retry).
        Raises if the writer has already failed, so a run stops early.
        """
        if self._error is not None:
            raise self._failure("check free disk space and that nothing else writes this store")
        if rows:
            self._handed += len(rows)
            if self._handed - self._committed >= self._max_batch and not self._release.is_set():
                self._release.set()
            size = sum(len(value) for _, row in rows for value in row if type(value) is str)
            self._queue.put((list(rows), size))

    def when_committed(self, then: Callable[[], None]) -> None:
        """Call `then`, in the writer thread, once every row handed over before this call is committed (not
        if writing fails first). It must be quick: the writer waits for it. If it raises, writing goes on."""
        self._queue.put(then)

    @property
    def behind(self) -> bool:
        """Whether more than `backlog` rows wait to be committed."""
        return self._handed - self._committed > self._backlog and self._error is None

    async def room(self) -> None:
        """Wait, without blocking the event loop, until no more than `backlog` rows wait to be committed.

        However many tasks wait, one of them polls: 64 workers each polling cost more CPU than the rows saved.
        """
        loop = asyncio.get_running_loop()
        if self._room is None or self._room.done() or self._room.get_loop() is not loop:
            self._room = loop.create_task(self._poll_room())
        await asyncio.shield(self._room)

    async def _poll_room(self) -> None:
        while self.behind:
            await asyncio.sleep(self._settle_interval / 5)

    def close(self) -> None:
        """Commit everything queued, stop the thread, and raise if any write failed."""
        self._queue.put(_STOP)
        self._release.set()
        self._thread.join()
        if self._error is not None:
            raise self._failure("check free disk space; rerun the same command to resume")

    def _failure(self, fix: str) -> StoreError:
        """Why writing stopped, as a clear error: DuckDB short of memory says which setting to raise."""
        error = self._error
        if isinstance(error, duckdb.Error) and is_out_of_memory(error):
            return explain_failure(error, self._path)
        return StoreError(f"writing to the store failed ({error})", where="store writer", fix=fix)

    def _loop(self) -> None:
        stopping = False
        first = True
        while not stopping:
            item = self._queue.get()
            if first:  # see `first_commit_after`
                first = False
                self._release.wait(self._first_commit_after)
            if item is _STOP:
                break
            if callable(item):  # when_committed: everything queued before it is committed
                _call(item)
                continue
            batch = [item[0]]
            then: list[Callable[[], None]] = []
            stopping = self._drain(batch, len(item[0]), item[1], then)
            try:
                self._commit(batch)
            except Exception as exc:
                self._error = exc
                return
            for callback in then:
                _call(callback)

    def _drain(self, batch: list[Any], rows: int, size: int, then: list[Callable[[], None]]) -> bool:
        """Collect more groups for up to `flush_interval`, within the batch's limits, and the `when_committed`
        callbacks met on the way (to call once the batch is committed: it holds every row queued before them).
        Returns whether it was asked to stop.

        A callback shortens the wait to `settle_interval` but does not end the batch at once: a suite's runs end
        within moments of each other, and each run's callback ending a commit of its own put two or three
        commits (~10 ms each) after its last reply.
        """
        deadline = time.monotonic() + self._flush_interval
        while rows < self._max_batch and size < self._max_bytes:
            remaining = deadline - time.monotonic()
            try:
                item = self._queue.get(timeout=remaining) if remaining > 0 else self._queue.get_nowait()
            except queue.Empty:
                return False
            if item is _STOP:
                return True
            if callable(item):
                then.append(item)
                deadline = min(deadline, time.monotonic() + self._settle_interval)
                continue
            batch.append(item[0])
            rows, size = rows + len(item[0]), size + item[1]
        return False

    def _commit(self, batch: list[list[tuple[str, tuple[Any, ...]]]]) -> None:
        by_table: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        for group in batch:
            for table, row in group:
                by_table[table].append(row)
        self._cursor.execute("BEGIN")
        try:
            for table in WRITTEN:
                for key in by_table.get(f"-{table}", ()):
                    # A prefix of the table's key: (run, instance) drops an instance's rows; a longer one
                    # (run, instance, jury, judge) drops one judge's rating.
                    match = " AND ".join(f"{column} = ?" for column in declared(table).key[:len(key)])
                    self._cursor.execute(f"DELETE FROM {ALIAS}.{table} WHERE {match}", list(key))
            for table in WRITTEN:
                if by_table.get(table):
                    insert_rows(self._cursor, table, by_table[table])
            self._cursor.execute("COMMIT")
        except Exception:
            try:
                self._cursor.execute("ROLLBACK")
            except Exception:  # a failed COMMIT has ended the transaction: report why it failed, not this
                pass
            raise
        self._committed += sum(len(group) for group in batch)
        self._commits += 1


def _call(then: Callable[[], None]) -> None:
    """A `when_committed` callback: one that fails is logged, and the rows after it are still committed."""
    try:
        then()
    except Exception as exc:
        log.warning("a callback after a commit failed (%s); writing goes on", type(exc).__name__)
