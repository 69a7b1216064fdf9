"""The review pages in the real viewer (`medhelm-local serve` on 127.0.0.1, real HTTP, a real store and audit log):
the viewer's own session only, every redaction highlighted, POST with the CSRF token only, and the viewer's user
may not approve an export they asked for themselves."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
from support.appliance import Appliance
from support.raters import Browser
from support.report_viewer import Viewer, serving
from support.review import MISSED, request_review, under_review

from medhelm_local.export.review import reviews_folder
from medhelm_local.store.keys import Kek


@pytest.fixture
def reviewed(appliance: Appliance, kek: Kek) -> tuple[Appliance, str]:
    app = under_review(appliance, kek)
    return app, request_review(app)


@pytest.fixture
def viewer(reviewed: tuple[Appliance, str]) -> Iterator[Viewer]:
    app = reviewed[0]
    env = {**app.env, "MEDHELM_CONFIG": str(app.config)}
    with serving("--store", str(app.store), "--port", "0", env=env) as running:
        yield running


def _officer(viewer: Viewer) -> Browser:
    officer = Browser(viewer.base)
    status, headers, _ = officer.request(f"/?token={viewer.token}")
    assert status == 303 and "samesite=strict" in headers["set-cookie"].lower()
    return officer


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert found is not None, page[:500]
    return found.group(1)


def test_the_review_pages_need_the_viewers_own_session(viewer: Viewer, reviewed: tuple[Appliance, str]) -> None:
    stranger = Browser(viewer.base)
    for path in ("/review", f"/review/{reviewed[1]}"):
        status, _, body = stranger.request(path)
        assert status == 401 and MISSED not in body
    status, _, _ = stranger.request(f"/review/{reviewed[1]}", {"action": "send_back", "csrf": "x"})
    assert status == 401
    status, _, listing = viewer.authorised("/review")
    assert status == 200 and reviewed[1].encode() in listing


def test_every_redaction_is_highlighted_and_nothing_else_is(viewer: Viewer, reviewed: tuple[Appliance, str],
                                                            kek: Kek) -> None:
    officer = _officer(viewer)
    status, headers, page = officer.request(f"/review/{reviewed[1]}")
    assert status == 200 and "content-security-policy" in headers
    review = reviews_folder(kek).load(reviewed[1])
    marks = re.findall(r'<mark class="redaction" title="([A-Z_]+)"[^>]*>([^<]*)</mark>', page)
    assert len(marks) == sum(len(m.marks) for m in review.items) > 0
    assert {html.unescape(text) for _, text in marks} >= {"[NAME]", "[MRN]", "[PHONE]"}
    assert all(html.unescape(text) == f"[{kind}]" for kind, text in marks)  # mask style: each shows its type
    assert MISSED in page and "pending" in page


def test_a_form_without_the_csrf_token_or_from_another_site_is_refused(viewer: Viewer,
                                                                      reviewed: tuple[Appliance, str]) -> None:
    officer = _officer(viewer)
    path = f"/review/{reviewed[1]}"
    _, _, page = officer.request(path)
    flag = {"action": "flag", "item": "0", "text": "x", "type": "NAME"}
    assert officer.request(path, flag)[0] == 403
    assert officer.request(path, {**flag, "csrf": "0" * 64})[0] == 403
    assert officer.request(path, {**flag, "csrf": _csrf(page)}, headers={"Sec-Fetch-Site": "cross-site"})[0] == 403
    assert officer.request(path, method="PUT")[0] == 405
    app = reviewed[0]
    assert not [r for r in app.audit_records() if r["kind"] == "review.flagged"]


def test_a_flag_from_the_page_is_recorded_and_the_viewers_own_request_is_not_approved(
        viewer: Viewer, reviewed: tuple[Appliance, str], kek: Kek) -> None:
    app, review_id = reviewed
    officer = _officer(viewer)
    path = f"/review/{review_id}"
    _, _, page = officer.request(path)
    item = next(i for i, m in enumerate(reviews_folder(kek).load(review_id).items) if MISSED in m.text)
    status, headers, _ = officer.request(path, {"csrf": _csrf(page), "action": "flag", "item": str(item),
                                                "text": MISSED, "type": "NAME"})
    assert status == 303, headers
    _, _, page = officer.request(path)
    assert re.search(rf'<mark class="flagged" title="NAME[^"]*"[^>]*>{MISSED}</mark>', page)
    assert re.search(r'id="approve"\s+disabled', page)
    # The viewer runs as the user who asked for the review: approving is refused, and recorded.
    status, _, body = officer.request(path, {"csrf": _csrf(page), "action": "approve"})
    assert status == 403 and "missed identifier" in body and "another person" in body
    kinds = [r["kind"] for r in app.audit_records() if r["kind"].startswith("review.")]
    assert kinds == ["review.requested", "review.flagged", "review.approve_refused"]
    flagged = next(r for r in app.audit_records() if r["kind"] == "review.flagged")
    assert MISSED not in str(flagged) and flagged["details"]["type"] == "NAME"
    status, _, _ = officer.request(path, {"csrf": _csrf(page), "action": "send_back"})
    assert status == 303
    assert "sent back" in officer.request("/review")[2]
