"""Package attributes that load their module on first use (PEP 562): importing a package stays cheap.

Standard library only: the policy package uses it before the egress guard is installed.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def lazy_attribute(package: str, homes: Mapping[str, str], name: str) -> Any:
    """`package`'s attribute `name` from the module `homes` names for it; AttributeError for any other name."""
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{package}.{home}"), name)
