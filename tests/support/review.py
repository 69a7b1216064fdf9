"""Reviews in tests: the shipped policy wants a person's review before free text of gated or private runs leaves.

`under_review` adds a name the shipped rules miss to the ward store's private answer (the gap the review closes).
`approved_review` asks for a review as the CLI's user and has a second person approve it through the library call
the viewer's page makes (`review_gate.approve`, signed with the export signing key): what an export test needs to
take the ward's text out the way a hospital does. `review_not_required` gives a test its own approved policy with
`review.required: false`, for tests about something else, each saying why."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Protocol

from medhelm_local.audit.log import AuditLog
from medhelm_local.export.review import reviews_folder
from medhelm_local.export.review_gate import approve
from medhelm_local.export.signing import load_signing_key
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from support.appliance import Appliance
from support.phi_store import PRIVATE_RUN

MISSED = "Brannagh"  # tests/export/test_review.py checks the shipped rules do not find it
OFFICER = "officer_b"  # the compliance officer who approves: not the CLI's user, who asks and exports
REQUIRED = "review:\n  required: true\n  different_person: true\n"


def under_review(appliance: Appliance, kek: Kek) -> Appliance:
    """The ward appliance (the shipped policy: review required) with a missed name in the private run's answer."""
    from conftest import SHIPPED_POLICIES

    assert REQUIRED in (SHIPPED_POLICIES / "export.yaml").read_text(), "the shipped policy no longer wants reviews"
    handle = open_store(appliance.store, kek)
    try:
        handle.con.execute("UPDATE completions SET text = text || ' Sepsis likely; ' || ? || ' agrees.' "
                           "WHERE run_id = ? AND ok", [MISSED, PRIVATE_RUN])
    finally:
        handle.close()
    return appliance


class _HasCli(Protocol):
    def cli(self, *args: str) -> subprocess.CompletedProcess[str]: ...


def request_review(app: _HasCli, *extra: str, target: str = "ward", role: str = "compliance_officer") -> str:
    """`review request TARGET --role ROLE` as the CLI's user; the review's id."""
    done = app.cli("review", "request", target, "--role", role, *extra)
    assert done.returncode == 0, done.stderr
    found = re.search(r"Review (rv-[0-9a-f]+)", done.stdout)
    assert found, done.stdout
    return found.group(1)


def approve_as_officer(audit: Path, kek: Kek, signing_key: Path, review_id: str, officer: str = OFFICER) -> None:
    """`officer` approves the review as the viewer's page does: `review_gate.approve`, signed with the export signing
    key, under the policy's different-person rule."""
    approve(AuditLog(audit, kek), reviews_folder(kek), review_id, load_signing_key(signing_key, kek), officer, True)


def approved_review(app: _HasCli, kek: Kek, *extra: str, target: str = "ward", role: str = "compliance_officer",
                    officer: str = OFFICER, audit: Path | None = None, signing_key: Path | None = None) -> str:
    """A review of `export TARGET --role ROLE EXTRA...` asked for by the CLI's user and approved by `officer` as the
    viewer approves; export with `--review` and the id. `audit` and `signing_key` default to an Appliance's."""
    review_id = request_review(app, *extra, target=target, role=role)
    approve_as_officer(audit or app.audit, kek, signing_key or app.signing_key, review_id,  # type: ignore[attr-defined]
                       officer)
    return review_id


def review_not_required(app: Appliance, why: str) -> None:
    """The appliance's policy with `review.required: false` (approved), for a test whose subject is not the review;
    `why` says what the test is about, so a reader sees the gate was set aside on purpose."""
    assert len(why) > 10, "say why this test sets the review aside"
    app.edit_policy("export.yaml", "review:\n  required: true", "review:\n  required: false")


def requested_by(app: Appliance, kek: Kek, person: str) -> str:
    """A review of `export ward --role compliance_officer` that `person` asked for (built as `review request`
    builds it; `person` is a second account, as on a shared appliance); its id."""
    import secrets

    from medhelm_local.export import ExportRequest, Target
    from medhelm_local.export.review import Review, new_review_id, record_request
    from medhelm_local.export.service import build_for_review
    from medhelm_local.policy.loader import load_policy
    from medhelm_local.settings import load_settings

    settings = load_settings(app.config)
    policy = load_policy(settings.policy_dir)
    audit, secret = AuditLog(app.audit, kek), secrets.token_bytes(32)
    asked = ExportRequest(Target(app.store, None), Path("."), "compliance_officer")
    items = build_for_review(settings, policy, kek, audit, asked, secret, ())
    made = Review(new_review_id(), 1, str(app.store.resolve()), None, "compliance_officer", None, person, secret.hex(),
                  (), tuple(items))
    record_request(audit, reviews_folder(kek), made, "review.requested")
    return made.id
