"""The viewer's rating pages (`/rate/...`), for raters signed in with their one-time link, and nothing else.

    sign-in     GET /rate/signin?link=... shows a button; POST trades the link for a session cookie
                (HttpOnly, SameSite=Strict, Path=/). A GET never spends the link, so a link preview
                cannot use it up. Every sign-in, and every refused one, is an audit record
    fences      a request with a rater's session gets only /rate/...: every other page answers 403,
                whatever else it carries. /rate/... takes no admin token: a rater's session only
    writes      POST only, each with the session's CSRF token (compared in constant time); the
                read-only pages are GET (and HEAD) only. Each rating is an audit record (who, which
                campaign and position, rated or skipped; never the scores or the comment)
    blind       URLs and pages carry the store's name, the campaign id and the rater's own position:
                never the run id (it names the model), the model, or anyone else's rating
    text        of gated and private runs, as the rater's role may see it (`shown_text`): redacted
                unless the policy gives the role the full text

Stores are opened for each request and closed after it, one request at a time, so a run can take a
store between requests; while one holds it, pages answer 503.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import duckdb
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from medhelm_local.audit import AuditLog
from medhelm_local.errors import MedhelmError, StoreLockedError
from medhelm_local.policy.file_schemas import JuryValidationRules
from medhelm_local.raters.campaigns import Campaign, campaign, campaigns_of, queue, rating_item, record_rating
from medhelm_local.raters.pages import html_page, parse_form, read_body
from medhelm_local.raters.registry import RaterRegistry, Session
from medhelm_local.raters.shown_text import TextView
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

T = TypeVar("T")
ASSETS = {"rate.css": "text/css", "rate.js": "text/javascript", "review.js": "text/javascript"}
MAX_POSITION = 1_000_000_000  # far past any queue, and within the store's 32-bit integers
READ_ONLY = ("GET", "HEAD")


@dataclass
class RatingDesk:
    """What the rating pages read and write: the raters, the suite stores, the KEK, the audit log."""

    registry: RaterRegistry
    stores: Sequence[Path]
    kek: Kek
    audit: AuditLog
    text: TextView
    memory_limit: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def store(self, name: str) -> Path | None:
        """A served store by its name (the file name without .duckdb)."""
        return next((p for p in self.stores if p.stem == name), None)

    def with_store(self, path: Path, write: bool, use: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """Open a store (read-only unless `write`) for one use, one use at a time."""
        with self._lock:
            handle = open_store(path, self.kek, read_only=not write, memory_limit=self.memory_limit, migrate=write)
            try:
                return use(handle.con)
            finally:
                handle.close()


def session_token(headers: dict[str, str], cookie_name: str) -> str | None:
    """The rater session token a request's Cookie header carries, if any."""
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no cookie
        return None
    held = cookie.get(cookie_name)
    return held.value if held is not None else None


def create_rating_app(desk: RatingDesk, cookie_name: str) -> Starlette:
    """The /rate/... routes (the caller fences them; see RaterGate)."""

    async def signed_in(request: Request) -> Session | None:
        token = request.cookies.get(cookie_name)
        return None if token is None else await run_in_threadpool(desk.registry.session, token)

    def unsigned() -> Response:
        return PlainTextResponse("Sign in with the link you were given (it works once; ask for a new one if it was "
                                 "used).", status_code=401)

    async def body(request: Request) -> dict[str, str] | None:
        data = await read_body(request)
        return None if data is None else parse_form(data)

    async def guarded(request: Request, work: Callable[[], Response]) -> Response:
        try:
            return await run_in_threadpool(work)
        except StoreLockedError:
            return PlainTextResponse("A run is writing to this store right now. Try again in a moment.",
                                     status_code=503, headers={"Retry-After": "5"})
        except MedhelmError as exc:
            return PlainTextResponse(exc.message, status_code=400)

    async def signin(request: Request) -> Response:
        if request.method in READ_ONLY:
            return html_page("signin.html", link=request.query_params.get("link", ""), refused=False)
        form = await body(request)
        link = (form or {}).get("link", "")
        result = await run_in_threadpool(desk.registry.sign_in, link) if link else None
        if result is None:
            await run_in_threadpool(desk.audit.append, "rater.sign_in_refused", {"reason": "unknown, used or "
                                                                                           "revoked link"}, "rater:?")
            return html_page("signin.html", status=403, link="", refused=True)
        name, token = result
        await run_in_threadpool(desk.audit.append, "rater.signed_in", {"rater": name}, f"rater:{name}")
        response = RedirectResponse("/rate", status_code=303)
        response.set_cookie(cookie_name, token, httponly=True, samesite="strict", path="/")
        return response

    async def home(request: Request) -> Response:
        session = await signed_in(request)
        if session is None:
            return unsigned()

        def work() -> Response:
            found = []
            for path in desk.stores:
                try:
                    rows = desk.with_store(path, False, lambda con: campaigns_of(con, session.rater))
                except MedhelmError:  # a store of an older version, or not readable: it holds no campaign of ours
                    continue
                found += [{"store": path.stem, "campaign": c, "total": t, "done": d} for c, t, d in rows]
            return html_page("campaigns.html", rater=session.rater, campaigns=found)
        return await guarded(request, work)

    def lookup(con: duckdb.DuckDBPyConnection, campaign_id: str, rater: str) -> tuple[Campaign, Any] | None:
        from medhelm_local.run.jury_runs import jury_scored_runs as judged_runs

        found = campaign(con, campaign_id)
        if found is None or rater not in found.raters:
            return None
        return found, judged_runs(con)[found.run_id][0]

    async def resume(request: Request) -> Response:
        session = await signed_in(request)
        if session is None:
            return unsigned()
        path = desk.store(request.path_params["store"])
        campaign_id = request.path_params["campaign"]

        def work() -> Response:
            entries = None if path is None else desk.with_store(path, False, lambda c: queue(c, campaign_id,
                                                                                              session.rater))
            if not entries:
                return PlainTextResponse("No such campaign of yours.", status_code=404)
            left = next((e.position for e in entries if not e.rated and not e.skipped), None)
            if left is not None:
                return RedirectResponse(f"/rate/{path.stem}/{campaign_id}/{left}", status_code=303)  # type: ignore
            return html_page("done.html", rater=session.rater, store=path.stem, campaign=campaign_id,  # type: ignore
                         queue=entries, rated=sum(e.rated for e in entries), skipped=sum(e.skipped for e in entries))
        return await guarded(request, work)

    async def answer(request: Request) -> Response:
        session = await signed_in(request)
        if session is None:
            return unsigned()
        path = desk.store(request.path_params["store"])
        campaign_id, position = request.path_params["campaign"], request.path_params["position"]
        form = None
        if request.method not in READ_ONLY:
            form = await body(request)
            # Before anything else: a form without this session's token was not sent from its page.
            if form is None or not hmac.compare_digest(form.get("csrf", "").encode(), session.csrf.encode()):
                return PlainTextResponse("This form is not from your rating page (its CSRF token is missing or "
                                         "wrong). Reload the page and try again.", status_code=403)
        if path is None or not 1 <= position <= MAX_POSITION:
            return PlainTextResponse("No such answer in your queue.", status_code=404)

        def show(con: duckdb.DuckDBPyConnection, error: str | None = None) -> Response:
            found = lookup(con, campaign_id, session.rater)
            item = None if found is None else rating_item(con, found[0], found[1], session.rater, position)
            if found is None or item is None:
                return PlainTextResponse("No such answer in your queue.", status_code=404)
            entries = queue(con, campaign_id, session.rater)
            rubric = found[1]
            return html_page("rate.html", status=400 if error else 200, rater=session.rater, store=path.stem,
                         campaign=campaign_id, item=desk.text.shown(item, session.role), rubric=rubric,
                         low=rubric.scale.min, high=rubric.scale.max, csrf=session.csrf, error=error,
                         rated=sum(e.rated for e in entries), skipped=sum(e.skipped for e in entries))

        def save(con: duckdb.DuckDBPyConnection) -> Response:
            found = lookup(con, campaign_id, session.rater)
            if found is None:
                return PlainTextResponse("No such campaign of yours.", status_code=404)
            rubric = found[1]
            skip = form.get("action") == "skip"  # type: ignore[union-attr]
            scores = None
            if not skip:
                try:
                    scores = {c: int(form[f"score_{c}"]) for c in rubric.criterion_names  # type: ignore[index]
                              if form.get(f"score_{c}", "").isdigit()}  # type: ignore[union-attr]
                except ValueError:
                    scores = {}
                if set(scores) != set(rubric.criterion_names):
                    return show(con, "Choose a score for every criterion, or skip this answer.")
            record_rating(con, found[0], rubric, session.rater, position, scores,
                          form.get("comment", "")[:4000])  # type: ignore[union-attr]
            desk.audit.append("rating.recorded", {"store": path.stem, "campaign": campaign_id,
                                                  "position": position, "skipped": skip}, f"rater:{session.rater}")
            return RedirectResponse(f"/rate/{path.stem}/{campaign_id}", status_code=303)

        if form is None:
            return await guarded(request, lambda: desk.with_store(path, False, show))
        return await guarded(request, lambda: desk.with_store(path, True, save))

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return PlainTextResponse("Not found.", status_code=404)
        text = resources.files("medhelm_local.raters").joinpath("assets", name).read_text(encoding="utf-8")
        return Response(text, media_type=f"{ASSETS[name]}; charset=utf-8")

    return Starlette(routes=[
        Route("/rate/signin", signin, methods=["GET", "HEAD", "POST"]),
        Route("/rate", home, methods=["GET", "HEAD"]),
        Route("/rate/assets/{name}", asset, methods=["GET", "HEAD"]),
        Route("/rate/{store}/{campaign}", resume, methods=["GET", "HEAD"]),
        Route("/rate/{store}/{campaign}/{position:int}", answer, methods=["GET", "HEAD", "POST"]),
    ])


def rating_desk(settings: Any, stores: Sequence[Path]) -> tuple[RatingDesk, JuryValidationRules]:
    """The rating pages' desk for `serve` (the appliance's raters and audit log, the configured KEK, each role's view
    of private text), and the policy's rules for marking jury columns validated: the policy read once for both."""
    from medhelm_local.audit import audit_log_for
    from medhelm_local.policy.loader import load_policy
    from medhelm_local.raters.registry import rater_registry
    from medhelm_local.raters.shown_text import text_view
    from medhelm_local.store.keys import load_kek

    policy = load_policy(settings.policy_dir)  # once, when the viewer starts: each role's view of private text
    desk = RatingDesk(rater_registry(), list(stores), load_kek(settings), audit_log_for(settings, policy),
                      text_view(policy.roles.roles, settings.redaction_dir), settings.store_memory_limit)
    return desk, policy.export.jury_validation
