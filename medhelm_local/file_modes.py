"""What the library writes is its owner's alone, whoever calls it.

The command sets the process's umask to 077 when it starts (`cli.main`). A notebook or script calling the
library keeps its own umask, commonly 022, under which the stores, their write-ahead logs, the audit log,
reports and export bundles it writes would be readable by every user of the machine. `owner_only` applies
the command's umask for the length of one library call and then gives the caller's back.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

OWNER_ONLY = 0o077


def owner_only(func: Callable[P, R]) -> Callable[P, R]:
    """`func`, writing every file and folder it makes with no access for group or others."""
    @functools.wraps(func)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        # The umask is the process's: a thread of the caller's that writes during this call gets it too, which
        # only ever takes access away.
        before = os.umask(OWNER_ONLY)
        try:
            return func(*args, **kwargs)
        finally:
            os.umask(before)
    return call
