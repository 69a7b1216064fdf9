"""The HTTP layer: the egress guard refuses before connecting, retries are bounded, failures are kept."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import FakeServer, write_policy_dir

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.completions import ModelClient
from medhelm_local.client.loop import run as run_loop
from medhelm_local.errors import EgressRefusedError, EndpointUnreachableError
from medhelm_local.policy.egress_allowlist import allowlist_for
from medhelm_local.records import Prompt
from medhelm_local.settings import Deployment, Settings

PROMPT = Prompt("i1", "Question: is this a test?\nA. yes\nB. no\nAnswer:", max_tokens=1, logprobs=True)


class CountingListener:
    """A loopback socket that counts connection attempts and answers each with a fixed reply."""

    def __init__(self, reply: bytes = b"") -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.accepted = 0
        self._reply = reply
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            if self._reply:
                conn.recv(65536)
                conn.sendall(self._reply)
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[CountingListener]:
    server = CountingListener()
    yield server
    server.close()


def _client(base_url: str, allow: list[tuple[str, int]], **fields: object) -> ModelClient:
    deployment = Deployment(base_url=base_url, **fields)  # type: ignore[arg-type]
    return ModelClient(deployment, "m", Allowlist(allow))


def _complete(base_url: str, allow: list[tuple[str, int]], **fields: object):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        client = _client(base_url, allow, **fields)
        try:
            return await client.complete(PROMPT)
        finally:
            await client.aclose()
    return run_loop(go())


def test_a_host_off_the_allowlist_is_refused_before_any_connection(listener: CountingListener,
                                                                    fake_server: Callable[..., FakeServer]) -> None:
    allowed = fake_server()
    with pytest.raises(EgressRefusedError, match=f"127.0.0.1:{listener.port}"):
        _complete(f"http://127.0.0.1:{listener.port}/v1", [("127.0.0.1", allowed.port)])
    assert listener.accepted == 0


def test_the_endpoint_check_doctor_uses_is_guarded_too(listener: CountingListener) -> None:
    async def go() -> None:
        client = _client(f"http://127.0.0.1:{listener.port}/v1", [])
        try:
            await client.check_reachable()
        finally:
            await client.aclose()

    with pytest.raises(EgressRefusedError):
        run_loop(go())
    assert listener.accepted == 0


@pytest.mark.parametrize("announced", [True, False])
def test_a_reply_over_the_size_cap_is_a_stored_failure_not_read_into_memory(announced: bool) -> None:
    big = b'{"choices": [{"message": {"content": "' + b"x" * 300_000 + b'"}}]}'
    head = (f"Content-Length: {len(big)}\r\n" if announced else "Transfer-Encoding: chunked\r\n").encode()
    body = big if announced else b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big)
    server = CountingListener(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + head
                              + b"Connection: close\r\n\r\n" + body)
    try:
        completion = _complete(f"http://127.0.0.1:{server.port}/v1", [("127.0.0.1", server.port)],
                               max_reply_bytes=100_000, max_retries=2)
    finally:
        server.close()
    assert not completion.ok and completion.error_type == "reply_too_large"
    assert completion.attempts == 1  # not retried: the same server would send it again
    assert server.accepted == 1


def test_proxy_variables_are_ignored(listener: CountingListener, fake_server: Callable[..., FakeServer],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    server = fake_server()
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{listener.port}")
    completion = _complete(server.base_url, [("127.0.0.1", server.port)])
    assert completion.ok
    assert listener.accepted == 0


def test_redirects_are_not_followed(fake_server: Callable[..., FakeServer]) -> None:
    target = fake_server()
    redirect = CountingListener(
        f"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{target.port}/v1/chat/completions\r\n"
        "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
    try:
        completion = _complete(f"http://127.0.0.1:{redirect.port}/v1",
                               [("127.0.0.1", redirect.port), ("127.0.0.1", target.port)])
    finally:
        redirect.close()
    assert not completion.ok and completion.error_type == "http_307"
    assert target.stats()["requests"] == 0


def test_transient_errors_are_retried_then_kept_as_failures(fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(fault_rate=1.0, faults="500")
    completion = _complete(server.base_url, [("127.0.0.1", server.port)], max_retries=2)
    assert not completion.ok
    assert (completion.error_type, completion.attempts) == ("http_500", 3)
    assert server.stats()["requests"] == 3


def test_a_client_error_is_not_retried(fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(fault_rate=1.0, faults="400")
    completion = _complete(server.base_url, [("127.0.0.1", server.port)], max_retries=3)
    assert (completion.ok, completion.error_type, completion.attempts) == (False, "http_400", 1)
    assert completion.error_message == "injected fault"
    assert server.stats()["requests"] == 1


def test_a_hanging_server_times_out(fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(fault_rate=1.0, faults="hang", hang=10)
    completion = _complete(server.base_url, [("127.0.0.1", server.port)], max_retries=0, timeout_s=0.5)
    assert (completion.ok, completion.error_type) == (False, "timeout")
    assert completion.latency_s is not None and completion.latency_s < 5


@pytest.mark.parametrize("fault, error_type", [("drop", "connection"), ("malformed", "bad_response")])
def test_dropped_and_malformed_replies(fake_server: Callable[..., FakeServer], fault: str, error_type: str) -> None:
    server = fake_server(fault_rate=1.0, faults=fault)
    completion = _complete(server.base_url, [("127.0.0.1", server.port)], max_retries=1)
    assert (completion.ok, completion.error_type, completion.attempts) == (False, error_type, 2)


@pytest.mark.parametrize("api", ["chat", "completions"])
def test_both_api_styles_return_text_tokens_and_logprobs(fake_server: Callable[..., FakeServer], api: str) -> None:
    server = fake_server()
    completion = _complete(server.base_url, [("127.0.0.1", server.port)], api=api)
    assert completion.ok and completion.text in {"A", "B", "C", "D"}
    assert completion.prompt_tokens and completion.completion_tokens == 1
    if api == "chat":
        assert completion.logprobs_json and '"logprob"' in completion.logprobs_json


def test_concurrency_limit_is_respected(fake_server: Callable[..., FakeServer]) -> None:
    server = fake_server(delay=0.2)

    async def go() -> float:
        client = _client(server.base_url, [("127.0.0.1", server.port)], max_concurrency=4)
        try:
            loop = asyncio.get_running_loop()
            start = loop.time()
            await asyncio.gather(*(client.complete(Prompt(str(i), f"q{i}", 1)) for i in range(8)))
            return loop.time() - start
        finally:
            await client.aclose()

    # 8 requests, 4 at a time, 0.2 s each: two waves.
    assert 0.4 <= run_loop(go()) < 1.5


def test_unreachable_endpoint_is_a_clear_error(listener: CountingListener) -> None:
    port = listener.port
    listener.close()

    async def go() -> None:
        client = _client(f"http://127.0.0.1:{port}/v1", [("127.0.0.1", port)])
        try:
            await client.check_reachable()
        finally:
            await client.aclose()

    with pytest.raises(EndpointUnreachableError, match="nothing answered"):
        run_loop(go())


def test_a_configured_deployment_is_not_reachable_unless_the_policy_lists_it(tmp_path: Path) -> None:
    settings = Settings(policy_dir=write_policy_dir(tmp_path / "policies", [("10.0.0.5", 8000)]),
                        deployments={"a": Deployment(base_url="https://gpu.internal/v1")})
    allow = allowlist_for(settings)
    assert allow.permits("10.0.0.5", 8000)
    assert not allow.permits("gpu.internal", 443) and not allow.permits("example.com", 443)
    with pytest.raises(EgressRefusedError, match=r"egress\.yaml"):
        allow.require("a", settings.deployments["a"])
