"""One HTTP/1.1 connection on the wire: the reply read off it, and the errors a transport can end in.

`Connection` is an asyncio protocol fed by httptools (llhttp, Node.js's HTTP parser, in C): it parses
a reply's head and buffers its body, pausing the socket when too much waits unread; `Response` is
what a caller of `client.http.HttpClient.request` reads the body through. Opening, keeping and
reusing connections, deadlines and the egress rules are `client/http.py`'s.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

import httptools

READ_HIGH = 1 << 20  # a reply buffered past this (a download faster than the disk) pauses reading
MAX_HEAD_BYTES = 64 << 10  # a reply's headers, all together: a server cannot fill memory with them either
_NO_BODY_STATUS = frozenset({204, 304})


class HttpError(Exception):
    """A transport failure: nothing answered, the connection dropped, or the reply was not HTTP."""

    def __init__(self, message: str, *, connect: bool = False, dns: bool = False, tls: bool = False) -> None:
        super().__init__(message)
        self.connect = connect  # no connection could be made
        self.dns = dns  # ... because the host name did not resolve
        self.tls = tls  # ... because the server's certificate was refused (or the TLS handshake failed)


class ReplyTooLargeError(Exception):
    """The server sent, or announced, more than the caller's cap."""


class Connection(asyncio.Protocol):
    """One TCP (or TLS) connection and the reply being read on it, fed by httptools' callbacks."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[None] | None = None
        self.lost = False
        self.idle = False
        self.error: HttpError | None = None
        self.start()

    def start(self) -> None:
        """Ready for the next reply."""
        self.status = 0
        self.headers: dict[str, str] = {}
        self.head_bytes = 0
        self.chunks: deque[bytes] = deque()
        self.buffered = 0
        self.paused = False
        self.received = self.headers_done = self.complete = self.idle = self.keep_alive = False

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport (asyncio calls this once)."""
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        """Feed the parser; bytes nobody asked for (on a kept connection, after a reply) make it unusable."""
        if self.idle or self.complete:
            self.close()
            return
        self.received = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            self._fail(HttpError("the server's reply was not valid HTTP"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        """A reply with neither a length nor chunks ends with its connection; any other is cut short."""
        self.lost = True
        if self.headers_done and not self.complete and "content-length" not in self.headers \
                and "transfer-encoding" not in self.headers:
            self.complete = True
        elif not self.complete:
            self._fail(HttpError("the connection closed before the reply ended"))
        self._wake()

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        """One header line (names kept in lower case)."""
        self.head_bytes += len(name) + len(value)
        if self.head_bytes > MAX_HEAD_BYTES:
            self._fail(HttpError(f"the reply's headers passed {MAX_HEAD_BYTES} bytes"))
            self.close()
            return
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        """The status line and headers are in."""
        status = self._parser.get_status_code()
        if 100 <= status < 200:  # an interim reply (100 Continue, 103 Early Hints): the real one follows
            self.headers = {}
            return
        self.status = status
        self.keep_alive = self._parser.should_keep_alive()  # read here: llhttp forgets it once the reply ends
        self.headers_done = True
        if self.status in _NO_BODY_STATUS:
            self.complete = True
        self._wake()

    def on_body(self, body: bytes) -> None:
        """A piece of the body."""
        self.chunks.append(body)
        self.buffered += len(body)
        if self.buffered > READ_HIGH and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def on_message_complete(self) -> None:
        """The reply ended (an interim reply's end is not the reply's)."""
        if self.headers_done:
            self.complete = True
            self._wake()

    # for the client
    @property
    def reusable(self) -> bool:
        """Whether the next request may go over this connection."""
        return self.complete and self.keep_alive and not self.lost and self.error is None and not self.chunks

    def send(self, data: bytes) -> None:
        """Start an exchange: ready for its reply, then write the request."""
        if self.transport is None or self.lost:
            raise HttpError("the connection closed before the request was sent")
        self.start()
        self.transport.write(data)

    def take(self) -> bytes | None:
        """The next buffered piece of the body, if any."""
        if not self.chunks:
            return None
        chunk = self.chunks.popleft()
        self.buffered -= len(chunk)
        if self.paused and self.buffered < READ_HIGH // 2 and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        return chunk

    async def wait(self) -> None:
        """Until something more arrives; raises if the connection failed."""
        if self.error is None:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """Drop the connection (nothing more is read)."""
        self.lost = True
        if self.transport is not None:
            self.transport.abort()

    def _fail(self, error: HttpError) -> None:
        if self.error is None:
            self.error = error
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)


class Response:
    """A reply's status and headers; its body is read with `read` or `chunks` inside the request's block."""

    def __init__(self, connection: Connection) -> None:
        self._conn = connection
        self.status = connection.status
        self.headers = connection.headers  # names in lower case

    @property
    def content_length(self) -> int | None:
        """The length the server announced, if it did."""
        value = self.headers.get("content-length")
        return int(value) if value is not None and value.isdigit() else None

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, piece by piece, as it arrives."""
        conn = self._conn
        while True:
            chunk = conn.take()
            if chunk is not None:
                yield chunk
            elif conn.complete:
                return
            else:
                await conn.wait()

    async def read(self, cap: int | None = None) -> bytes:
        """The whole body; ReplyTooLargeError as soon as it (or its announced length) passes `cap` bytes."""
        announced = self.content_length
        if cap is not None and announced is not None and announced > cap:
            raise ReplyTooLargeError(f"the reply announced {announced} bytes, over the cap of {cap}")
        conn = self._conn
        parts: list[bytes] = []
        size = 0
        while True:
            chunk = conn.take()
            if chunk is not None:
                size += len(chunk)
                if cap is not None and size > cap:
                    raise ReplyTooLargeError(f"the reply passed the cap of {cap} bytes")
                parts.append(chunk)
            elif conn.complete:
                return parts[0] if len(parts) == 1 else b"".join(parts)
            else:
                await conn.wait()
