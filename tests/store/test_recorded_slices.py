"""Slices recorded with a run's aggregates: read back exactly as computed from the scores (the same intervals and
gaps), replaced when the run is summarised again, computed from the scores for a run recorded without them (a store
from before schema v6), and computed again where a minimum size suppresses a value (the gap can move)."""

from __future__ import annotations

from pathlib import Path

from support.report_store import FakeRun, write_store

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.slices import compute_slices, run_slices, store_slices, stored_slices

# Ward "east" has 2 of the 20 instances and the highest mean: under a minimum of 5 it is suppressed, and the
# largest gap by ward is then between the two other wards.
WARDS = ["east" if i < 2 else "north" if i % 2 else "south" for i in range(20)]
RIGHT = {0, 1, 3, 5, 7, 9, 12, 14}


def _slices(i: int) -> dict[str, str]:
    return {"sex": "F" if i < 10 else "M", "ward": WARDS[i]}


def _store(tmp_path: Path, kek: Kek, aggregate: bool) -> tuple[Path, str]:
    path = tmp_path / "results" / "s.duckdb"
    run = FakeRun("local/a", "pubmed_qa", 20, values=[float(i in RIGHT) for i in range(20)], slices=_slices, failed=1,
                  only_main=True)
    [run_id] = write_store(path, kek, "s", [run], aggregate=aggregate)
    return path, run_id


def test_recorded_slices_read_back_as_computed_and_are_replaced_when_summarised_again(tmp_path: Path,
                                                                                      kek: Kek) -> None:
    path, run_id = _store(tmp_path, kek, aggregate=True)
    handle = open_store(path, kek)
    try:
        computed = compute_slices(handle.con, run_id)
        recorded = stored_slices(handle.con)[run_id]
        assert recorded == computed and run_slices(handle.con, run_id) == computed
        assert [(s.metric, s.key) for s in recorded] == [("exact_match", "sex"), ("exact_match", "ward")]
        sex = recorded[0]
        assert [(v.value, v.n, v.n_scored, v.n_failed) for v in sex.values] == [("F", 10, 10, 0), ("M", 10, 9, 1)]
        assert sex.gap is not None and (sex.gap.high, sex.gap.low) == ("F", "M")
        handle.con.execute("UPDATE instances SET slices_json = '{\"sex\": \"F\"}' WHERE run_id = ?", [run_id])
        store_slices(handle.con, [run_id])
        [only] = stored_slices(handle.con)[run_id]  # the ward key is gone, not left behind
        assert (only.key, [v.value for v in only.values], only.gap) == ("sex", ["F"], None)
    finally:
        handle.close()


def test_a_run_recorded_without_slices_is_computed_and_a_minimum_size_recomputes_the_gap(tmp_path: Path,
                                                                                        kek: Kek) -> None:
    path, run_id = _store(tmp_path, kek, aggregate=False)
    handle = open_store(path, kek)
    try:
        assert stored_slices(handle.con) == {}
        ward = run_slices(handle.con, run_id)[1]
        assert ward.gap is not None and (ward.gap.high, ward.gap.low) == ("east", "south")  # east: 2 of 2 right
        store_slices(handle.con, [run_id])
        assert run_slices(handle.con, run_id) == compute_slices(handle.con, run_id)
        small = run_slices(handle.con, run_id, min_size=5)[1]
        assert small == compute_slices(handle.con, run_id, min_size=5)[1]
        assert [v.value for v in small.values] == ["north", "south"] and small.suppressed == 1
        assert small.gap is not None and (small.gap.high, small.gap.low) == ("north", "south")
    finally:
        handle.close()
