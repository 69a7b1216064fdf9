"""Every kind of audit record the code writes is one `audit show --kind` knows."""

from __future__ import annotations

import re

from conftest import REPO

from medhelm_local.audit import KINDS

# A kind is "<family>.<outcome>"; the gate passes some through a variable, so look for the literals.
_OUTCOMES = "started|allowed|refused|failed|done|approved|approve_refused|checkpoint"
_KIND = re.compile(rf"""["']([a-z_]+\.(?:{_OUTCOMES}))["']""")
_ATTEMPT = re.compile(r"""recorded_attempt\(\s*\w+,\s*["']([a-z_]+)["']""")


def test_every_kind_the_code_writes_is_listed() -> None:
    written: set[str] = set()
    for path in (REPO / "medhelm_local").rglob("*.py"):
        text = path.read_text()
        written |= set(_KIND.findall(text))
        written |= {f"{family}.{outcome}" for family in _ATTEMPT.findall(text) for outcome in ("refused", "failed")}
    assert {"export.started", "export.allowed", "policy.approved", "egress.refused", "data_import.failed",
            "audit.checkpoint"} <= written
    assert written - set(KINDS) == set(), "add these kinds to KINDS in medhelm_local/audit/log.py"
