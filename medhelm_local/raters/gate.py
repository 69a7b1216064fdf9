"""The viewer's front doors: /rate/... for raters (and a rater's session nowhere else); the admin's pages that write.

    RaterGate   in front of everything (`report.server.Guard`, the admin token, behind it): a request for
                /rate/... goes to the rating pages (their own sign-in; the same security headers, and the
                same loopback Host check); any other request that carries a valid rater session is refused
                with 403 before the guard sees it, so no token a rater might also hold opens the report for
                their session
    AdminPages  pages under one prefix (/review, /campaigns) for the viewer's own session only: its access
                token (the cookie the report pages set, or `Authorization: Bearer`), a loopback Host name on
                loopback, and for a POST a same-origin check beside the form's CSRF token (`form_csrf`, an
                HMAC of the viewer's token per purpose). Who acts is the viewer process's user, read once
                when it starts: never anything the request says
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse

from medhelm_local.raters.web import RatingDesk, create_rating_app, session_token
from medhelm_local.report.server import (
    CSP,
    HEADERS,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    host_name,
    is_loopback,
    viewer_session,
)


class RaterGate:
    """ASGI middleware: the rating pages under /rate, and 403 for a rater's session anywhere else."""

    def __init__(self, admin: ASGIApp, desk: RatingDesk, port: int, loopback: bool) -> None:
        self.admin = admin
        self.desk = desk
        self.cookie_name = f"medhelm_rater_{port}"
        self.rating = create_rating_app(desk, self.cookie_name)
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.admin(scope, receive, send)
            return
        path = scope["path"]
        if path != "/rate" and not path.startswith("/rate/"):
            headers = _headers(scope)
            token = session_token(headers, self.cookie_name)
            if token is None or await run_in_threadpool(self.desk.registry.session, token) is None:
                await self.admin(scope, receive, send)
                return
            answer = PlainTextResponse("Raters may open the rating pages only (/rate).", status_code=403)
            await answer(scope, receive, _with_headers(send))
            return
        headers = _headers(scope)
        if self.loopback and not is_loopback(host_name(headers.get("host", ""))):
            refused = PlainTextResponse("This viewer answers on its loopback address only.", status_code=400)
            await refused(scope, receive, _with_headers(send))
            return
        if scope["method"] == "POST" and not _same_origin(headers):
            # Beside SameSite=Strict and the CSRF token: a browser's form from another site says where it came from.
            refused = PlainTextResponse("This form was sent from another site.", status_code=403)
            await refused(scope, receive, _with_headers(send))
            return
        await self.rating(scope, receive, _with_headers(send))


def form_csrf(token: str, purpose: str) -> str:
    """The CSRF token of the viewer's own forms for one purpose (`review`, `campaign`): an HMAC of its token."""
    return hmac.new(token.encode(), f"medhelm-local {purpose} form".encode(), hashlib.sha256).hexdigest()


class AdminPages:
    """ASGI middleware: `app` under `prefix` for the viewer's own session (its token), everything else to `inner`."""

    def __init__(self, inner: ASGIApp, prefix: str, app: ASGIApp, what: str, token: str, port: int,
                 loopback: bool) -> None:
        self.inner = inner
        self.prefix = prefix
        self.app = app
        self.what = what  # the pages, as the refusal names them ("The review pages")
        self.cookie_name = f"medhelm_viewer_{port}"
        self.cookie_value = viewer_session(token)
        self.token = token
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or (path != self.prefix and not path.startswith(self.prefix + "/")):
            await self.inner(scope, receive, send)
            return
        headers = _headers(scope)
        refusal = None
        if self.loopback and not is_loopback(host_name(headers.get("host", ""))):
            refusal = PlainTextResponse("This viewer answers on its loopback address only.", status_code=400)
        elif not self._signed_in(headers):
            refusal = PlainTextResponse(f"{self.what} need the viewer's access token: open the link printed when "
                                        "`medhelm-local serve` started.", status_code=401)
        elif scope["method"] == "POST" and not _same_origin(headers):
            refusal = PlainTextResponse("This form was sent from another site.", status_code=403)
        if refusal is not None:
            await refusal(scope, receive, _with_headers(send))
            return
        await self.app(scope, receive, _with_headers(send))

    def _signed_in(self, headers: dict[str, str]) -> bool:
        bearer = headers.get("authorization", "")
        if bearer.startswith("Bearer ") and hmac.compare_digest(bearer[7:].strip().encode(), self.token.encode()):
            return True
        held = session_token(headers, self.cookie_name)
        return held is not None and hmac.compare_digest(held.encode(), self.cookie_value.encode())


def _same_origin(headers: dict[str, str]) -> bool:
    """False when the browser says the request comes from another site (clients other than browsers say nothing).

    Sec-Fetch-Site is the browser's own word; Origin is `null` under the viewer's no-referrer policy, so only a
    named origin is compared."""
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = headers.get("origin", "null")
    return origin == "null" or origin.split("://", 1)[-1].rstrip("/") == headers.get("host", "")


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [h for h in message.get("headers", []) if h[0].lower() != b"server"]
            message["headers"] = [*headers, (b"content-security-policy", CSP.encode()), *HEADERS]
        await send(message)
    return sending
