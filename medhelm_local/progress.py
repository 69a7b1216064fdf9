"""How a run reports progress: one line per run entry and a total, or nothing (quiet and JSON modes)."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Where the scheduler reports what happened; implementations must be cheap (called per instance)."""

    def start(self, runs: list[tuple[str, int, int]]) -> None:
        """Before anything is sent: each run's (label, total instances, already done)."""
        ...

    def advance(self, run: int, ok: bool) -> None:
        """Run number `run` finished one instance (answered, or stored as failed)."""
        ...

    def finish(self) -> None:
        """Everything finished or stopped."""
        ...


class NoProgress:
    """Progress that shows nothing."""

    def start(self, runs: list[tuple[str, int, int]]) -> None:
        """Ignore."""

    def advance(self, run: int, ok: bool) -> None:
        """Ignore."""

    def finish(self) -> None:
        """Ignore."""
