"""The store writer: transactions stay small enough to commit, and a run waits rather than queue rows without end."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable

import pytest

from medhelm_local.errors import StoreError
from medhelm_local.run.plan import SHORT_TEXTS
from medhelm_local.store.database import StoreHandle
from medhelm_local.store.writer import StoreWriter, row_of

RunStore = Callable[..., StoreHandle]  # the `run_store` fixture (tests/conftest.py)

NOTE = "".join(chr(97 + (i * 7919) % 26) for i in range(60_000))  # a long record: ~60 KB, barely compressible


def _instance(n: int, size: int = len(NOTE)) -> tuple[object, ...]:
    return row_of("instances", run_id="r", instance_id=f"i{n}", ordinal=n, split="test", input=f"{NOTE[:size]}{n}",
                  references_json=json.dumps([{"text": "yes", "correct": True}]), extra_json="{}")


def test_long_records_handed_over_at_once_commit_in_bounded_transactions(run_store: RunStore) -> None:
    # 2,048 notes of 60 KB (~120 MB) handed over faster than a flush: as one transaction they did not fit
    # 128 MB, and the run failed ("failed to pin block") before batches were bounded by size too.
    handle = run_store("128MB")
    writer = StoreWriter(handle)
    for start in range(0, 2048, 64):  # as a run's producer hands them over: 64 at a time
        writer.put_many("instances", [_instance(n) for n in range(start, start + 64)])
    writer.close()
    assert handle.con.execute("SELECT count(*) FROM instances").fetchone() == (2048,)


def test_room_waits_until_the_rows_waiting_for_the_store_are_back_under_the_backlog(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, backlog=100)
    for n in range(40):
        writer.put_many("instances", [_instance(n * 10 + k) for k in range(10)])  # 400 rows, faster than a flush
    assert writer.behind
    asyncio.run(writer.room())
    assert not writer.behind and writer.committed >= 300
    writer.close()
    assert writer.committed == 400


def test_records_too_long_for_the_memory_limit_say_which_setting_to_raise(run_store: RunStore) -> None:
    # DuckDB checkpoints a column 2,048 values at a time: 2,048 notes of 20 KB need more than 32 MB.
    handle = run_store("32MB")
    writer = StoreWriter(handle)
    for start in range(0, 2048, 64):
        writer.put_many("instances", [_instance(n, 20_000) for n in range(start, start + 64)])
    with pytest.raises(StoreError) as raised:
        writer.close()
    assert "ran out of the memory" in raised.value.message and "store_memory_limit" in raised.value.message
    assert "s.duckdb" in raised.value.message and "rerun the same command" in raised.value.message


def test_when_committed_is_called_once_everything_handed_over_before_it_is_readable(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, flush_interval=0.2)
    seen: list[int] = []

    def count() -> None:
        cursor = handle.cursor()  # another connection, as the run's aggregates read it
        seen.append(cursor.execute("SELECT count(*) FROM instances").fetchone()[0])  # type: ignore[index]
        cursor.close()

    writer.put_many("instances", [_instance(n, 10) for n in range(5)])
    writer.when_committed(count)
    writer.put_many("instances", [_instance(n, 10) for n in range(5, 8)])
    writer.when_committed(count)
    writer.close()
    # Both were met within one flush window: one commit held all eight rows, and each callback came after it.
    # (Each callback ending a commit of its own put several commits after a suite's last reply.)
    assert seen == [8, 8]


def test_a_callback_whose_rows_are_committed_already_is_called_at_once(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, flush_interval=0.05)
    called = threading.Event()
    writer.put_many("instances", [_instance(n, 10) for n in range(3)])
    deadline = time.monotonic() + 5
    while writer.committed < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    writer.when_committed(called.set)
    assert called.wait(1), "nothing was left to commit: the callback need not wait for later rows"
    writer.close()


def test_a_failing_callback_does_not_stop_the_writer(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle)

    def broken() -> None:
        raise RuntimeError("a bug in the caller")

    writer.put_many("instances", [_instance(n, 10) for n in range(3)])
    writer.when_committed(broken)
    writer.put_many("instances", [_instance(n, 10) for n in range(3, 6)])
    writer.close()  # no error: the rows were written
    assert handle.con.execute("SELECT count(*) FROM instances").fetchone() == (6,)


def test_the_first_commit_waits_as_asked_and_closing_cuts_the_wait_short(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, first_commit_after=30.0)
    writer.put_many("instances", [_instance(n, 10) for n in range(3)])
    time.sleep(0.3)  # six flush intervals
    assert writer.committed == 0
    started = time.monotonic()
    writer.close()
    assert time.monotonic() - started < 10  # not held for the rest of the 30 s
    assert handle.con.execute("SELECT count(*) FROM instances").fetchone() == (3,)


def test_a_full_batch_waiting_ends_the_wait_before_the_first_commit(run_store: RunStore) -> None:
    # A fast endpoint: rows are not held in memory for the rest of the wait.
    handle = run_store()
    writer = StoreWriter(handle, first_commit_after=30.0, max_batch=64)
    writer.put_many("instances", [_instance(n, 10) for n in range(64)])
    deadline = time.monotonic() + 10
    while writer.committed < 64 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writer.committed == 64
    writer.close()


@pytest.mark.parametrize(("bound", "memory"), SHORT_TEXTS)
def test_a_run_of_short_texts_commits_and_checkpoints_in_the_memory_it_is_given(
        run_store: RunStore, bound: int, memory: str) -> None:
    # run/plan.py gives a run whose longest text is at most `bound` the smaller `memory`: 4,400 records and prompts
    # that long, as a run hands them over, must commit and checkpoint in it.
    text = NOTE[:bound - 8]
    handle = run_store(memory)
    writer = StoreWriter(handle)
    for start in range(0, 4400, 64):
        span = range(start, min(4400, start + 64))
        writer.put_group([*(("instances", _instance(n, bound - 8)) for n in span),
                          *(("requests", row_of("requests", run_id="r", instance_id=f"i{n}", prompt=f"{text}{n}",
                                                params_json="{}")) for n in span)])
    writer.close()
    handle.con.execute("CHECKPOINT")
    assert handle.con.execute("SELECT count(*) FROM requests").fetchone() == (4400,)


def test_answers_that_trickle_in_share_one_commit_within_the_window(run_store: RunStore) -> None:
    # A real server's answers arrive one by one: each committing alone cost a commit (milliseconds on an
    # encrypted store) per answer. Within the window they wait, and one commit takes them all.
    handle = run_store()
    writer = StoreWriter(handle, flush_interval=0.6)
    for n in range(6):
        writer.put_group([("instances", _instance(n, 10))])
        time.sleep(0.03)
    assert writer.committed == 0, "nothing is committed before the window ends"
    deadline = time.monotonic() + 5
    while writer.committed < 6 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert (writer.committed, writer.commits) == (6, 1)
    writer.close()


def test_what_a_kill_can_lose_is_bounded_by_the_window(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, flush_interval=0.2)
    writer.put_group([("instances", _instance(0, 10))])
    time.sleep(0.6)  # past the window: committed, whatever comes after
    assert writer.committed == 1
    writer.close()


def test_a_finished_run_waiting_for_its_rows_does_not_wait_for_the_window(run_store: RunStore) -> None:
    handle = run_store()
    writer = StoreWriter(handle, flush_interval=30.0)
    called = threading.Event()
    writer.put_many("instances", [_instance(n, 10) for n in range(3)])
    writer.when_committed(called.set)
    assert called.wait(2), "a callback shortens the wait to the settle interval"
    assert writer.committed == 3
    writer.close()
