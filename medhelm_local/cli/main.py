"""The `medhelm-local` command: parse, call the library, print. No evaluation logic lives here."""

from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Iterable, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any, TextIO

import typer

from medhelm_local.cli import ALLOWLIST
from medhelm_local.cli.output import err
from medhelm_local.errors import ConfigError, MedhelmError, MedhelmWarning
from medhelm_local.run.in_force import in_force
from medhelm_local.settings import Settings, load_settings

# The settings the command loaded: where refused connections are recorded when it ends.
_loaded: list[Settings] = []

app = typer.Typer(
    name="medhelm-local",
    help="Evaluate language models on MedHELM's clinical benchmarks inside your own network. "
         "Results go to encrypted stores; nothing is downloaded and nothing leaves.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(
    ctx: typer.Context,
    config: Path | None = typer.Option(
        None, "--config", "-c", envvar="MEDHELM_CONFIG", dir_okay=False,
        help="TOML config file. Default: $XDG_CONFIG_HOME/medhelm-local/config.toml if it exists."),
) -> None:
    ctx.obj = config


def settings_from(ctx: typer.Context, **overrides: object) -> Settings:
    """Settings for a command: its flags over environment over the config file; logging set up; the
    policy loaded (a policy that does not validate stops the command) and its allowlist enforced."""
    root = ctx.find_root()
    settings = load_settings(root.obj, _from_cli=True, **overrides)
    ctx.meta[ALLOWLIST] = in_force(settings)
    _loaded.append(settings)
    _set_up_logging(settings)
    return settings


def _set_up_logging(settings: Settings) -> None:
    """Operational logs go to `log_file` only, never to the terminal (the terminal shows results and
    errors); without a log file they go nowhere."""
    logger = logging.getLogger("medhelm_local")
    logger.propagate = False
    for old in list(logger.handlers):
        logger.removeHandler(old)
    if settings.log_file is None:
        logger.addHandler(logging.NullHandler())
        return
    try:
        handler = _LogFile(settings.log_file)
    except OSError as exc:
        from medhelm_local.errors import ConfigError

        raise ConfigError(f"the log file cannot be opened ({exc.strerror})", where=str(settings.log_file),
                          fix="check the log_file setting and that its folder exists and is writable") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


class _LogFile(logging.FileHandler):
    """The operational log file. A write that fails (a full disk) is a warning, said once; the command goes on
    without it (logging prints a traceback for each failed record by default)."""

    failed = False

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        if self.failed:
            return
        self.failed = True
        reason = sys.exc_info()[1]
        detail = getattr(reason, "strerror", None) or type(reason).__name__
        warnings.warn(MedhelmWarning(f"the log file cannot be written ({detail}): {self.baseFilename}; the command "
                                     "goes on without its operational log"), stacklevel=2)


# Each top-level command and the module that registers it (modules register in this order). A command that runs
# loads only its own module: building every command's options from its signature (typer), and loading modules it
# does not use, was a noticeable part of each start (bench/suite.py). tests/cli/test_commands.py holds this table
# to what each module registers.
COMMANDS: dict[str, str] = {
    "run": "run_cmd", "show": "runs_cmd", "runs": "runs_cmd", "judge": "judge_cmd", "store": "store_cmd",
    "doctor": "admin_cmd", "keys": "admin_cmd", "data": "data_cmd", "taxonomy": "catalog_cmd",
    "benchmarks": "catalog_cmd", "policy": "policy_cmd", "redact": "redact_cmd", "export": "export_cmd",
    "verify": "export_cmd", "audit": "audit_cmd", "report": "report_cmd", "serve": "report_cmd",
    "raters": "raters_cmd", "review": "review_cmd",
}
_registered: set[str] = set()


def register_commands(names: Iterable[str] = COMMANDS) -> None:
    """Add the named commands (default: all) to the app, each module once."""
    for module in dict.fromkeys(COMMANDS[name] for name in names):
        if module not in _registered:
            _registered.add(module)
            import_module(f"medhelm_local.cli.{module}").register(app, settings_from)


def load_commands(args: Sequence[str]) -> None:
    """Register what a command line needs: its command, or every command when it names none of ours."""
    named = command_named(args)
    register_commands([named] if named else COMMANDS)


def command_named(args: Sequence[str]) -> str | None:
    """The command a command line runs (the first word after the root's options), if it is one of ours."""
    words = iter(args)
    for word in words:
        if word in ("-c", "--config"):
            next(words, None)
        elif word.startswith("--config=") or (word.startswith("-c") and not word.startswith("--")):
            continue
        elif word.startswith("-"):
            return None  # --help, or an option click will refuse: it needs every command
        else:
            return word if word in COMMANDS else None
    return None


def main() -> None:
    """Console entry point: every expected error becomes one clear message and a non-zero exit."""
    os.umask(0o077)  # every file and folder this process writes is its owner's alone (stores, WAL, logs, bundles)
    warnings.showwarning = _show_warning
    warnings.simplefilter("always", MedhelmWarning)
    code: int
    load_commands(sys.argv[1:])
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            err.print(exc.code, soft_wrap=True)
    except KeyboardInterrupt:
        err.print("Interrupted. Everything finished so far is saved; run the same command again to resume.")
        code = 130
    except Exception as exc:  # an expected error, one with a clear explanation, or (last) a bug, said as one
        error = exc if isinstance(exc, MedhelmError) else explain_unexpected(exc) or internal_error(exc)
        from rich.text import Text  # here: a command that ends well never loads rich for this

        err.print(Text("Error: ", style="bold red") + Text(error.message), soft_wrap=True)
        code = error.exit_code
    flush_refusals()
    _exit_now(code)


def explain_unexpected(exc: Exception) -> MedhelmError | None:
    """An error the library did not translate, as a clear one where that is possible: DuckDB failing on a
    damaged store (the store opened last), or the operating system refusing a file operation."""
    import duckdb

    from medhelm_local.store.integrity import explain_failure

    if isinstance(exc, duckdb.Error):
        return explain_failure(exc)
    if isinstance(exc, OSError):
        where = str(exc.filename) if exc.filename else None
        return ConfigError(f"the operating system refused a file operation ({exc.strerror or exc})", where=where,
                           fix="check that the path exists, is writable and has space")
    if isinstance(exc, RecursionError):
        return ConfigError("an input nests too deeply to be followed",
                           fix="check that each file given is the right one")
    if isinstance(exc, MemoryError):
        return MedhelmError("the command ran out of memory", fix="check that each file given is the right one, or "
                                                                 "give the command more memory")
    return None


class InternalError(MedhelmError):
    """A bug: an exception the program did not expect. Exit 1, as Python's own for an uncaught exception."""

    exit_code = 1


def internal_error(exc: Exception) -> MedhelmError:
    """A bug, said in one line: the exception's type and where the program raised it (its message is not shown:
    it may quote the data). The frames, without messages, go to the operational log."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "medhelm_local" in f.filename] or frames
    place = f" at {Path(ours[-1].filename).name}, line {ours[-1].lineno}" if ours else ""
    logging.getLogger("medhelm_local").error("internal error %s; frames:\n%s", type(exc).__name__,
                                             "".join(traceback.format_list(frames)))
    return InternalError(f"medhelm-local stopped on an internal error ({type(exc).__name__}{place}); this is a bug",
                         fix="report it with the command you ran (the operational log, if log_file is set, has where "
                             "it happened); everything finished before it is saved")


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None, **_: Any) -> None:
    """MedhelmWarnings as one plain line on stderr; any other warning as Python prints it."""
    if issubclass(category, MedhelmWarning):
        from rich.text import Text

        err.print(Text("Warning: ", style="bold yellow") + Text(str(message)), soft_wrap=True)
        return
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def flush_refusals() -> None:
    """Write the connections the guard refused during this command to the audit log."""
    from medhelm_local.cli.entry import REFUSALS

    if not REFUSALS:
        return
    pending = list(REFUSALS)
    REFUSALS.clear()
    try:
        if not _loaded:
            raise MedhelmError("no settings were loaded, so the audit log is unknown")
        from medhelm_local.audit import audit_log_for

        audit = audit_log_for(_loaded[-1])
        for record in pending:
            audit.append("egress.refused", record)
    except Exception as exc:  # recording is best effort at exit; the refusals themselves already held
        reason = exc.what if isinstance(exc, MedhelmError) else type(exc).__name__
        err.print(f"Warning: {len(pending)} refused connection(s) could not be written to the audit log "
                  f"({reason}); each is in the operational log as a warning.", soft_wrap=True)
        return
    err.print(f"The egress guard refused {len(pending)} connection(s); each is in the audit log "
              "(`medhelm-local audit show --kind egress`).", soft_wrap=True)


def _exit_now(code: int) -> None:
    """Flush output and logs, then leave without interpreter teardown.

    By here every store is closed and the writer thread joined; tearing down pyarrow and
    duckdb modules costs ~90 ms (measured) and does nothing an OS exit does not.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)
