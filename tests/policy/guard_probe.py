"""Run in a subprocess by test_egress_guard.py: install the guard, try every way out, print what happened.

An audit hook cannot be removed, so the guard never runs inside the pytest process.
Usage: python guard_probe.py ALLOWED_PORT REFUSED_PORT WORK_DIR
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import json
import os
import platform
import socket
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.policy.guard import GuardRefusedError, install_guard

ALLOWED, REFUSED, WORK = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
refusals: list[dict[str, Any]] = []
results: dict[str, str] = {}


def probe(name: str, action: Callable[[], object]) -> None:
    """Record 'ok', 'refused' (a GuardRefusedError somewhere in the chain) or 'error: ...'."""
    try:
        action()
        results[name] = "ok"
    except BaseException as exc:
        chain: BaseException | None = exc
        while chain is not None and not isinstance(chain, GuardRefusedError):
            chain = chain.__cause__ or chain.__context__
        results[name] = "refused" if chain is not None else f"error: {type(exc).__name__}: {exc}"


def url(port: int) -> str:
    return f"http://127.0.0.1:{port}/x.csv"


def raw_connect(port: int) -> None:
    socket.create_connection(("127.0.0.1", port), timeout=5).close()


def udp_send() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"x", ("127.0.0.1", REFUSED))


def through_proxy() -> None:
    # urllib honours proxy variables; the guard sees the connection to the proxy and refuses it.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": f"http://127.0.0.1:{REFUSED}"}))
    opener.open(url(ALLOWED), timeout=5).read()


def duckdb_read(port: int) -> None:
    from medhelm_local.store.database import open_store
    from medhelm_local.store.keys import Kek

    handle = open_store(WORK / f"probe-{port}.duckdb", Kek(os.urandom(32), "probe"), create=True)
    try:
        handle.con.execute(f"SELECT * FROM read_csv('{url(port)}')").fetchall()
    finally:
        handle.close()


def duckdb_unlock() -> None:
    from medhelm_local.store.database import open_store
    from medhelm_local.store.keys import Kek

    handle = open_store(WORK / "probe-unlock.duckdb", Kek(os.urandom(32), "probe"), create=True)
    try:
        handle.con.execute("SET enable_external_access = true")
    finally:
        handle.close()


def outside_library() -> None:
    loaded = Path("/proc/self/maps").read_text()
    candidates = [p for p in sorted(glob.glob("/usr/lib/*-linux-gnu/lib*.so.*")) if p not in loaded]
    ctypes.CDLL(candidates[0])


def site_packages_library() -> None:
    import yaml

    ctypes.CDLL(sorted(glob.glob(str(Path(yaml.__file__).parent / "*.so")))[0])


def find_library() -> None:
    found = ctypes.util.find_library("c")  # runs ldconfig/gcc, which the guard refuses: None, no crash
    results["find_library_result"] = str(found)


def main() -> None:
    install_guard(Allowlist([("127.0.0.1", ALLOWED)]), on_refusal=refusals.append)
    import httpx2

    probe("raw_socket_allowed", lambda: raw_connect(ALLOWED))
    probe("raw_socket_refused", lambda: raw_connect(REFUSED))
    probe("udp_sendto_refused", udp_send)
    probe("urllib_allowed", lambda: urllib.request.urlopen(url(ALLOWED), timeout=5).read())
    probe("urllib_refused", lambda: urllib.request.urlopen(url(REFUSED), timeout=5).read())
    probe("urllib_proxy_refused", through_proxy)
    probe("httpx2_allowed", lambda: httpx2.get(url(ALLOWED), timeout=5, trust_env=False))
    probe("httpx2_refused", lambda: httpx2.get(url(REFUSED), timeout=5, trust_env=False))
    probe("dns_getaddrinfo_refused", lambda: socket.getaddrinfo("example.com", 80))
    probe("dns_gethostbyname_refused", lambda: socket.gethostbyname("example.com"))
    probe("dns_numeric_allowed", lambda: socket.getaddrinfo("127.0.0.1", ALLOWED))
    probe("curl_refused", lambda: subprocess.run(["curl", "-s", url(REFUSED)], check=False))
    probe("curl_allowed_port_refused", lambda: subprocess.run(["curl", "-s", url(ALLOWED)], check=False))
    probe("python_subprocess_refused", lambda: subprocess.run([sys.executable, "-c", "pass"], check=False))
    probe("os_system_refused", lambda: os.system("true"))
    probe("duckdb_refused_port", lambda: duckdb_read(REFUSED))
    probe("duckdb_allowed_port", lambda: duckdb_read(ALLOWED))
    probe("duckdb_unlock", duckdb_unlock)
    probe("ctypes_program_allowed", lambda: ctypes.CDLL(None))
    probe("ctypes_loaded_libc_allowed", lambda: ctypes.CDLL("libc.so.6"))
    probe("ctypes_site_packages_allowed", site_packages_library)
    probe("ctypes_outside_refused", outside_library)
    probe("find_library_degrades", find_library)
    probe("platform_works", lambda: (platform.platform(), platform.processor(), platform.architecture()))
    probe("uuid_works", lambda: (uuid.uuid4(), uuid.getnode()))
    print(json.dumps({"results": results, "refusals": refusals}))


if __name__ == "__main__":
    main()
