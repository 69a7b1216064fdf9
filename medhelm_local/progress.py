"""How a run reports progress: one line per run entry, a total and one per judge, or nothing (quiet and JSON modes)."""

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

    def judging(self, judge: str, more: int) -> None:
        """`more` ratings are now expected of this judge (a run learns them as answers arrive)."""
        ...

    def judged(self, judge: str, ok: bool) -> None:
        """The judge rated one answer, or its rating is stored as failed."""
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

    def judging(self, judge: str, more: int) -> None:
        """Ignore."""

    def judged(self, judge: str, ok: bool) -> None:
        """Ignore."""

    def finish(self) -> None:
        """Ignore."""
