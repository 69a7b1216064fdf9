"""`medhelm-local serve`: a real viewer process on 127.0.0.1 answering real HTTP. Nothing without the token;
its own files only; the loopback address unless --host says otherwise; the store never changes."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli
from support.report_store import FakeRun, Rating, write_store
from support.report_viewer import serving

from medhelm_local.store.keys import Kek

RUN = "pubmed_qa-local_a-ward"


@pytest.fixture
def store(tmp_path: Path, kek: Kek) -> Path:
    path = tmp_path / "results" / "ward.duckdb"
    write_store(path, kek, "ward", [
        FakeRun("local/a", "pubmed_qa", 250, accuracy=0.7, failed=5, seed=1),
        FakeRun("local/b", "pubmed_qa", 250, accuracy=0.5, seed=2,
                ratings=lambda i: [Rating("judge-a", {"accuracy": 3}, "plausible")])])
    return path


def _state(folder: Path) -> dict[str, tuple[str, int]]:
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def _machine_address() -> str | None:
    """An address of this machine other than loopback, if it has one."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # a UDP "connect" sends nothing; it only picks the outgoing address
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address


def test_nothing_is_served_without_the_token_and_everything_with_it(store: Path, kek_file: Path) -> None:
    before = _state(store.parent)
    with serving("--store", str(store), "--port", "0", env={"MEDHELM_KEK_FILE": str(kek_file)}) as viewer:
        assert viewer.base.startswith("http://127.0.0.1:")
        for path in ("/", f"/runs/{RUN}.html", f"/runs/{RUN}", f"/runs/{RUN}/instances?page=1", "/report.json",
                     "/assets/style.css", "/plots/heatmap.svg"):
            status, headers, body = viewer.get(path)
            assert status == 401 and b"local/a" not in body and b"Question" not in body, path
            assert headers["www-authenticate"].startswith("Bearer")
        assert viewer.get("/?token=not-the-token")[0] == 401
        # The link: a cookie, then a redirect that drops the token from the address bar.
        status, headers, _ = viewer.get(viewer.link.removeprefix(viewer.base))
        assert status == 303 and headers["location"] == "/" and "token" not in headers["location"]
        cookie = headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and viewer.token not in cookie
        status, headers, body = viewer.get("/", {"Cookie": cookie.split(";")[0]})
        assert status == 200 and b"local/a" in body and b"Leaderboard" in body
        assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'self'")
        assert headers["referrer-policy"] == "no-referrer" and headers["x-content-type-options"] == "nosniff"
        assert headers["cache-control"] == "no-store" and "server" not in headers
        # Bearer works too; the per-instance pages come 100 at a time, failures on their own.
        status, _, body = viewer.authorised(f"/runs/{RUN}/instances?page=2")
        page = json.loads(body)
        assert status == 200 and (page["page"], page["pages"], page["total"]) == (2, 3, 250)
        assert [i["ordinal"] for i in page["instances"]] == list(range(100, 200))
        failed = json.loads(viewer.authorised(f"/runs/{RUN}/instances?page=1&failed=1")[2])
        assert failed["total"] == 5 and all(i["ok"] is False for i in failed["instances"])
        judged = json.loads(viewer.authorised("/runs/pubmed_qa-local_b-ward/instances?page=1")[2])
        assert judged["instances"][0]["ratings"][0]["ratings"]["accuracy"] == {"score": 3, "explanation": "plausible"}
        assert viewer.authorised("/runs/nosuch.html")[0] == 404
        # A page has the static report's path; the older extension-less ones redirect there, query and all.
        status, _, body = viewer.authorised("/index.html")
        assert status == 200 and b'href="/benchmarks/pubmed_qa.html"' in body and b'href="/taxonomy.html"' in body
        status, _, body = viewer.authorised("/benchmarks/pubmed_qa.html")
        assert status == 200 and f'href="/runs/{RUN}.html"'.encode() in body
        status, headers, _ = viewer.authorised("/compare?baseline=local/a")
        assert status == 308 and headers["location"] == "/compare.html?baseline=local/a"
        # Issue 29, finding 8: a huge page number was a 500 that said to restore the store from backup.
        for number in ("99999999999999999999999999", "1000000001", "x", "9" * 5000):
            status, _, body = viewer.authorised(f"/runs/{RUN}/instances?page={number}")
            assert (status, body) == (400, b"page must be a whole number from 1 to 1,000,000,000"), number
        svg = viewer.authorised("/plots/heatmap.svg")
        assert svg[0] == 200 and svg[1]["content-type"].startswith("image/svg+xml") and b"<svg" in svg[2]
    assert _state(store.parent) == before  # the store and its key file: same bytes, same times


def test_no_path_reaches_a_file_outside_the_viewers_own(store: Path, kek_file: Path) -> None:
    with serving("--store", str(store), "--port", "0", env={"MEDHELM_KEK_FILE": str(kek_file)}) as viewer:
        assert viewer.authorised("/assets/style.css")[0] == 200
        for path in ("/assets/../../../../etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd",
                     "/assets/%2e%2e%2fkek", "/assets/..", "/plots/..%2f..%2fkek.svg", "/static/../kek",
                     f"/runs/..%2f..%2f{store.name}", "/runs/%2e%2e/instances", "/" + str(kek_file)):
            status, _, body = viewer.authorised(path)
            assert status in (400, 404), path
            assert b"root:" not in body and kek_file.read_bytes().strip() not in body, path
        assert viewer.get("/", {"Authorization": f"Bearer {viewer.token}"}, method="POST")[0] == 405
        # A page asked for under another host name (DNS rebinding) is refused on a loopback viewer.
        evil = viewer.get("/", {"Authorization": f"Bearer {viewer.token}", "Host": "attacker.example:80"})
        assert evil[0] == 400


def test_it_listens_on_loopback_only_unless_host_is_given(store: Path, kek_file: Path) -> None:
    address = _machine_address()
    if address is None:
        pytest.skip("this machine has no address other than loopback to try")
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    with serving("--store", str(store), "--port", "0", env=env) as viewer:
        port = int(viewer.base.rsplit(":", 1)[1].strip("/"))
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((address, port), timeout=5).close()
    with serving("--store", str(store), "--port", "0", "--host", "0.0.0.0", env=env) as viewer:
        port = int(viewer.base.rsplit(":", 1)[1].strip("/"))
        socket.create_connection((address, port), timeout=5).close()
        assert viewer.authorised("/")[0] == 200


def test_a_port_in_use_and_bad_options_are_clear_errors(store: Path, kek_file: Path, tmp_path: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        port = taken.getsockname()[1]
        done = run_cli("serve", "--store", str(store), "--port", str(port), env=env, timeout=60)
        assert done.returncode == 2 and f"port {port} on 127.0.0.1 is already in use" in done.stderr
        assert "Traceback" not in done.stderr
    finally:
        taken.close()
    done = run_cli("serve", "--store", str(store), "--host", "viewer.example", env=env, timeout=60)
    assert done.returncode == 2 and "is not an IP address" in done.stderr
    short = tmp_path / "token"
    short.write_text("abc\n")
    done = run_cli("serve", "--store", str(store), "--token-file", str(short), env=env, timeout=60)
    assert done.returncode == 2 and "at least 16 characters" in done.stderr
    done = run_cli("serve", "--store", str(tmp_path / "none.duckdb"), env=env, timeout=60)
    assert done.returncode == 2 and "no store exists" in done.stderr


def test_a_token_from_a_file_is_used_and_never_printed(store: Path, kek_file: Path, tmp_path: Path) -> None:
    secret = tmp_path / "viewer_token"
    secret.write_text("k8s-mounted-token-0123456789abcdef\n")
    process = subprocess.Popen([str(Path(sys.executable).parent / "medhelm-local"), "serve", "--store", str(store),
                                "--port", "0", "--token-file", str(secret)],
                               env={"MEDHELM_KEK_FILE": str(kek_file), "PATH": "/usr/bin:/bin"},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline() if process.stdout else ""
        second = process.stdout.readline() if process.stdout else ""
        assert "read-only, at http://127.0.0.1:" in first and str(secret) in second
        assert "k8s-mounted-token" not in first + second
        base = first.split(" at ", 1)[1].strip()
        import urllib.request

        request = urllib.request.Request(base, headers={"Authorization": "Bearer k8s-mounted-token-0123456789abcdef"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
    finally:
        process.terminate()
        process.wait(timeout=30)
