"""The viewer's data: stores reopened read-only for each request, the read model rebuilt when a store changes.

A store stays closed between requests, so a `run` can take it for writing at any time (DuckDB lets
one process write a file, and no other process open it meanwhile); while a run holds it, pages say
so and the viewer keeps serving what it read last. The report is cached by the stores' sizes and
modification times (and the chosen baseline), so an unchanged suite is read once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from medhelm_local.report.inputs import RunReader, Sources, open_sources
from medhelm_local.report.read_model import Report, RunInfo
from medhelm_local.report.site import plot_svg
from medhelm_local.report.stores import StoreReader, open_stores
from medhelm_local.store.keys import Kek

if TYPE_CHECKING:
    from medhelm_local.policy.file_schemas import JuryValidationRules

T = TypeVar("T")
_CACHED = 4  # reports kept (one per baseline asked for)


def _signature(paths: Sequence[Path]) -> tuple[tuple[str, int, int], ...]:
    found = []
    for path in paths:
        for part in (path, path.with_name(path.name + ".wal")):
            try:
                info = part.stat()
                found.append((str(part), info.st_size, info.st_mtime_ns))
            except OSError:
                found.append((str(part), -1, -1))
    return tuple(found)


@dataclass
class LiveStores:
    """Stores named at start, read again whenever they change."""

    paths: Sequence[Path]
    kek: Kek
    memory_limit: str | None = None
    helm_runs: Sequence[Path] = ()
    jury_rules: JuryValidationRules | None = None
    trend: bool = False  # the stores are successive suites, oldest first (report --trend)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _reports: dict[tuple[object, ...], Report] = field(default_factory=dict)
    _plots: dict[tuple[object, ...], str | None] = field(default_factory=dict)

    @contextmanager
    def sources(self) -> Iterator[Sources]:
        """Every store open read-only for the length of the block."""
        opened = open_sources(self.paths, self.kek, self.memory_limit, self.helm_runs, self.jury_rules)
        try:
            yield opened
        finally:
            opened.close()

    def report(self, baseline: str | None = None) -> Report:
        """The report as the stores are now (cached while they do not change)."""
        key = (_signature(self.paths), baseline)
        with self._lock:
            cached = self._reports.get(key)
            if cached is not None:
                return cached
            with self.sources() as opened:
                built = opened.report(baseline, self.trend)
            if len(self._reports) >= _CACHED:
                self._reports.pop(next(iter(self._reports)))
            self._reports[key] = built
            return built

    def plot(self, name: str) -> str | None:
        """A plot of the current report."""
        report = self.report()
        key = (_signature(self.paths), name)
        with self._lock:
            if key not in self._plots:
                self._plots = {k: v for k, v in self._plots.items() if k[0] == key[0]}
                self._plots[key] = plot_svg(report, name)
            return self._plots[key]

    def with_run(self, run: RunInfo, read: Callable[[RunReader], T]) -> T:
        """Read one run's details from the store that holds it, opened (read-only) only for this."""
        path = next(p for p in self.paths if p.name == run.source)
        handle = open_stores([path], self.kek, self.memory_limit)[0]
        try:
            return read(StoreReader(handle, scope=[run.run_id]))
        finally:
            handle.close()
