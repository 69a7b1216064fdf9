"""How a run reports progress: one line per run entry, a total and one per judge, or nothing (quiet and JSON modes)."""

from __future__ import annotations

from typing import Protocol

from medhelm_local.errors import ConfigError


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


_HOOKS = ("start", "advance", "judging", "judged", "finish")


def checked_progress(progress: object) -> Progress | None:
    """`progress` as `evaluate()` and `judge()` take it: None, or an object with every `Progress` method. Anything
    else (`True`, a string, a tqdm class) is refused before anything is read or sent, rather than failing deep in
    the scheduler with an AttributeError once the run has started."""
    if progress is None:
        return None
    missing = [name for name in _HOOKS if not callable(getattr(progress, name, None))]
    if missing:
        raise ConfigError(f"progress is not a Progress: a {type(progress).__name__} has no {', '.join(missing)}",
                          where="progress argument",
                          fix="pass None (no progress shown), medhelm_local.NoProgress(), or your own object with "
                              "start, advance, judging, judged and finish (docs/python-api.md, `Progress`)")
    return progress  # type: ignore[return-value]  # checked above: it has every method the scheduler calls
