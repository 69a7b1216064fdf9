"""Whether a benchmark's instance ids are unique, checked in memory that does not depend on the ids.

A benchmark is read as a stream (a run never holds its instances), but a set of the ids seen grows by
about 100 bytes an instance: ~10 MB at 100,000, most of what a 100,000-instance run's memory grew by
(bench/memory.py). The tally keeps 8 bytes an instance instead, each id's hash, and sorts them once the
stream ends. Hashes can collide, so ids whose hash repeats are confirmed on a second reading, which only
happens when something repeats.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import pairwise


class IdTally:
    """The hashes of the ids seen so far."""

    key: Callable[[str], int] = staticmethod(hash)  # 64-bit on the platforms the appliance runs on

    def __init__(self) -> None:
        self._hashes = array("q")

    def add(self, instance_id: str) -> None:
        """Count one id."""
        self._hashes.append(self.key(instance_id))

    def repeats(self, reread: Callable[[], Iterable[str]]) -> list[str]:
        """Every occurrence of an id after its first, in reading order ([] when all are unique). `reread`
        gives the same ids again; it is called only when two hashes are equal."""
        suspects = self._repeated_hashes()
        if not suspects:
            return []
        seen: Counter[str] = Counter()
        repeats = []
        for instance_id in reread():
            if self.key(instance_id) in suspects:
                seen[instance_id] += 1
                if seen[instance_id] > 1:
                    repeats.append(instance_id)
        return repeats

    def _repeated_hashes(self) -> frozenset[int]:
        # Sorted as Python ints (for a moment, and smaller than the set that held them all along); numpy would
        # sort the array in place, but importing it here delays a run's first request.
        ordered = sorted(self._hashes)
        return frozenset(a for a, b in pairwise(ordered) if a == b)
