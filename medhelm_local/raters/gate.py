"""The viewer's front door when raters are served: /rate/... to the rating pages, a rater's session nowhere else.

In front of the viewer's own guard (`report.server.Guard`, the admin token): a request for /rate/...
goes to the rating pages (their own sign-in; the same security headers, and the same loopback Host
check); any other request that carries a valid rater session is refused with 403 before the guard
sees it, so no token a rater might also hold opens the report for their session.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse

from medhelm_local.raters.web import RatingDesk, create_rating_app, session_token
from medhelm_local.report.server import CSP, HEADERS, ASGIApp, Message, Receive, Scope, Send, _host_name, is_loopback


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
        if self.loopback and not is_loopback(_host_name(headers.get("host", ""))):
            refused = PlainTextResponse("This viewer answers on its loopback address only.", status_code=400)
            await refused(scope, receive, _with_headers(send))
            return
        if scope["method"] == "POST" and not _same_origin(headers):
            # Beside SameSite=Strict and the CSRF token: a browser's form from another site says where it came from.
            refused = PlainTextResponse("This form was sent from another site.", status_code=403)
            await refused(scope, receive, _with_headers(send))
            return
        await self.rating(scope, receive, _with_headers(send))


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
