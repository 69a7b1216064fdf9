"""The one HTTP client, against real sockets on 127.0.0.1: kept connections, cut replies, TLS, bodies; each on
uvloop (what the program runs on) and asyncio's loop."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import uvloop
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from support.tls import self_signed, server_context

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.completions import ModelClient
from medhelm_local.client.http import HttpClient, _tls, open_sockets
from medhelm_local.client.wire import HttpError, ReplyTooLargeError
from medhelm_local.errors import ConfigError, EgressRefusedError, EndpointUnreachableError
from medhelm_local.settings import Deployment

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


def _ok(body: bytes = b"{}") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


async def _read_request(reader: asyncio.StreamReader) -> bytes | None:
    """One request's head and body (by Content-Length); None when the client closed."""
    head = await reader.readuntil(b"\r\n\r\n") if not reader.at_eof() else b""
    if not head:
        return None
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    return head + await reader.readexactly(length)


class Server:
    """An asyncio server on 127.0.0.1 that counts connections and requests and answers with `handler`."""

    def __init__(self, handler: Handler | None = None, tls: ssl.SSLContext | None = None,
                 reply: Callable[[int, int], bytes] | None = None) -> None:
        self.handler = handler or _answering(reply or (lambda connection, number: _ok()), self)
        self.tls = tls
        self.connections = self.requests = 0
        self.port = 0
        self.seen: list[bytes] = []

    async def __aenter__(self) -> Server:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.tls)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    def client(self, timeout_s: float = 10.0, connections: int = 4) -> HttpClient:
        return HttpClient(Allowlist([("127.0.0.1", self.port)]), timeout_s, connections)

    def url(self, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}/v1/x"


def _answering(reply: Callable[[int, int], bytes], server: Server) -> Handler:
    """A handler that answers each request on a connection with reply(connection, request on it); an empty
    reply closes the connection unanswered, as does any reply saying `Connection: close` once sent."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connection: int) -> None:
        number = 0
        while (request := await _read_request(reader)) is not None:
            number += 1
            server.requests += 1
            server.seen.append(request)
            answer = reply(connection, number)
            if not answer:
                return  # close without answering
            writer.write(answer)
            await writer.drain()
            if b"Connection: close" in answer:
                return

    return handle


async def _get(client: HttpClient, url: str, cap: int | None = None) -> tuple[int, bytes]:
    async with client.request("POST", url, b'{"q": 1}', {"Content-Type": "application/json"}) as response:
        return response.status, await response.read(cap)


_LOOP: list[Callable[[], asyncio.AbstractEventLoop] | None] = [None]


@pytest.fixture(autouse=True, params=["uvloop", "asyncio"])
def event_loop_kind(request: pytest.FixtureRequest) -> None:
    """Every test on the loop the program runs on (uvloop, client/loop.py) and on asyncio's own."""
    _LOOP[0] = uvloop.new_event_loop if request.param == "uvloop" else None


def run(coro: Awaitable[None]) -> None:
    with asyncio.Runner(loop_factory=_LOOP[0]) as runner:
        runner.run(coro)  # type: ignore[arg-type]


def test_requests_one_after_another_share_one_kept_connection() -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(b'{"n": %d}' % n)) as server, server.client() as client:
            replies = [await _get(client, server.url()) for _ in range(5)]
        assert replies == [(200, b'{"n": %d}' % n) for n in range(1, 6)]
        assert (server.connections, server.requests) == (1, 5)
        assert server.seen[0].startswith(b"POST /v1/x HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % server.port)
        assert b"user-agent" not in server.seen[0].lower()  # the appliance does not announce itself

    run(go())


def test_a_kept_connection_the_server_dropped_is_replaced_once() -> None:
    """The second request goes over the kept connection, which the server closes unanswered: it is sent
    again over a new connection, and the caller sees only the answer."""

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok() if n == 1 else b"") as server, server.client() as client:
            first, second = await _get(client, server.url()), await _get(client, server.url())
        assert first == second == (200, b"{}")
        assert (server.connections, server.requests) == (2, 3)

    run(go())


_FLOOD = b"HTTP/1.1 200 OK\r\n" + (b"X-Pad: " + b"y" * 1000 + b"\r\n") * 100 + b"Content-Length: 0\r\n\r\n"


@pytest.mark.parametrize(("reply", "message"), [
    (b"", "closed before the reply ended"),  # a new connection closed unanswered: an error, not a loop
    (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"a\"", "closed before the reply ended"),
    (b"SSH-2.0-OpenSSH_9.2\r\n\r\n", "not valid HTTP"),
    (_FLOOD, "headers passed 65536 bytes"),  # endless headers: an error, not memory
], ids=["unanswered", "cut-short", "not-http", "endless-headers"])
def test_a_broken_reply_is_an_error(reply: bytes, message: str) -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: reply) as server, server.client() as client:
            with pytest.raises(HttpError, match=message):
                await _get(client, server.url())
        assert server.connections == 1

    run(go())


@pytest.mark.parametrize("reply", [
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"a\": 1}",  # no length: the body ends with the connection
], ids=["chunked", "until-close"])
def test_bodies_without_a_length_are_read_whole(reply: bytes) -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: reply) as server, server.client() as client:
            assert await _get(client, server.url()) == (200, b'{"a": 1}')
            assert await _get(client, server.url()) == (200, b'{"a": 1}')

    run(go())


def test_an_interim_reply_is_skipped_for_the_real_one() -> None:
    async def go() -> None:
        hinted = b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" + _ok(b'{"a": 1}')
        async with Server(reply=lambda c, n: hinted) as server, server.client() as client:
            assert await _get(client, server.url()) == (200, b'{"a": 1}')

    run(go())


def test_the_cap_stops_a_body_as_it_arrives() -> None:
    async def go() -> None:
        chunk = b"x" * 1000
        body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(50)) + b"0\r\n\r\n"
        chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body
        async with Server(reply=lambda c, n: chunked) as server, server.client() as client:
            with pytest.raises(ReplyTooLargeError, match="passed the cap of 10000 bytes"):
                await _get(client, server.url(), cap=10_000)
            assert await _get(client, server.url(), cap=None) == (200, chunk * 50)
        assert server.connections == 2  # the connection of a refused reply is never kept

    run(go())


def test_a_large_body_streams_in_pieces_under_flow_control() -> None:
    size = 12 << 20  # past the client's read buffer: reading pauses and resumes

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(bytes(range(256)) * (size // 256))) as server, \
                server.client() as client:
            received, pieces = 0, 0
            async with client.request("GET", server.url()) as response:
                assert response.content_length == size
                async for piece in response.chunks():
                    received += len(piece)
                    pieces += 1
                    await asyncio.sleep(0)
        assert received == size and pieces > 1

    run(go())


def test_a_header_with_a_line_break_is_refused_before_sending() -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok()) as server, server.client() as client:
            with pytest.raises(ConfigError, match="holds a line break"):
                async with client.request("GET", server.url(), headers={"Authorization": "Bearer x\r\nX-Evil: 1"}):
                    pass
        assert server.connections == 0

    run(go())


def test_a_host_off_the_allowlist_is_refused_before_connecting() -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok()) as server:
            client = HttpClient(Allowlist([("127.0.0.1", server.port + 1)]), 5, 1)
            with pytest.raises(EgressRefusedError, match="not on the egress allowlist"):
                await _get(client, server.url())
            await client.aclose()
        assert server.connections == 0

    run(go())


def test_a_server_that_never_answers_times_out_at_the_deadline_and_the_connection_is_closed() -> None:
    closed = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, connection: int) -> None:
        await _read_request(reader)
        await reader.read()  # returns once the client closes its end
        closed.set()

    async def go() -> None:
        async with Server(silent) as server:
            client = server.client(timeout_s=0.3)
            started = asyncio.get_running_loop().time()
            with pytest.raises(TimeoutError):
                await _get(client, server.url())
            assert asyncio.get_running_loop().time() - started < 2
            await asyncio.wait_for(closed.wait(), 5)  # not left open for the garbage collector
            await client.aclose()

    run(go())


def test_nothing_listening_is_a_connect_error() -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok()) as server:
            port = server.port
        client = HttpClient(Allowlist([("127.0.0.1", port)]), 5, 1)
        with pytest.raises(HttpError, match="nothing answered") as caught:
            await _get(client, f"http://127.0.0.1:{port}/v1/x")
        assert caught.value.connect and not caught.value.dns
        await client.aclose()

    run(go())


def _signed_by_a_new_authority(folder: Path) -> ssl.SSLContext:
    """A server context whose certificate (for 127.0.0.1) a new CA signed; the CA is written to ca.pem."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hospital test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "vllm.internal")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return server_context(folder, cert, key)


def test_https_to_a_server_a_trusted_authority_signed_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hospital's internal CA, trusted the way OpenSSL is told (SSL_CERT_FILE): requests go through, and a
    connection is kept as over plain HTTP."""
    server_tls = _signed_by_a_new_authority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    _tls.cache_clear()  # the context is built once per process: build it again with this trust store

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(b'{"n": %d}' % n), tls=server_tls) as server, \
                server.client() as client:
            replies = [await _get(client, server.url("https")) for _ in range(3)]
        assert replies == [(200, b'{"n": %d}' % n) for n in range(1, 4)]
        assert (server.connections, server.requests) == (1, 3)

    try:
        run(go())
    finally:
        _tls.cache_clear()


def test_https_refuses_a_certificate_no_trusted_authority_signed(tmp_path: Path) -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(), tls=self_signed(tmp_path)) as server, server.client() as client:
            with pytest.raises(HttpError, match=r"TLS handshake with 127\.0\.0\.1:\d+ failed") as caught:
                await _get(client, server.url("https"))
        assert caught.value.connect and caught.value.tls
        assert server.requests == 0  # nothing was sent to a server that could not prove who it is

    run(go())


def test_the_endpoint_check_names_a_refused_certificate_and_how_to_trust_a_hospital_ca(tmp_path: Path) -> None:
    """`run` and `doctor` check each deployment first: a certificate nobody trusted is said as such, not as
    "nothing answered"."""

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(), tls=self_signed(tmp_path)) as server:
            deployment = Deployment(base_url=f"https://127.0.0.1:{server.port}/v1")
            client = ModelClient(deployment, "m", Allowlist([("127.0.0.1", server.port)]))
            with pytest.raises(EndpointUnreachableError) as caught:
                await client.check_reachable()
            await client.aclose()
        assert "TLS handshake" in caught.value.what and "SSL_CERT_FILE" in caught.value.fix
        assert server.requests == 0

    run(go())


def test_a_url_path_is_sent_percent_encoded_as_a_request_line_needs() -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok()) as server, server.client() as client:
            async with client.request("GET", f"http://127.0.0.1:{server.port}/files/a b/é%20x?q=1 2&r=%2F"):
                pass
        assert server.seen[0].startswith(b"GET /files/a%20b/%C3%A9%20x?q=1%202&r=%2F HTTP/1.1\r\n")

    run(go())


def test_connections_opened_ahead_carry_the_requests_that_follow() -> None:
    """`run` connects each deployment's slots before its event loop starts (run/connections.py): the client
    keeps them, and concurrent requests go over them without opening more."""

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(b'{"c": %d}' % c)) as server, server.client() as client:
            allowlist = Allowlist([("127.0.0.1", server.port)])
            [sockets] = await asyncio.to_thread(open_sockets, allowlist, [(server.url(), 3)], 5.0)
            assert len(sockets) == 3
            assert await client.adopt(server.url(), sockets) == 3
            replies = await asyncio.gather(*(_get(client, server.url()) for _ in range(3)))
        assert sorted(replies) == [(200, b'{"c": %d}' % c) for c in (1, 2, 3)]
        assert (server.connections, server.requests) == (3, 3)

    run(go())


def test_opening_ahead_skips_a_host_off_the_allowlist_and_a_closed_port() -> None:
    """Best effort, and never a way around the allowlist: a refused host gets no connection at all, a closed
    port none either, and neither is an error (the requests that follow report why they cannot connect)."""

    async def go() -> None:
        async with Server(reply=lambda c, n: _ok()) as server:
            closed = Server()
            async with closed:
                pass
            allowlist = Allowlist([("127.0.0.1", server.port + 1), ("127.0.0.1", closed.port)])
            opened = await asyncio.to_thread(open_sockets, allowlist, [(server.url(), 2), (closed.url(), 2)], 5.0)
        assert opened == [[], []]
        assert server.connections == 0

    run(go())


def test_opening_ahead_stops_at_its_deadline() -> None:
    """A server that takes no new connections (a full accept queue) holds the rest of them back: whatever has
    not connected by the deadline is closed and left out, and opening ahead returns then."""
    with socket.create_server(("127.0.0.1", 0), backlog=0) as full:
        port = full.getsockname()[1]
        started = time.monotonic()
        [sockets] = open_sockets(Allowlist([("127.0.0.1", port)]), [(f"http://127.0.0.1:{port}/v1", 50)], 0.3)
        took = time.monotonic() - started
        try:
            assert len(sockets) < 50 and took < 2  # not all connected, and it did not wait for them
            assert all(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 for sock in sockets)
        finally:
            for sock in sockets:
                sock.close()


def test_an_adopted_connection_to_an_untrusted_certificate_is_dropped_and_the_request_says_why(
        tmp_path: Path) -> None:
    async def go() -> None:
        async with Server(reply=lambda c, n: _ok(), tls=self_signed(tmp_path)) as server, server.client() as client:
            allowlist = Allowlist([("127.0.0.1", server.port)])
            [sockets] = await asyncio.to_thread(open_sockets, allowlist, [(server.url("https"), 2)], 5.0)
            assert len(sockets) == 2
            assert await client.adopt(server.url("https"), sockets) == 0
            with pytest.raises(HttpError, match="TLS handshake"):
                await _get(client, server.url("https"))
        assert server.requests == 0

    run(go())
