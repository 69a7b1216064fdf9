"""The console entry point: egress layer (b), the audit-hook guard, goes in before anything else loads.

Until the command's settings and policy are read, the guard refuses every connection, look-up
and program; `cli.main` then narrows it to the policy's allowlist. Refusals are kept here and
written to the audit log when the command ends (`flush_refusals`): the hook itself must not
open a database while it is deciding whether a socket may connect.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
from typing import Any

REFUSALS: list[dict[str, Any]] = []


def harmless_programs() -> list[str]:
    """Programs the guard lets start: `uname`, which the standard library's `platform` module runs
    (the openai SDK asks it for the processor name). It reads the kernel's name, nothing else."""
    found = shutil.which("uname")
    return [found] if found else []


def main() -> None:
    """Install the guard, then run the command."""
    # No pydantic plugins: they are code from any installed package's entry points, run inside validation,
    # and looking for them scans every installed distribution at each start.
    os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"
    # pyarrow's buffers (the store writer's batches) from the system allocator, not mimalloc, which keeps what
    # is freed: a long run's peak memory is lower, for no more CPU (docs/performance.md).
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    # Loading the program makes tens of thousands of objects that live as long as it does, and next to no
    # garbage: the cycle collector would only walk them, over and over. So it is off while modules load, and
    # what they made is then frozen out of its reach for the rest of the command (bench/suite.py: an earlier
    # first request and less CPU; docs/performance.md).
    gc.disable()
    from medhelm_local.client.allowed_hosts import Allowlist
    from medhelm_local.policy.guard import install_guard

    install_guard(Allowlist([]), on_refusal=REFUSALS.append, programs=harmless_programs())
    from medhelm_local.cli.main import load_commands
    from medhelm_local.cli.main import main as run_command

    load_commands(sys.argv[1:])  # the command's module is part of what loads: frozen with the rest
    gc.freeze()
    gc.enable()
    run_command()
