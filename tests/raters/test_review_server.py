"""The review pages in the real viewer (`medhelm-local serve` on 127.0.0.1, real HTTP, a real store and audit log):
the viewer's own session only, every redaction highlighted, POST with the CSRF token only, and the viewer's user
may not approve an export they asked for themselves."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import replace

import pytest
from support.appliance import Appliance
from support.raters import Browser
from support.report_viewer import Viewer, serving
from support.review import MISSED, request_review, under_review

from medhelm_local.audit.log import AuditLog
from medhelm_local.export.review import new_review_id, record_request, reviews_folder
from medhelm_local.export.review_web import PAGE_SIZE
from medhelm_local.export.scrubber import Marked
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
    # The page says who may take it from here: anyone in the review's role, not only who asked.
    sent = " ".join(officer.request(path)[2].split())
    assert "anyone who may export in role compliance_officer" in sent and f"review resubmit {review_id}" in sent


def _big_review(app: Appliance, kek: Kek, base_id: str, copies: int) -> tuple[str, int]:
    """A review of a big export: the ward review's values `copies` times over (as distinct values), sealed and put on
    record as `review request` does; (its id, the index of a value on page 2 that holds the missed name)."""
    base = reviews_folder(kek).load(base_id)
    items = tuple(Marked((m.where[0], m.where[1], f"{m.where[2]}-{k}", m.where[3]), m.text, m.marks)
                  for k in range(copies) for m in base.items)
    big = replace(base, id=new_review_id(), items=items)
    record_request(AuditLog(app.audit, kek), reviews_folder(kek), big, "review.requested")
    on_page_two = next(n for n in range(PAGE_SIZE, 2 * PAGE_SIZE) if MISSED in items[n].text)
    return big.id, on_page_two


def test_a_big_review_comes_in_pages_linked_by_plain_get_links(viewer: Viewer, reviewed: tuple[Appliance, str],
                                                               kek: Kek) -> None:
    app, base_id = reviewed
    copies = -(-(2 * PAGE_SIZE + 7) // len(reviews_folder(kek).load(base_id).items))  # a third page, part full
    review_id, target = _big_review(app, kek, base_id, copies)
    total = copies * len(reviews_folder(kek).load(base_id).items)
    officer = _officer(viewer)
    path = f"/review/{review_id}"

    status, _, first = officer.request(path)
    assert status == 200
    assert f'id="value-{PAGE_SIZE - 1}"' in first and f'id="value-{PAGE_SIZE}"' not in first
    assert f'href="{path}?page=2"' in first and f'href="{path}?page=3"' in first and "page 1 of 3" in first
    assert 'id="approve"' not in first and 'id="approve-later"' in first  # approval waits for the last page
    _, _, last = officer.request(f"{path}?page=3")
    assert f'id="value-{2 * PAGE_SIZE}"' in last and f'id="value-{total - 1}"' in last and 'id="approve"' in last
    assert f'href="{path}?page=2"' in last and 'rel="prev"' in last and 'rel="next"' not in last
    for bad in ("4", "0", "x", "-1"):
        status, _, body = officer.request(f"{path}?page={bad}")
        assert status == 404 and "has 3 page(s)" in body
    # A flag sent from page 2 comes back to page 2, at its value, and every page lists it with a link there.
    _, _, second = officer.request(f"{path}?page=2")
    status, headers, _ = officer.request(path, {"csrf": _csrf(second), "action": "flag", "item": str(target),
                                                "text": MISSED, "type": "NAME", "page": "2"})
    assert status == 303 and headers["location"].endswith(f"{path}?page=2&done=flagged#value-{target}"), headers
    _, _, second = officer.request(f"{path}?page=2")
    assert re.search(rf'<mark class="flagged" title="NAME[^"]*"[^>]*>{MISSED}</mark>', second)
    _, _, first = officer.request(path)
    assert f'href="{path}?page=2#value-{target}"' in first and "Flagged as missed" in first
    # Every page is a GET: the only forms are the POST ones with the CSRF token.
    for page in (first, second, last):
        forms = re.findall(r"<form[^>]*>", page)
        assert forms and all('method="post"' in f for f in forms)
    # The list of reviews pages the same way, newest first.
    _, _, listing = officer.request("/review")
    assert listing.index(review_id) < listing.index(base_id)
    assert officer.request("/review?page=2")[0] == 404
