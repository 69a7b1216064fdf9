"""The id tally: repeated ids found exactly, in memory that does not grow with the ids' length."""

from __future__ import annotations

import tracemalloc

from medhelm_local.scenarios.unique_ids import IdTally


def _tally(ids: list[str], tally: IdTally | None = None) -> IdTally:
    tally = tally or IdTally()
    for instance_id in ids:
        tally.add(instance_id)
    return tally


def test_unique_ids_pass_without_a_second_reading() -> None:
    ids = [f"test-{n:06d}" for n in range(50_000)]

    def reread() -> list[str]:
        raise AssertionError("read again although every id is unique")

    assert _tally(ids).repeats(reread) == []


def test_every_repeat_after_the_first_occurrence_is_named_in_reading_order() -> None:
    ids = ["a", "b", "a", "c", "b", "a"]
    assert _tally(ids).repeats(lambda: ids) == ["a", "b", "a"]


def test_ids_whose_hashes_collide_are_not_called_repeats() -> None:
    """Two different ids can share a hash: the second reading compares the ids themselves."""

    class Colliding(IdTally):
        key = staticmethod(len)  # every id of one length collides

    ids = ["ab", "cd", "ef", "xyz", "ab"]
    assert _tally(ids, Colliding()).repeats(lambda: ids) == ["ab"]
    assert _tally(["ab", "cd"], Colliding()).repeats(lambda: ["ab", "cd"]) == []


def test_the_tally_holds_a_few_bytes_an_instance_however_long_the_ids() -> None:
    """A set of 100,000 ids of 200 characters would hold ~25 MB; the tally about 0.8 MB."""
    ids = [f"{n:0200d}" for n in range(100_000)]
    tracemalloc.start()
    try:
        tally = _tally(ids)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < 1 << 20
    assert tally.repeats(lambda: ids) == []
