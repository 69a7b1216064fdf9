"""A review's resubmission or approval killed (as `kill -9` would) at any step that writes leaves nothing
half-written: the sealed review opens, the audit log verifies, a round the log does not have on record cannot be
approved, and running the command again finishes the job; an export then leaves only the approved, masked text."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest
from kill_probe import Probe
from support.appliance import Appliance
from support.review import MISSED, OFFICER, request_review, under_review

from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ExportRefusedError
from medhelm_local.export.review import reviews_folder, state_of
from medhelm_local.export.review_gate import approve, flag
from medhelm_local.export.signing import load_signing_key
from medhelm_local.store.keys import Kek


def _killed_at(probe: Probe, app: Appliance, step: int, *args: str) -> int:
    code, stderr = probe.run(step, app.audit.parent, *args)
    assert code in (0, 137), stderr
    return code


def _shown(app: Appliance, review_id: str) -> None:
    """`review show` opens the sealed review on the command line."""
    shown = app.cli("review", "show", review_id, "--json")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["review"] == review_id


def _whole(app: Appliance, kek: Kek, review_id: str) -> tuple[int, int, str, str]:
    """The review as its sealed file and the log hold it: (file round, log round, file digest, log digest); each
    must open and verify."""
    # The sealed file opens (never torn) by the library call `review show` makes; the command itself is run once
    # per kill loop (`_shown`), not at every step, where it cost a command start each time.
    review = reviews_folder(kek).load(review_id)
    assert app.cli("audit", "verify").returncode == 0
    state = state_of(AuditLog(app.audit, kek).records()[1], review_id)
    assert state is not None and review.id == review_id
    assert reviews_folder(kek).ids() == [review_id]  # a temp file a kill left is no review
    return review.round, state.round, review.digest, str(state.requested.details["digest"])


@pytest.fixture
def flagged(appliance: Appliance, kek: Kek) -> tuple[Appliance, str]:
    """A review whose text the officer flagged: the name the rules missed."""
    app = under_review(appliance, kek)
    review_id = request_review(app)
    review = reviews_folder(kek).load(review_id)
    item = next(i for i, m in enumerate(review.items) if MISSED in m.text)
    start = review.items[item].text.index(MISSED)
    flag(AuditLog(app.audit, kek), reviews_folder(kek), review_id, item, start, start + len(MISSED), "NAME", OFFICER)
    return app, review_id


@pytest.fixture
def probe(flagged: tuple[Appliance, str]) -> Iterator[Probe]:
    """The kill probe, started once for the test's every step (each step still a process of its own)."""
    with Probe({**os.environ, **flagged[0].env}) as running:
        yield running


def test_a_resubmission_then_an_approval_killed_at_every_step_leave_nothing_half_done(
        flagged: tuple[Appliance, str], kek: Kek, probe: Probe) -> None:
    app, review_id = flagged
    key = load_signing_key(app.signing_key, kek)
    resubmit = ("-c", str(app.config), "review", "resubmit", review_id, "--mask-flagged")
    step, ahead_seen = 0, 0
    while True:
        step += 1
        finished = _killed_at(probe, app, step, *resubmit) == 0
        on_file, on_record, file_digest, record_digest = _whole(app, kek, review_id)
        if on_file != on_record:
            # Killed after the new round was sealed, before the log had it: the page would show a round nobody
            # asked for on record, and approving it is refused.
            ahead_seen += 1
            assert on_file > on_record
            with pytest.raises(ExportRefusedError, match="not the round the audit log has on record"):
                approve(AuditLog(app.audit, kek), reviews_folder(kek), review_id, key, OFFICER, True)
        else:
            assert file_digest == record_digest
        if finished:
            break
        assert step < 30, "the resubmission never finished"
    assert step > 3 and ahead_seen  # it was killed between sealing and recording, and recovered
    _shown(app, review_id)
    assert MISSED not in json.dumps([m.text for m in reviews_folder(kek).load(review_id).items])

    approval = ("--approve", review_id, OFFICER, str(app.signing_key))
    out = app.root / "bundle"
    for step in range(1, 30):
        finished = _killed_at(probe, app, step, *approval) == 0
        _whole(app, kek, review_id)
        state = state_of(AuditLog(app.audit, kek).records()[1], review_id)
        assert state is not None and state.status in ("pending", "approved")
        if state.status == "approved":
            # Killed just after the approval was committed: the checkpoint that follows it was never written, and
            # the approval counts all the same (it carries the signing key's signature).
            assert AuditLog(app.audit, kek).records()[1][-1].kind == "review.approved"
            break
        assert not finished, "the approval finished without recording itself"
    else:
        raise AssertionError("the approval never got recorded")
    assert step > 1  # the kills before the record left the review pending, and approving again recorded it
    _shown(app, review_id)
    done = app.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", "--review", review_id)
    assert done.returncode == 0, done.stderr
    assert all(MISSED.encode() not in p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert app.cli("verify", str(out), "--public-key", str(app.public_key)).returncode == 0
