"""How a run reports progress: one line per run entry, a total and one per judge, or nothing (quiet and JSON modes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from medhelm_local.errors import ConfigError

if TYPE_CHECKING:  # rich loads when the bars open: a quiet run never loads it
    from rich.console import Console
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID


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


class BarProgress:
    """Rich progress bars: one per run entry, a total, and one per judge; done/total, rate, failures, ETA. In a
    terminal they redraw in place; in a notebook rich draws them in the cell's output.

    The bars stay open until `finish`, which the run and the judge pass call once the last rating is stored:
    generation done is not the run done while its judges still rate.
    """

    def __init__(self, console: Callable[[], Console] | None = None) -> None:
        self._console = console  # makes the console to draw on when the bars open (default: rich's, on stderr)
        self._progress: RichProgress | None = None
        self._tasks: list[TaskID] = []
        self._total: TaskID | None = None
        self._failed: list[int] = []
        self._judges: dict[str, TaskID] = {}
        self._judge_failed: dict[str, int] = {}

    def start(self, runs: list[tuple[str, int, int]]) -> None:
        """Open a bar per run and a total; instances done in an earlier invocation start them off."""
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        console = self._console() if self._console is not None else Console(stderr=True)
        self._progress = RichProgress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[cyan]{task.fields[rate]}"),
            TextColumn("[red]{task.fields[failed]} failed"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=console, transient=False, refresh_per_second=4,
        )
        self._progress.start()
        self._tasks = [self._progress.add_task(label[:60], total=total, completed=done, failed=0, rate="")
                       for label, total, done in runs]
        self._failed = [0] * len(runs)
        if len(runs) > 1:
            self._total = self._progress.add_task("total", total=sum(t for _, t, _ in runs),
                                                  completed=sum(d for _, _, d in runs), failed=0, rate="")

    def advance(self, run: int, ok: bool) -> None:
        """Run number `run` finished one instance (successfully or as a stored failure)."""
        if self._progress is None:
            return
        if not ok:
            self._failed[run] += 1
        for task, failed in ((self._tasks[run], self._failed[run]), (self._total, sum(self._failed))):
            if task is None:
                continue
            speed = self._progress.tasks[task].speed
            self._progress.update(task, advance=1, failed=failed, rate=f"{speed:.1f}/s" if speed else "")

    def judging(self, judge: str, more: int) -> None:
        """A bar for the judge (opened on first use) expects `more` ratings."""
        if self._progress is None:
            return
        task = self._judges.get(judge)
        if task is None:
            self._judges[judge] = self._progress.add_task(f"judge {judge}"[:60], total=more, failed=0, rate="")
            self._judge_failed[judge] = 0
        else:
            self._progress.update(task, total=(self._progress.tasks[task].total or 0) + more)

    def judged(self, judge: str, ok: bool) -> None:
        """The judge's bar moves one rating on (a failed one counted as failed)."""
        task = self._judges.get(judge)
        if self._progress is None or task is None:
            return
        self._judge_failed[judge] += 0 if ok else 1
        speed = self._progress.tasks[task].speed
        self._progress.update(task, advance=1, failed=self._judge_failed[judge], rate=f"{speed:.1f}/s" if speed else "")

    def finish(self) -> None:
        """Close the bars."""
        if self._progress is not None:
            self._progress.stop()
        self._progress = None


_HOOKS = ("start", "advance", "judging", "judged", "finish")


def checked_progress(progress: object) -> Progress | None:
    """`progress` as `evaluate()` and `judge()` take it: None or False (nothing shown), True (`BarProgress`), or an
    object with every `Progress` method. Anything else (a string, a tqdm class) is refused before anything is read
    or sent, rather than failing deep in the scheduler with an AttributeError once the run has started."""
    if progress is None or progress is False:
        return None
    if progress is True:
        return BarProgress()
    missing = [name for name in _HOOKS if not callable(getattr(progress, name, None))]
    if missing:
        raise ConfigError(f"progress is not a Progress: a {type(progress).__name__} has no {', '.join(missing)}",
                          where="progress argument",
                          fix="pass True (progress bars), None (nothing shown), or your own object with "
                              "start, advance, judging, judged and finish (docs/python-api.md, `Progress`)")
    return progress  # type: ignore[return-value]  # checked above: it has every method the scheduler calls
