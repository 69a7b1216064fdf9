"""A pass-through HTTP proxy on 127.0.0.1 that holds inference requests after the n-th.

Killing a run "midway" by timing depends on how fast the server answers: a quiet machine with a warm
prefix cache finished a 100-answer suite before a time-based kill landed. In front of the real server,
this proxy forwards the first `hold_after` inference requests untouched and then holds the next ones
unanswered, so the run is certainly midway when it is killed. Held requests never reach the server,
so its own request counter still says what the run really asked.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit, urlunsplit


class HoldingProxy:
    """Forwards every request to `upstream`; inference requests after the `hold_after`-th wait for `release()`."""

    def __init__(self, upstream: str, hold_after: int) -> None:
        parts = urlsplit(upstream)
        self._upstream_host, self._upstream_port = parts.hostname or "127.0.0.1", parts.port or 80
        self._upstream = parts
        self.hold_after = hold_after
        self.forwarded = 0
        self.held = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The upstream's base URL (same path) with this proxy's address."""
        netloc = f"127.0.0.1:{self._server.server_address[1]}"
        return urlunsplit(self._upstream._replace(netloc=netloc))

    def hold_after_more(self, n: int) -> None:
        """From now on, forward `n` more inference requests, then hold the rest."""
        with self._lock:
            self.hold_after = self.forwarded + n
            self.held.clear()
            self._released.clear()

    def release(self) -> None:
        """Stops holding: held requests are answered 503 (their client is usually gone), later ones forwarded."""
        with self._lock:
            self.hold_after = 1 << 62
        self._released.set()

    def _admit(self, path: str) -> bool:
        if not path.rstrip("/").endswith("completions"):
            return True
        with self._lock:
            if self.forwarded < self.hold_after:
                self.forwarded += 1
                return True
        self.held.set()
        return False

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not proxy._admit(self.path):
                    proxy._released.wait(timeout=600)
                    self._reply(503, b'{"error": "held by the test proxy"}', "application/json")
                    return
                upstream = http.client.HTTPConnection(proxy._upstream_host, proxy._upstream_port, timeout=300)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in {"host", "connection"}}
                    upstream.request(self.command, self.path, body=body or None, headers=headers)
                    answer = upstream.getresponse()
                    self._reply(answer.status, answer.read(), answer.getheader("Content-Type") or "application/json")
                finally:
                    upstream.close()

            def _reply(self, status: int, payload: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _forward  # noqa: N815 - the names http.server dispatches on

        return Handler

    def __enter__(self) -> HoldingProxy:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()
