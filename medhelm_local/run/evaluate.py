"""`evaluate()`: a suite run from Python, the same one `medhelm-local run` makes (run/suite.py)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

from medhelm_local.errors import ConfigError, MedhelmWarning
from medhelm_local.file_modes import owner_only
from medhelm_local.progress import Progress, checked_progress
from medhelm_local.run.entries import RunEntry
from medhelm_local.run.suite import SuiteRequest, SuiteRun, run_suite, suite_request
from medhelm_local.settings import Settings


def _warn(message: str) -> None:
    warnings.warn(MedhelmWarning(message), stacklevel=3)


def _count(value: object, name: str) -> int | None:
    """A count argument as the CLI's `min=1` options take it: None, or a whole number of at least 1 (0, '5' and True
    are refused here, naming the argument, rather than failing inside the sampler)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} must be a whole number of at least 1, not {value!r}", where=f"{name} argument",
                          fix=f"pass e.g. {name}=50, or None for " + ("every instance" if name == "max_eval_instances"
                                                                      else "the deployments' max_concurrency"))
    return value


@owner_only
def evaluate(entries: str | Sequence[str | RunEntry] = (), *, suite_file: str | Path | None = None,
             confs: Sequence[str] = (), config: Settings | str | Path | None = None, suite: str | None = None,
             max_eval_instances: int | None = None, concurrency: int | None = None, store: str | Path | None = None,
             output_dir: str | Path | None = None, data_root: str | Path | None = None, jury: str | None = None,
             progress: Progress | bool | None = None) -> SuiteRun:
    """Evaluate run entries (or a suite file, or conf files) into the suite's encrypted store and return what the
    runs produced; calling it again with the same arguments resumes. Failed requests are stored and counted,
    not raised: see `SuiteRun.outcomes` (`all_failed`) and `SuiteRun.failed`. Errors are `MedhelmError`s."""
    from medhelm_local.run.in_force import settings_in_force

    progress = checked_progress(progress)
    max_eval_instances = _count(max_eval_instances, "max_eval_instances")
    concurrency = _count(concurrency, "concurrency")

    def read_request() -> SuiteRequest:
        # The policy is read once; a policy that does not validate stops here.
        settings, allowlist = settings_in_force(config, output_dir=None if output_dir is None else Path(output_dir),
                                                data_root=None if data_root is None else Path(data_root))
        listed = [entries] if isinstance(entries, str) else list(entries)
        return suite_request(settings, allowlist, listed, confs, None if suite_file is None else Path(suite_file),
                             suite=suite, max_eval_instances=max_eval_instances, concurrency=concurrency,
                             store=None if store is None else Path(store), jury=jury)

    return run_suite(read_request, progress, _warn)
