"""Every command pays the CLI's start-up: what only some commands need is loaded by those commands."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from conftest import FakeServer, run_cli, write_config

# The HTTP client and the run scheduler (only `run`, `judge`, `doctor`), numerical and columnar libraries
# (aggregates, the writer), and the jury's agreement statistics.
HEAVY = ("httptools", "numpy", "pyarrow", "nltk", "krippendorff", "medhelm_local.run.scheduler",
         "medhelm_local.annotate.judging", "medhelm_local.client.completions")


def test_starting_the_cli_loads_no_http_client_scheduler_or_numerics() -> None:
    probe = ("import sys, medhelm_local.cli.main; "
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m in {HEAVY!r}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_reading_every_benchmark_card_loads_no_http_client() -> None:
    """`benchmarks list` and `report` read every card (and the rubrics they name), never the judges' client."""
    probe = ("import sys; from medhelm_local.scenarios.registry import names; names(); "
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m in {HEAVY!r}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_the_command_runs_with_the_cycle_collector_on_and_the_loaded_program_frozen_out_of_it() -> None:
    """Loading skips the cycle collector (cli/entry.py); a command that left it off would keep every cycle it
    made, for hours in a long run."""
    probe = ("import gc, json, medhelm_local.cli.main as app; from medhelm_local.cli import entry; "
             "app.main = lambda: print(json.dumps([gc.isenabled(), gc.get_freeze_count()])); entry.main()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    enabled, frozen = json.loads(done.stdout)
    assert enabled and frozen > 10_000


def _loaded_rich(ran: subprocess.CompletedProcess[str]) -> bool:
    """Whether the command imported rich (PYTHONPROFILEIMPORTTIME lists every import on stderr as it happens)."""
    return any(line.startswith("import time:") and line.rsplit("|", 1)[-1].strip().split(".")[0] == "rich"
               for line in ran.stderr.splitlines())


def test_a_run_that_prints_nothing_to_the_terminal_never_loads_rich(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """`run --quiet` and `run --json` (a Kubernetes Job, a pipeline) skip rich's ~25-40 ms of start-up; a run that
    shows its table loads it."""
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {
        "base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file), "PYTHONPROFILEIMPORTTIME": "1"}
    entry = "pubmed_qa:model=local/fake,model_deployment=fake"
    quiet = run_cli("-c", str(config), "run", entry, "-m", "3", "--suite", "quiet", "--quiet", env=env)
    as_json = run_cli("-c", str(config), "run", entry, "-m", "3", "--suite", "json", "--json", env=env)
    shown = run_cli("-c", str(config), "run", entry, "-m", "3", "--suite", "shown", env=env)
    assert quiet.returncode == as_json.returncode == shown.returncode == 0, quiet.stderr[-2000:]
    assert json.loads(as_json.stdout)["runs"][0]["run"]["n_ok"] == 3
    assert not _loaded_rich(quiet) and not _loaded_rich(as_json)
    assert _loaded_rich(shown) and "pubmed_qa" in shown.stdout


def _loaded(ran: subprocess.CompletedProcess[str]) -> set[str]:
    """Every module the command imported (PYTHONPROFILEIMPORTTIME lists them on stderr)."""
    return {line.rsplit("|", 1)[-1].strip() for line in ran.stderr.splitlines() if line.startswith("import time:")}


def test_showing_a_stored_run_loads_no_http_client_or_scheduler(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    """`show` prints a stored run as a run's outcome (results/outcomes.py), which the scheduler also makes."""
    server = fake_server()
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"fake": {
        "base_url": server.base_url}})
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    ran = run_cli("-c", str(config), "run", "pubmed_qa:model=local/fake,model_deployment=fake", "-m", "3",
                  "--suite", "shown", "--json", env=env)
    run_id = json.loads(ran.stdout)["runs"][0]["run"]["run_id"]
    shown = run_cli("-c", str(config), "show", run_id, "--json", env={**env, "PYTHONPROFILEIMPORTTIME": "1"})
    assert shown.returncode == 0 and json.loads(shown.stdout)["run"]["run_id"] == run_id, shown.stderr[-2000:]
    heavy = {name for name in _loaded(shown) if name.split(".")[0] in HEAVY or name in HEAVY}
    assert not heavy, heavy
