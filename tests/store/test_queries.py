"""Run bookkeeping on a real encrypted store: the rows a command starts its runs with, and what it reads back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from medhelm_local.store.database import StoreHandle
from medhelm_local.store.queries import RunRecord, record_runs, stored_progress
from medhelm_local.store.writer import StoreWriter, row_of

RunStore = Callable[..., StoreHandle]  # the `run_store` fixture (tests/conftest.py)


def _record(run_id: str, **changed: Any) -> RunRecord:
    fields: dict[str, Any] = {
        "run_id": run_id, "suite": "ward", "run_entry": f"med_qa:model=m,model_deployment=d#{run_id}",
        "scenario": "med_qa", "scenario_args": {}, "model": "m", "deployment": "d", "main_metric": "exact_match",
        "access": "public", "settings": {"max_eval_instances": 10}, "benchmark": {"name": "med_qa"}}
    return RunRecord(**{**fields, **changed})


def test_runs_are_recorded_together_and_a_resumed_run_keeps_when_it_was_created(run_store: RunStore) -> None:
    handle = run_store()
    record_runs(handle.con, [_record("a"), _record("b")])
    created = dict(handle.con.execute("SELECT run_id, created_at FROM runs").fetchall())
    # The same run started again with new settings, and an entry given twice in one command.
    record_runs(handle.con, [_record("a", settings={"max_eval_instances": 20}), _record("c"),
                             _record("c", main_metric="quasi_exact_match")])
    rows = {r[0]: r[1:] for r in handle.con.execute(
        "SELECT run_id, settings, main_metric, created_at, updated_at FROM runs").fetchall()}
    assert sorted(rows) == ["a", "b", "c"]
    assert json.loads(rows["a"][0]) == {"max_eval_instances": 20}
    assert rows["a"][2] == created["a"] and rows["a"][3] > created["a"]
    assert rows["c"][1] == "quasi_exact_match"


def test_what_earlier_invocations_stored_is_read_back_per_run_in_stored_order(run_store: RunStore) -> None:
    handle = run_store()
    record_runs(handle.con, [_record("a"), _record("b"), _record("new")])
    writer = StoreWriter(handle)
    for run_id, ordinals in (("a", [2, 0, 1]), ("b", [0, 1])):
        writer.put_many("instances", [row_of("instances", run_id=run_id, instance_id=f"{run_id}{n}", ordinal=n,
                                             split="test", input="q", references_json="[]", extra_json="{}")
                                      for n in ordinals])
    answers = (("a", "a0", True), ("a", "a2", False), ("b", "b1", True))
    writer.put_many("completions", [row_of("completions", run_id=run_id, instance_id=instance_id, ok=ok,
                                           attempts=1, text="A" if ok else None)
                                    for run_id, instance_id, ok in answers])
    writer.close()
    progress = stored_progress(handle.con, ["a", "b", "new"])
    assert progress["a"].stored == ["a0", "a1", "a2"]
    assert (progress["a"].done, progress["a"].failed) == ({"a0"}, {"a2"})
    assert (progress["b"].stored, progress["b"].done, progress["b"].failed) == (["b0", "b1"], {"b1"}, set())
    assert (progress["new"].stored, progress["new"].done, progress["new"].failed) == ([], set(), set())
