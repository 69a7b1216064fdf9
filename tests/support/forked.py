"""How a forked child that runs the program ends: as the installed console script would, without teardown."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn


def exit_like_the_script(call: Callable[[], object]) -> NoReturn:
    """Run `call`, then leave the process with the status the console script would give: 0, SystemExit's code
    (1 for a message), or 1 after a traceback for an exception that escaped. Output is flushed first; the
    interpreter is not torn down (a forked child shares its parent's open files and threads' state)."""
    try:
        call()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # what the interpreter does with an uncaught exception: a traceback, exit 1
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
