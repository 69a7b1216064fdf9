"""Every command pays the CLI's start-up: what only some commands need is loaded by those commands."""

from __future__ import annotations

import json
import subprocess
import sys

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
