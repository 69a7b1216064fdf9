"""The viewer's review pages (`/review/...`): a compliance officer reads the redacted text an export would carry.

    who         the viewer's own session (its access token, the cookie the report pages use): the
                officer runs `serve` under their own account, and that process's identity
                (`current_actor()`, read once at start) is who flags and approves. A rater's
                session never reaches these pages (RaterGate answers 403 before this gate)
    page        every value, with each redaction highlighted and its type named; flagged spans marked. A big
                export's values come PAGE_SIZE to a page (`?page=N`, plain links, GET only), with every
                flag listed on each page and linked to where it stands; approval is on the last page
    writes      POST only, each with the session's CSRF token (an HMAC of the viewer's token, compared
                in constant time) and a same-origin check; flag a missed identifier (its exact text, found
                in the value), send back, approve. Approval needs the export signing key (the viewer
                opens it at start, when configured); without it the page says so and approves nothing
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import MedhelmError
from medhelm_local.export.review import Review, ReviewFolder, state_of, valid_review_id
from medhelm_local.export.review_gate import approve, flag, send_back
from medhelm_local.export.scrubber import Marked
from medhelm_local.export.signing import SigningKey
from medhelm_local.raters.gate import AdminPages, form_csrf
from medhelm_local.raters.pages import html_page, page_of, paging, parse_form, read_body
from medhelm_local.redact import PhiType
from medhelm_local.report.server import ASGIApp

PAGE_SIZE = 50  # values a review page shows; the reviews list shows as many reviews a page


@dataclass
class ReviewDesk:
    """What the review pages read and write, and who the viewer's user is."""

    folder: ReviewFolder
    audit: AuditLog
    actor: str
    key: SigningKey | None
    different_person: bool
    _lock: threading.Lock = field(default_factory=threading.Lock)


def segments(item: Marked, flags: list[tuple[int, int, str]]) -> list[tuple[str, str, str]]:
    """A value cut into (text, kind, type) pieces: kind is "" (plain), "redaction" or "flagged"."""
    cuts = sorted([(s, e, "redaction", t) for s, e, t in item.marks] + [(s, e, "flagged", t) for s, e, t in flags])
    pieces, at = [], 0
    for start, end, kind, kind_type in cuts:
        if start < at:
            continue  # overlaps the one before: shown as that one
        if start > at:
            pieces.append((item.text[at:start], "", ""))
        pieces.append((item.text[start:end], kind, kind_type))
        at = end
    if at < len(item.text):
        pieces.append((item.text[at:], "", ""))
    return pieces


def _view(review: Review, start: int, end: int) -> list[dict[str, Any]]:
    """The values review.items[start:end] as the page shows them."""
    flags: dict[int, list[tuple[int, int, str]]] = {}
    for f in review.flags:
        flags.setdefault(f.item, []).append((f.start, f.end, f.type))
    return [{"n": n, "where": review.items[n].where, "pieces": segments(review.items[n], flags.get(n, [])),
             "redactions": len(review.items[n].marks), "flagged": len(flags.get(n, []))} for n in range(start, end)]


def _first_outside(item: Marked, text: str) -> int | None:
    """Where `text` first stands in the value outside every redaction, or None."""
    start = item.text.find(text) if text else -1
    while start >= 0:
        end = start + len(text)
        if all(end <= s or start >= e for s, e, _ in item.marks):
            return start
        start = item.text.find(text, start + 1)
    return None


def create_review_app(desk: ReviewDesk, csrf: str) -> Starlette:
    """The /review/... routes (ReviewGate checks the viewer's session before any of them)."""

    async def guarded(work: Callable[[], Response]) -> Response:
        def locked() -> Response:
            with desk._lock:
                return work()
        try:
            return await run_in_threadpool(locked)
        except MedhelmError as exc:
            return PlainTextResponse(exc.message, status_code=400 if exc.exit_code == 2 else 403)

    def no_page(what: str, pages: int) -> Response:
        return PlainTextResponse(f"No such page: {what} has {pages} page(s), numbered from 1.", status_code=404)

    async def listing(request: Request) -> Response:
        def work() -> Response:
            records = [] if desk.audit.absent() else desk.audit.records()[1]
            rows = [(review_id, state_of(records, review_id)) for review_id in desk.folder.ids()]
            # Newest activity first: what waits now is on the first page.
            found = sorted([(i, s) for i, s in rows if s is not None], key=lambda r: r[1].last.seq, reverse=True)
            shown = paging(len(found), request.query_params.get("page"), PAGE_SIZE)
            if shown is None:
                return no_page("the list of reviews", max(1, -(-len(found) // PAGE_SIZE)))
            return html_page("reviews.html", reviews=found[shown.start:shown.end], paging=shown, actor=desk.actor)
        return await guarded(work)

    async def page(request: Request) -> Response:
        review_id = request.path_params["review"]
        if not valid_review_id(review_id):
            return PlainTextResponse("No such review.", status_code=404)

        def work() -> Response:
            review = desk.folder.load(review_id)
            shown = paging(len(review.items), request.query_params.get("page"), PAGE_SIZE)
            if shown is None:
                return no_page(f"review {review_id}", max(1, -(-len(review.items) // PAGE_SIZE)))
            state = state_of([] if desk.audit.absent() else desk.audit.records()[1], review_id)
            flagged = [{"n": f.item, "type": f.type, "page": page_of(f.item, PAGE_SIZE)} for f in review.flags]
            return html_page("review.html", review=review, state_name=state.status if state else "not on record",
                             items=_view(review, shown.start, shown.end), paging=shown, flagged=flagged, csrf=csrf,
                             actor=desk.actor, can_sign=desk.key is not None, types=list(PhiType.__members__),
                             message=request.query_params.get("done", ""))
        return await guarded(work)

    async def act(request: Request) -> Response:
        review_id = request.path_params["review"]
        data = await read_body(request)
        if data is None:
            return PlainTextResponse("The form is too large.", status_code=413)
        form = parse_form(data)
        if not hmac.compare_digest(form.get("csrf", "").encode(), csrf.encode()):
            return PlainTextResponse("This form is not from the review page (its CSRF token is missing or wrong). "
                                     "Reload the page and try again.", status_code=403)
        if not valid_review_id(review_id):
            return PlainTextResponse("No such review.", status_code=404)
        action = form.get("action", "")
        back = form.get("page", "1") if form.get("page", "").isdigit() else "1"  # the page the form was on

        def work() -> Response:
            at = back
            if action == "flag":
                review = desk.folder.load(review_id)
                n = int(form["item"]) if form.get("item", "").isdigit() else -1
                text = form.get("text", "").strip()
                start = _first_outside(review.items[n], text) if 0 <= n < len(review.items) else None
                if start is None:
                    return PlainTextResponse("That text is not in the value outside its redactions: copy the missed "
                                             "identifier exactly as the value shows it.", status_code=400)
                flag(desk.audit, desk.folder, review_id, n, start, start + len(text), form.get("type", "NAME"),
                     desk.actor)
                done, at = "flagged", f"{page_of(n, PAGE_SIZE)}#value-{n}"
            elif action == "send_back":
                send_back(desk.audit, desk.folder, review_id, desk.actor)
                done = "sent back"
            elif action == "approve":
                if desk.key is None:
                    return PlainTextResponse("This viewer holds no export signing key, and an approval is signed "
                                             "with it: the compliance officer serves the viewer with "
                                             "signing_key_file set.", status_code=403)
                approve(desk.audit, desk.folder, review_id, desk.key, desk.actor, desk.different_person)
                done = "approved"
            else:
                return PlainTextResponse("Unknown action.", status_code=400)
            page, _, anchor = at.partition("#")
            return RedirectResponse(f"/review/{review_id}?page={page}&done={done.replace(' ', '+')}"
                                    + (f"#{anchor}" if anchor else ""), status_code=303)
        return await guarded(work)

    return Starlette(routes=[
        Route("/review", listing, methods=["GET", "HEAD"]),
        Route("/review/{review}", page, methods=["GET", "HEAD"]),
        Route("/review/{review}", act, methods=["POST"]),
    ])


class ReviewGate(AdminPages):
    """ASGI middleware: /review/... for the viewer's own session (its token), everything else to `inner`."""

    def __init__(self, inner: ASGIApp, desk: ReviewDesk, token: str, port: int, loopback: bool) -> None:
        super().__init__(inner, "/review", create_review_app(desk, form_csrf(token, "review")), "The review pages",
                         token, port, loopback)


def review_desk(settings: Any, kek: Any) -> ReviewDesk:
    """The review pages' desk for `serve`: the appliance's reviews and log, this process's user, the signing key
    when configured, and the policy's different-person rule (read once, at start)."""
    from medhelm_local.audit import audit_log_for
    from medhelm_local.export.review import reviews_folder
    from medhelm_local.export.service import signing_key_for
    from medhelm_local.policy.identity import current_actor
    from medhelm_local.policy.loader import load_policy

    policy = load_policy(settings.policy_dir)
    try:
        key = signing_key_for(settings, kek) if settings.signing_key_file is not None else None
    except MedhelmError:  # not this user's key (only the compliance officer can read it): the pages approve nothing
        key = None
    return ReviewDesk(reviews_folder(kek), audit_log_for(settings, policy), current_actor(), key,
                      policy.export.review.different_person)
