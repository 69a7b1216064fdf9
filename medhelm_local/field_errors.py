"""Pydantic's validation errors as the person who wrote the file or the call reads them: a misspelt key first.

A misspelt key shows up twice, as an unknown key and as a missing one ('base_ur' and 'base_url'). The unknown
one points at what to fix, so it comes first, with the name it most likely meant; when that name is the missing
one, the two are one mistake and the missing one is not counted as another problem. Settings (TOML, flags,
keyword arguments) and every YAML file the appliance reads report it the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


def typo_first(errors: Iterable[Any], top_level_known: Iterable[str] = ()) -> tuple[list[Any], str | None]:
    """The errors with an unknown key first, and the name that key most likely meant: a missing key beside it,
    else, for a key at the top of the document, one of `top_level_known` (the names a keyword argument may take,
    which no error lists). None when nothing is close, or when the first error is not an unknown key."""
    ordered = sorted(errors, key=lambda e: e["type"] != "extra_forbidden")
    first = ordered[0]
    if first["type"] != "extra_forbidden":
        return ordered, None
    loc = tuple(first["loc"])
    missing = [str(e["loc"][-1]) for e in ordered if e["type"] == "missing" and tuple(e["loc"][:-1]) == loc[:-1]]
    close = difflib.get_close_matches(str(loc[-1]), [*missing, *(top_level_known if len(loc) == 1 else ())], n=1)
    if not close:
        return ordered, None
    if close[0] in missing:  # the missing name is the same mistake, not another one
        ordered = [e for e in ordered if not (e["type"] == "missing" and tuple(e["loc"]) == (*loc[:-1], close[0]))]
    return ordered, close[0]
