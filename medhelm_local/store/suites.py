"""Suite names, which become file names: `<output_dir>/<suite>.duckdb`, and nothing outside that folder.

A name is letters, digits, `.`, `_` and `-`, starts with a letter or digit, and is at most 100
characters, so `../x`, `/tmp/x` or a name longer than a file name may be are refused before any
path is built from it.
"""

from __future__ import annotations

import re
from pathlib import Path

from medhelm_local.errors import ConfigError

MAX_SUITE_NAME = 100
_SUITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def is_suite_name(name: str) -> bool:
    """True if `name` may name a suite (and so a store file in the output folder)."""
    return len(name) <= MAX_SUITE_NAME and _SUITE_NAME.fullmatch(name) is not None and ".." not in name


def check_suite_name(name: str) -> str:
    """`name` if it may name a suite; ConfigError saying what is allowed otherwise."""
    if not is_suite_name(name):
        shown = name if len(name) <= 40 else f"{name[:40]}... ({len(name)} characters)"
        raise ConfigError(f"'{shown}' is not a suite name: a suite name becomes a file name in the output folder",
                          where="suite name (as given, or the suite file's name)",
                          fix=f"use up to {MAX_SUITE_NAME} letters, digits, '.', '_' and '-', starting with a letter "
                              "or digit (no '/' and no '..'); to use a store elsewhere, name the store file itself")
    return name


def suite_store_path(output_dir: Path, suite: str) -> Path:
    """The store file of a suite in the output folder (ConfigError for a name that is not a suite name)."""
    return output_dir / f"{check_suite_name(suite)}.duckdb"
