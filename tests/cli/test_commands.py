"""The command table: a command that runs loads only the module that registers it (cli/main.py COMMANDS)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from medhelm_local.cli import main as cli


def _registered_by(module: str) -> list[str]:
    app = typer.Typer()
    importlib.import_module(f"medhelm_local.cli.{module}").register(app, cli.settings_from)
    commands = [c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands]
    groups = [g.name or (g.typer_instance.info.name if g.typer_instance else "") for g in app.registered_groups]
    return [*commands, *groups]


def test_the_table_names_every_command_each_module_registers_and_nothing_else() -> None:
    """A command added to a module but not to the table would be missing from the command line: this fails."""
    modules = sorted(p.stem for p in Path(cli.__file__).parent.glob("*_cmd.py"))
    assert sorted(set(cli.COMMANDS.values())) == modules
    for module in modules:
        assert sorted(_registered_by(module)) == sorted(n for n, m in cli.COMMANDS.items() if m == module), module


@pytest.mark.parametrize(("argv", "named"), [
    (["run", "med_qa"], "run"),
    (["-c", "config.toml", "run", "--quiet"], "run"),
    (["--config", "run", "show"], "show"),  # a config file called "run"
    (["--config=config.toml", "report"], "report"),
    (["-cconfig.toml", "judge", "suite"], "judge"),
    (["--help"], None),
    (["-h", "run"], None),
    ([], None),
    (["rnu"], None),  # not a command: every command loads, and click suggests `run`
    (["--verbose", "run"], None),  # an option the root does not have: click says so
])
def test_the_command_is_read_from_the_command_line_after_the_root_options(argv: list[str], named: str | None) -> None:
    assert cli.command_named(argv) == named


def test_the_help_lists_every_command() -> None:
    done = subprocess.run([sys.executable, "-c", "import sys; from medhelm_local.cli import main as m; "
                           "sys.argv = ['medhelm-local', '--help']; m.main()"],
                          capture_output=True, text=True, timeout=120, env={"COLUMNS": "200", "PATH": ""})
    assert done.returncode == 0, done.stderr
    listed = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("│ ") and len(line.split()) > 2]
    assert set(listed) >= set(cli.COMMANDS)


@pytest.mark.parametrize(("argv", "loaded"), [
    (["run", "--help"], ["run_cmd"]),
    (["-c", "none.toml", "show", "--help"], ["runs_cmd"]),
    (["--help"], sorted(set(cli.COMMANDS.values()))),
])
def test_a_command_loads_only_its_own_module(argv: list[str], loaded: list[str]) -> None:
    probe = ("import sys; from medhelm_local.cli import main as m; "
             f"sys.argv = ['medhelm-local', *{argv!r}]; "
             "m._exit_now = lambda code: print(sorted(n.rsplit('.', 1)[1] for n in sys.modules "
             "if n.startswith('medhelm_local.cli.') and n.endswith('_cmd'))); m.main()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == repr(loaded)
