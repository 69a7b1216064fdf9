"""A suite run, assembled once: what the CLI's `run` and the library's `evaluate()` both call.

`suite_request` gathers what to run (run entries, conf files, a suite file) with the options that go
with them; `run_suite` plans the runs, opens the suite's store and evaluates everything into it.
Start-up work overlaps: while the caller reads its settings and entries (`read_request`), one thread
loads the scheduler and its HTTP client, another loads DuckDB's extension; once everything is
checked, the store is attached while connections to the endpoints open (run/connections.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from medhelm_local.audit.log import audit_log_for
from medhelm_local.errors import RunEntryError
from medhelm_local.progress import NoProgress, Progress
from medhelm_local.run.entries import RunEntry, parse_run_entry
from medhelm_local.run.entry_sources import conf_path, entries_from_conf, read_suite
from medhelm_local.run.plan import Shard, longest_text, plan, store_memory_for, store_path_for
from medhelm_local.store.database import StoreHandle, connect, discard_store, open_store
from medhelm_local.store.keys import load_kek
from medhelm_local.store.queries import forget_unstarted_runs, holds_runs

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from medhelm_local.policy.egress_allowlist import PolicyAllowlist
    from medhelm_local.results.outcomes import RunOutcome
    from medhelm_local.settings import Settings

log = logging.getLogger("medhelm_local.run")


@dataclass(frozen=True)
class SuiteRequest:
    """What to evaluate, with the settings and the allowlist (the one the egress guard enforces) to do it with."""

    settings: Settings
    allowlist: PolicyAllowlist
    entries: tuple[RunEntry, ...]
    suite: str = "default"
    max_eval_instances: int | None = None
    concurrency: int | None = None
    shard: Shard | None = None
    store: Path | None = None  # a store file to use instead of the suite's under output_dir
    jury: str | None = None  # the jury for jury-scored benchmarks (default: the jury setting)


@dataclass(frozen=True)
class SuiteRun:
    """What a suite run produced: the store it wrote, each run's outcome, and the runs left unjudged."""

    store: Path
    suite: str
    outcomes: tuple[RunOutcome, ...]
    unjudged: tuple[str, ...]  # runs scored by a jury with none configured: their jury score is pending

    @property
    def failed(self) -> int:
        """Requests stored as failed, over every run."""
        return sum(o.summary.n_failed for o in self.outcomes)


def suite_request(settings: Settings, allowlist: PolicyAllowlist, entries: Sequence[str | RunEntry] = (),
                  confs: Sequence[str] = (), suite_file: Path | None = None, *, suite: str | None = None,
                  priority: int | None = None, model: str | None = None, model_deployment: str | None = None,
                  max_eval_instances: int | None = None, concurrency: int | None = None,
                  shard: str | None = None, store: Path | None = None, jury: str | None = None) -> SuiteRequest:
    """What to run from run entries, conf files (`public` and `gated` are the shipped sets) and a suite file;
    a suite file's name, sample size and concurrency apply where none is given. RunEntryError if nothing."""
    parsed = [e if isinstance(e, RunEntry) else parse_run_entry(e) for e in entries]
    for item in confs:
        parsed += entries_from_conf(conf_path(item), priority, model, model_deployment)
    if suite_file is not None:
        spec = read_suite(suite_file)
        parsed += spec.entries
        suite = suite or spec.name
        max_eval_instances = max_eval_instances or spec.max_eval_instances
        concurrency = concurrency or spec.concurrency
    if not parsed:
        raise RunEntryError("nothing to run", where="what to run",
                            fix="give run entries, a run-entries conf file (or the shipped conf `public`), or a suite "
                                "file")
    return SuiteRequest(settings, allowlist, tuple(parsed), suite or "default", max_eval_instances, concurrency,
                        Shard.parse(shard) if shard is not None else None, store, jury)


def _close_connection(done: Future[DuckDBPyConnection]) -> None:
    """Close a connection made ahead for a store the run never opened (it stopped on an error)."""
    if not done.cancelled() and done.exception() is None:
        done.result().close()


def _leave_nothing_empty(handle: StoreHandle, path: Path, created: bool, run_ids: list[str]) -> None:
    """After a suite run failed: drop the rows of its runs that hold nothing (recorded before an endpoint failed),
    then the store itself if this invocation made it and no run is left, so a failed command leaves no empty
    suite or run behind for `runs list` and reports. A store it cannot read is kept whole: the run's own error is
    the one to report."""
    try:
        forgotten = forget_unstarted_runs(handle.con, run_ids)
        empty = created and not holds_runs(handle.con)
    except duckdb.Error:
        handle.close()
        return
    handle.close()
    if forgotten:
        log.info("%d run(s) that hold nothing removed", len(forgotten))
    if empty and discard_store(path):
        log.info("store %s removed: made by this invocation, it holds no run", path.name)


def run_suite(read_request: Callable[[], SuiteRequest], progress: Progress | None = None,
              on_warning: Callable[[str], None] = lambda _: None, started: float | None = None) -> SuiteRun:
    """Plan the runs `read_request` asks for, open the suite's store and evaluate them all into it; rerunning
    the same request resumes. `read_request` runs while the scheduler and DuckDB load in the background."""
    started = time.perf_counter() if started is None else started
    with ThreadPoolExecutor(2, thread_name_prefix="medhelm-run-setup") as pool:
        loading = pool.submit(import_module, "medhelm_local.run.scheduler")
        connecting = pool.submit(connect, True)
        try:
            request = read_request()
            settings, allowlist = request.settings, request.allowlist
            kek = load_kek(settings)
            planned = plan(settings, list(request.entries), request.suite, request.max_eval_instances,
                           request.shard, allowlist)
            log.info("%d run(s) planned %.3f s after start", len(planned), time.perf_counter() - started)
            from medhelm_local.run.jury_runs import plan_judging  # here: only `run` and `judge` plan juries

            judging = plan_judging(planned, settings, allowlist, request.jury)
            for warning in judging.warnings:
                on_warning(warning)
            path = store_path_for(settings, request.suite, request.store, request.shard)
            # Sized to the longest text the runs will store (run/plan.py); a configured limit is kept.
            memory = settings.store_memory_limit or store_memory_for(planned)
            if memory and not settings.store_memory_limit:
                log.info("store memory limit %s: the longest text is %d KB", memory, longest_text(planned) // 1024)
        except BaseException:
            connecting.add_done_callback(_close_connection)
            raise
        created = not path.exists()
        opening = pool.submit(lambda: open_store(path, kek, create=True, memory_limit=memory, streaming=True,
                                                 connection=connecting.result()))
        loading.result()  # the scheduler module is loaded (or its import error raised) by now
        # Loaded with the scheduler: look-ups, not imports.
        from medhelm_local.run.connections import connect_ahead
        from medhelm_local.run.scheduler import execute

        # While DuckDB attaches the store, which leaves the interpreter free (run/connections.py).
        connected = connect_ahead(planned, allowlist, request.concurrency)
    with connected:
        handle = opening.result()
        log.info("store %s opened %.3f s after start, %d connection(s) open", path.name,
                 time.perf_counter() - started, connected.count())
        try:
            outcomes = execute(planned, handle, allowlist, request.suite, request.concurrency,
                               progress or NoProgress(), judging.judged, connected, audit_log_for(settings))
        except BaseException:
            _leave_nothing_empty(handle, path, created, [p.run_id for p in planned])
            raise
        finally:
            closing = time.perf_counter()
            handle.close()
            log.info("store %s closed in %.3f s", path.name, time.perf_counter() - closing)
    return SuiteRun(path, request.suite, tuple(outcomes), tuple(judging.unjudged))
