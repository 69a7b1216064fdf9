"""The viewer (`medhelm-local serve`): the report's pages over live stores, read-only, behind a token.

    bind          127.0.0.1 unless --host names another address; the socket is bound before the
                  server starts, so a port in use is a clear error
    token         random (32 bytes) unless read from --token-file; the link printed at start carries
                  it once, the viewer answers with an HttpOnly, SameSite=Strict cookie and a redirect
                  that drops it from the address bar; `Authorization: Bearer` works too. Without it:
                  401, and nothing about the stores
    host header   on a loopback address only loopback names are answered (no DNS rebinding)
    headers       a Content-Security-Policy allowing only the viewer's own scripts, styles, images
                  and JSON; Referrer-Policy no-referrer; no caching; nosniff; no framing
    files         only the viewer's own assets, by name; no path reaches the file system
    methods       GET and HEAD only; stores are opened read-only, never migrated
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from medhelm_local.errors import ConfigError, MedhelmError, StoreLockedError
from medhelm_local.report.formats import cells_csv, to_json
from medhelm_local.report.live import LiveStores
from medhelm_local.report.pages import ASSETS, PAGE_SIZE, Links, asset_text, instance_page
from medhelm_local.report.read_model import Report, RunInfo, slug
from medhelm_local.report.site import benchmark_page, run_page, top_page
from medhelm_local.report.stores import reading
from medhelm_local.report.trend_tables import trend_csv_of

# Far past any run's last page, and small enough that the store's offset, (page - 1) * PAGE_SIZE, fits 64 bits.
MAX_PAGE = 1_000_000_000
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'"  # matplotlib styles its SVG inline; no script runs in <img>
HEADERS = [(b"referrer-policy", b"no-referrer"), (b"x-content-type-options", b"nosniff"),
           (b"x-frame-options", b"DENY"), (b"cache-control", b"no-store"),
           (b"cross-origin-resource-policy", b"same-origin")]
MIN_TOKEN = 16


def new_token() -> str:
    """A random access token (256 bits)."""
    return secrets.token_urlsafe(32)


def read_token(path: Path) -> str:
    """The token in a file (a mounted Secret): stripped, and long enough to be one."""
    from medhelm_local.safe_parse import Limits, decode, read_bounded

    what = "viewer token file"
    data = read_bounded(path, what, limits=Limits(max_bytes=4096),
                        if_missing="give a readable file holding the token (e.g. a mounted Secret)")
    token = decode(data, str(path), what).strip()
    if len(token) < MIN_TOKEN or any(c.isspace() for c in token):
        raise ConfigError(f"the viewer token must be at least {MIN_TOKEN} characters without spaces",
                          where=str(path), fix="put a long random token in the file, e.g. `openssl rand -hex 32`")
    return token


def viewer_session(token: str) -> str:
    """The viewer's session cookie value for its token (an HMAC: the cookie never carries the token itself)."""
    return hmac.new(token.encode(), b"medhelm-local viewer session", hashlib.sha256).hexdigest()


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and `localhost`."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware: security headers on every answer, the token before anything else, loopback Host names."""

    def __init__(self, app: ASGIApp, token: str, port: int, loopback: bool) -> None:
        self.app = app
        self.token = token
        self.cookie_name = f"medhelm_viewer_{port}"
        self.cookie_value = viewer_session(token)
        self.loopback = loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"server"]
                if not any(h[0].lower() == b"content-security-policy" for h in headers):
                    headers.append((b"content-security-policy", CSP.encode()))
                message["headers"] = headers + HEADERS
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope) -> Response | None:
        if scope["method"] not in ("GET", "HEAD"):
            return PlainTextResponse("The viewer is read-only.", status_code=405, headers={"Allow": "GET, HEAD"})
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.loopback and not is_loopback(host_name(headers.get("host", ""))):
            return PlainTextResponse("This viewer answers on its loopback address only.", status_code=400)
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        offered = query.get("token")
        if offered is not None:
            if not hmac.compare_digest(offered.encode(), self.token.encode()):
                return _unauthorised()
            rest = urlencode([(k, v) for k, v in query.items() if k != "token"])
            response = RedirectResponse(scope["path"] + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(self.cookie_name, self.cookie_value, httponly=True, samesite="strict", path="/")
            return response
        bearer = headers.get("authorization", "")
        if bearer.startswith("Bearer ") and hmac.compare_digest(bearer[7:].strip().encode(), self.token.encode()):
            return None
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no cookie
            return _unauthorised()
        held = cookie.get(self.cookie_name)
        if held is not None and hmac.compare_digest(held.value.encode(), self.cookie_value.encode()):
            return None
        return _unauthorised()


def host_name(value: str) -> str:
    """The host of a Host header ("[::1]:8080" -> "::1", "127.0.0.1:8080" -> "127.0.0.1")."""
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0]


def _unauthorised() -> Response:
    return HTMLResponse("<!doctype html><title>Token required</title><p>This results viewer needs its access token: "
                        "open the link printed when <code>medhelm-local serve</code> started.</p>",
                        status_code=401, headers={"WWW-Authenticate": 'Bearer realm="medhelm-local viewer"'})


def _find_run(report: Report, name: str) -> RunInfo | None:
    return next((r for r in report.runs if r.slug == name and not r.external), None)


def create_app(live: LiveStores, token: str, port: int, loopback: bool) -> ASGIApp:
    """The viewer: Starlette routes behind the guard."""

    async def data(call: Callable[[], Response]) -> Response:
        try:
            with reading("the viewer's stores"):
                return await run_in_threadpool(call)
        except StoreLockedError:
            return HTMLResponse("<!doctype html><title>Busy</title><p>A run is writing to a store right now; "
                                "DuckDB lets nothing else open it meanwhile. Reload in a moment.</p>",
                                status_code=503, headers={"Retry-After": "5"})
        except MedhelmError as exc:  # a bad baseline in the query (400), or a store that cannot be read (500)
            return PlainTextResponse(exc.message, status_code=400 if isinstance(exc, ConfigError) else 500)

    def top(name: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            baseline = request.query_params.get("baseline") if name == "compare" else None

            def page() -> Response:
                report = live.report(baseline or None)
                if name == "published" and report.published is None:
                    return PlainTextResponse("No published results were given to this viewer.", status_code=404)
                if name == "trend" and report.trend is None:
                    return PlainTextResponse("This viewer shows no trend: start it with `serve --trend SUITE1 SUITE2 "
                                             "...`.", status_code=404)
                choices = report.models if name == "compare" else None
                return HTMLResponse(top_page(report, name, Links("server"), choices))
            return await data(page)
        return endpoint

    async def benchmark(request: Request) -> Response:
        def page() -> Response:
            report = live.report()
            found = next((b for b in dict.fromkeys(r.benchmark for r in report.runs)
                          if slug(b) == request.path_params["name"]), None)
            if found is None:
                return PlainTextResponse("No such benchmark in these stores.", status_code=404)
            return HTMLResponse(benchmark_page(report, found, Links("server")))
        return await data(page)

    async def run(request: Request) -> Response:
        def page() -> Response:
            report = live.report()
            found = _find_run(report, request.path_params["name"])
            if found is None:
                return PlainTextResponse("No such run in these stores.", status_code=404)
            return HTMLResponse(live.with_run(found, lambda reader: run_page(report, found, reader, Links("server"),
                                                                             first_page=True)))
        return await data(page)

    async def instances(request: Request) -> Response:
        try:
            number = max(1, int(request.query_params.get("page", "1")))
        except ValueError:
            number = 0
        if not 1 <= number <= MAX_PAGE:  # the store reads from row (page - 1) * PAGE_SIZE, a 64-bit offset
            return PlainTextResponse(f"page must be a whole number from 1 to {MAX_PAGE:,}", status_code=400)
        failed = request.query_params.get("failed") == "1"

        def page() -> Response:
            found = _find_run(live.report(), request.path_params["name"])
            if found is None:
                return PlainTextResponse("No such run in these stores.", status_code=404)

            def read(reader: Any) -> str:
                total = reader.instance_count(found.run_id, failed_only=failed)
                rows = list(reader.instances_json(found.run_id, (number - 1) * PAGE_SIZE, PAGE_SIZE, failed))
                return instance_page(rows, number, (total + PAGE_SIZE - 1) // PAGE_SIZE, total)
            return Response(live.with_run(found, read), media_type="application/json")
        return await data(page)

    async def plot(request: Request) -> Response:
        def page() -> Response:
            svg = live.plot(request.path_params["name"])
            if svg is None:
                return PlainTextResponse("No such plot.", status_code=404)
            return Response(svg, media_type="image/svg+xml", headers={"Content-Security-Policy": SVG_CSP})
        return await data(page)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return PlainTextResponse("Not found.", status_code=404)
        kind = {"css": "text/css", "js": "text/javascript", "svg": "image/svg+xml"}[name.rsplit(".", 1)[1]]
        return Response(asset_text(name), media_type=f"{kind}; charset=utf-8")

    def download(render: Callable[[Report], str], media: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await data(lambda: Response(render(live.report()), media_type=media))
        return endpoint

    async def moved(request: Request) -> Response:
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"{request.url.path}.html{query}", status_code=308)

    # The static report's paths (`runs/<run>.html`); the older extension-less ones redirect there.
    tops = ("index", "taxonomy", "compare", "published", "methods", "trend")
    routes = [Route("/", top("index")), *(Route(f"/{n}.html", top(n)) for n in tops),
              Route("/benchmarks/{name}.html", benchmark), Route("/runs/{name}.html", run),
              *(Route(f"/{n}", moved) for n in tops[1:]), Route("/benchmarks/{name}", moved),
              Route("/runs/{name}", moved),
              Route("/runs/{name}/instances", instances), Route("/plots/{name}.svg", plot),
              Route("/assets/{name}", asset), Route("/report.json", download(to_json, "application/json")),
              Route("/report.csv", download(cells_csv, "text/csv; charset=utf-8")),
              Route("/trend.csv", download(trend_csv_of, "text/csv; charset=utf-8"))]
    app = Starlette(routes=routes)
    return Guard(app, token, port, loopback)
