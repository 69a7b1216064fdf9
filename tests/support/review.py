"""An appliance whose policy wants a person's review before private free text leaves, and whose private answer
names someone the shipped redaction rules miss (the gap the review closes)."""

from __future__ import annotations

import re

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from support.appliance import Appliance
from support.phi_store import PRIVATE_RUN

MISSED = "Brannagh"  # tests/export/test_review.py checks the shipped rules do not find it
OFFICER = "officer_b"
REVIEW_ON = "review:\n  required: true\n  different_person: true\n\nredaction:"


def under_review(appliance: Appliance, kek: Kek) -> Appliance:
    """The ward appliance with review required and a missed name in the private run's answer."""
    handle = open_store(appliance.store, kek)
    try:
        handle.con.execute("UPDATE completions SET text = text || ' Sepsis likely; ' || ? || ' agrees.' "
                           "WHERE run_id = ? AND ok", [MISSED, PRIVATE_RUN])
    finally:
        handle.close()
    appliance.edit_policy("export.yaml", "redaction:", REVIEW_ON)
    return appliance


def request_review(app: Appliance, *extra: str) -> str:
    """`review request ward` as the CLI's user; the review's id."""
    done = app.cli("review", "request", "ward", "--role", "compliance_officer", *extra)
    assert done.returncode == 0, done.stderr
    found = re.search(r"Review (rv-[0-9a-f]+)", done.stdout)
    assert found, done.stdout
    return found.group(1)
