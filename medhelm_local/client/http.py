"""The one HTTP/1.1 client: every request the program makes goes through `HttpClient`.

Evaluation requests, judges, `doctor`'s endpoint checks and `data stage`'s downloads all use it, so
its rules hold for all of them, in one place:
- the host:port is checked against the egress allowlist before a connection is taken or opened
  (`client.egress.refusal`);
- proxy variables are never read and redirects are never followed (a 3xx is returned like any status);
- each request has one deadline (`timeout_s`) for connecting, sending and reading the whole reply,
  and connecting alone has at most 10 s;
- at most `max_connections` are open per client; a connection is kept for the next request when the
  server allows it, and a kept connection the server had closed is replaced once, transparently;
- connections may be opened ahead (`open_sockets`, outside any event loop, then `HttpClient.adopt`):
  `run` connects every slot while its store opens, so the first requests leave at once;
- https verifies the server's certificate and name against the system's CAs.

Built on asyncio's transports and httptools (llhttp, Node.js's HTTP parser, in C; `client/wire.py`
holds a connection and the reply read off it) rather than a client library: per request it costs
~0.1 ms of CPU against aiohttp's ~0.25 ms, and it loads in ~7 ms against aiohttp's ~0.3 s, both
measured here. A run sends one request per instance from one event loop, so that CPU is what bounds
a suite on fast endpoints (bench/suite.py).
"""

from __future__ import annotations

import asyncio
import errno
import functools
import selectors
import socket
import ssl
import threading
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import lru_cache
from types import TracebackType
from typing import Any
from urllib.parse import quote, urlsplit

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.egress import refusal
from medhelm_local.client.wire import Connection, HttpError, Response
from medhelm_local.errors import ConfigError

CONNECT_TIMEOUT_CAP_S = 10.0
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"  # RFC 3986 pchar and "/", with "%" so encoded bytes are kept
_QUERY_SAFE = _PATH_SAFE + "?"


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    authority: str  # the Host header
    path: str  # with its query


@lru_cache(maxsize=256)  # a client asks the same few URLs again and again
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url}")
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    authority = parts.netloc.rpartition("@")[2]
    # Percent-encode what may not stand in a request line (a space, non-ASCII); what is encoded stays as it is.
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    if parts.query:
        path += "?" + quote(parts.query, safe=_QUERY_SAFE)
    return _Target(parts.scheme, parts.hostname, port, authority, path)


@lru_cache(maxsize=1)
def _tls() -> ssl.SSLContext:
    """The system's CAs, with certificate and host name checks (built on the first https request)."""
    return ssl.create_default_context()


def _head(method: str, target: _Target, headers: Mapping[str, str], length: int | None) -> bytes:
    lines = [f"{method} {target.path} HTTP/1.1", f"Host: {target.authority}"]
    for name, value in headers.items():
        if any(c in name or c in value for c in "\r\n"):
            # Headers come from configuration (an API key file): a line break would end the header early.
            raise ConfigError(f"the request header {name} holds a line break", where=f"{method} {target.authority}",
                              fix="check that the deployment's api_key_file holds the token on one line")
        lines.append(f"{name}: {value}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")




async def _connected_socket(loop: asyncio.AbstractEventLoop, host: str, port: int) -> socket.socket:
    """A TCP socket connected to host:port, resolved and connected through Python's socket module, whose
    audit events the egress guard checks (an event loop's own resolver and connect may run in C: client/loop.py).
    Each address the name resolves to is tried in turn; the last failure is raised."""
    try:  # an address needs no look-up, and must not wait for a thread
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except socket.gaierror:
        found = await loop.run_in_executor(None, functools.partial(socket.getaddrinfo, host, port,
                                                                   type=socket.SOCK_STREAM))
    failure: OSError = OSError(f"{host} resolved to no address")
    for family, kind, proto, _, address in found:
        sock = socket.socket(family, kind, proto)
        try:
            _ready(sock)
            await loop.sock_connect(sock, address)
            return sock
        except OSError as exc:
            sock.close()
            failure = exc
        except BaseException:
            sock.close()
            raise
    raise failure


def _ready(sock: socket.socket) -> None:
    """Non-blocking, for an event loop, and without Nagle's delay: a request goes out whole, at once."""
    sock.setblocking(False)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


async def _over(target: _Target, sock: socket.socket) -> Connection:
    """A connection over a connected socket, with TLS when the URL is https; the socket is closed if it fails."""
    tls = _tls() if target.scheme == "https" else None
    try:
        _, conn = await asyncio.get_running_loop().create_connection(Connection, sock=sock, ssl=tls,
                                                                     server_hostname=target.host if tls else None)
    except BaseException:
        sock.close()
        raise
    return conn


def open_sockets(allowlist: Allowlist, wanted: Sequence[tuple[str, int]],
                 within_s: float) -> list[list[socket.socket]]:
    """For each (URL, count), up to count sockets connected to its server, all at once and outside any event loop, for
    `HttpClient.adopt`: those connected within `within_s` seconds. Best effort: a host the allowlist refuses
    gets none, and a socket that fails or is late is closed; the requests that follow open what is missing and
    report why they cannot. Like `_connected_socket`, it connects through Python's socket module, which the
    egress guard audits."""
    connected: list[list[socket.socket]] = [[] for _ in wanted]
    deadline = time.monotonic() + within_s
    waiting = selectors.DefaultSelector()
    try:
        for index, (url, count) in enumerate(wanted):
            target = _target(url)
            if count <= 0 or refusal(allowlist, "POST", target.scheme, target.host, target.port) is not None:
                continue
            found = _addresses(target.host, target.port, deadline)
            if not found:
                continue
            family, kind, proto, _, address = found[0]
            for _ in range(count):
                try:
                    sock = socket.socket(family, kind, proto)
                except OSError:  # no descriptors left
                    break
                try:
                    _ready(sock)
                    status = sock.connect_ex(address)
                except OSError:  # the egress guard refused it (and recorded why)
                    status = -1
                if status == 0:
                    connected[index].append(sock)
                elif status == errno.EINPROGRESS:
                    waiting.register(sock, selectors.EVENT_WRITE, index)
                else:  # refused or unreachable: so would the rest be
                    sock.close()
                    break
        while waiting.get_map() and (left := deadline - time.monotonic()) > 0:
            for key, _ in waiting.select(left):
                sock = key.fileobj  # type: ignore[assignment]
                waiting.unregister(sock)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                    connected[key.data].append(sock)
                else:
                    sock.close()
    finally:
        for key in list(waiting.get_map().values()):  # late, or interrupted
            key.fileobj.close()  # type: ignore[union-attr]
        waiting.close()
    return connected


def _addresses(host: str, port: int, deadline: float) -> list[Any]:
    """What host:port resolves to (an address at once; a name by the system's resolver, in a thread, given
    until `deadline`); empty when it does not resolve in time."""
    try:
        return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except socket.gaierror:
        pass
    found: list[Any] = []
    resolved = threading.Event()

    def resolve() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError:
            pass
        finally:
            resolved.set()

    # A daemon thread: a resolver that hangs must not keep the command from ending.
    threading.Thread(target=resolve, name="medhelm-resolve", daemon=True).start()
    return found if resolved.wait(max(0.0, deadline - time.monotonic())) else []


class HttpClient:
    """Requests to allowlisted hosts over kept connections; use inside one running event loop."""

    def __init__(self, allowlist: Allowlist, timeout_s: float, max_connections: int) -> None:
        self._allowlist = allowlist
        self._timeout = timeout_s
        self._connect_timeout = min(CONNECT_TIMEOUT_CAP_S, timeout_s)
        self._slots = asyncio.Semaphore(max_connections)
        self._kept: dict[tuple[str, str, int], list[Connection]] = {}
        self._closed = False

    @asynccontextmanager
    async def request(self, method: str, url: str, body: bytes = b"",
                      headers: Mapping[str, str] | None = None) -> AsyncIterator[Response]:
        """Send one request; the block gets the reply once its headers are in (read the body inside it).

        Raises EgressRefusedError before any connection when the host:port is not allowlisted, HttpError
        when the transport fails, TimeoutError past the deadline.
        """
        target = _target(url)
        refused = refusal(self._allowlist, method, target.scheme, target.host, target.port)
        if refused is not None:
            raise refused
        data = _head(method, target, headers or {}, len(body) if body or method in ("POST", "PUT") else None) + body
        async with self._slots, asyncio.timeout(self._timeout):
            conn = await self._exchange(target, data)
            try:
                yield Response(conn)
            finally:
                self._release(target, conn)

    async def _exchange(self, target: _Target, data: bytes) -> Connection:
        """Send over a kept connection if there is one, else a new one; wait for the reply's headers."""
        kept = self._kept.get((target.scheme, target.host, target.port))
        while kept:
            conn = kept.pop()
            if conn.lost or conn.transport is None or conn.transport.is_closing():
                continue
            try:
                return await self._send(conn, data)
            except HttpError:
                conn.close()
                if conn.received:
                    raise
                break  # the server had closed it while it waited: once more on a new connection
            except BaseException:  # the deadline, or the caller cancelled: the connection goes with it
                conn.close()
                raise
        conn = await self._connect(target)
        try:
            return await self._send(conn, data)
        except BaseException:
            conn.close()
            raise

    @staticmethod
    async def _send(conn: Connection, data: bytes) -> Connection:
        conn.send(data)
        while not conn.headers_done:
            await conn.wait()
        return conn

    async def _connect(self, target: _Target) -> Connection:
        where = f"{target.host}:{target.port}"
        try:
            async with asyncio.timeout(self._connect_timeout):
                sock = await _connected_socket(asyncio.get_running_loop(), target.host, target.port)
                conn = await _over(target, sock)
        except socket.gaierror:
            raise HttpError(f"the host name {target.host} could not be resolved", connect=True, dns=True) from None
        except ssl.SSLError as exc:
            raise HttpError(f"the TLS handshake with {where} failed ({exc.reason or exc})", connect=True,
                            tls=True) from None
        except OSError:
            raise HttpError(f"nothing answered at {where}", connect=True) from None
        return conn

    async def adopt(self, url: str, sockets: Iterable[socket.socket]) -> int:
        """Keep sockets connected to `url`'s server (by `open_sockets`) for the requests that follow; how many
        were kept. One that cannot be taken (closed since, a failed TLS handshake) is closed and skipped: a
        request opens its own as ever."""
        target = _target(url)
        conns = await asyncio.gather(*(self._wrap(target, sock) for sock in sockets))
        kept = [conn for conn in conns if conn is not None]
        if self._closed:  # closed meanwhile: nothing may be kept
            for conn in kept:
                conn.close()
            return 0
        for conn in kept:
            conn.idle = True
        self._kept.setdefault((target.scheme, target.host, target.port), []).extend(kept)
        return len(kept)

    async def _wrap(self, target: _Target, sock: socket.socket) -> Connection | None:
        """A connection over a connected socket (TLS when the URL is https), or None (the socket closed)."""
        try:
            async with asyncio.timeout(self._connect_timeout):
                return await _over(target, sock)
        except (OSError, TimeoutError):
            return None

    def _release(self, target: _Target, conn: Connection) -> None:
        if conn.reusable and not self._closed:
            conn.idle = True
            self._kept.setdefault((target.scheme, target.host, target.port), []).append(conn)
        else:
            conn.close()

    async def aclose(self) -> None:
        """Close every kept connection; connections in use close when their request ends."""
        self._closed = True
        for kept in self._kept.values():
            for conn in kept:
                conn.close()
        self._kept.clear()

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
