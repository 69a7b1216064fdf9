"""Workers that wait for a recorder which has fallen behind (a loaded machine) wake once it has room, not at every
answer it records, and every answer is still scored and stored. Against the fake server on 127.0.0.1; the
recorder is slowed by fault injection (a pause before each answer it records)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeServer, write_config

import medhelm_local as mh
from medhelm_local.run import scheduler


def test_workers_waiting_for_a_slow_recorder_wake_once_there_is_room(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer],
        monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[int] = []
    held: list[int] = []

    class CountedEvent(asyncio.Event):
        async def wait(self) -> Any:
            waits.append(1)
            return await super().wait()

    real_init, real_record = scheduler._Suite.__init__, scheduler._Suite._record

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        self._recorded = CountedEvent()

    async def slow_record(self: Any, *args: Any) -> None:
        held.append(len(self.answered))
        await asyncio.sleep(0.01)  # replies keep arriving meanwhile: the waiting room fills
        await real_record(self, *args)

    monkeypatch.setattr(scheduler._Suite, "__init__", init)
    monkeypatch.setattr(scheduler._Suite, "_record", slow_record)
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results",
                          {"fake": {"base_url": server.base_url, "max_concurrency": 4, "timeout_s": 10.0,
                                    "max_retries": 0}}, extra=f'kek_file = "{kek_file}"')
    run = mh.evaluate("pubmed_qa:model=local/fake,model_deployment=fake", config=mh.load_settings(config),
                      suite="room", max_eval_instances=50)

    (outcome,) = run.outcomes
    assert outcome.sent == 50 and outcome.summary.n_ok == 50  # nothing lost to the waiting
    room = 2 * 4
    assert max(held) > room  # the recorder did fall behind, so workers had to wait
    assert max(held) <= room + 4  # and no more answers were held than the room and one per worker
    # Each wait ends once the recorder has room: at most one wait per answer a worker held back. Woken at every
    # answer recorded instead, the four workers waited once each per answer recorded while they waited.
    assert 0 < len(waits) <= 50
