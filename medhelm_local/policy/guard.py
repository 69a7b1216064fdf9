"""Egress layer (b): an audit hook that refuses connections, look-ups, programs and libraries off the allowlist.

Installed first thing in the CLI; an audit hook cannot be removed, so it lasts as long as the
process. What it lets through, and why:

    socket connect, sendto, sendmsg   AF_UNIX and AF_NETLINK (local IPC: asyncio, DuckDB); TCP/IP
                                      only to an allowlisted address:port, or to an address that an
                                      allowlisted host name resolves to (same port). Loopback is not
                                      special: a local port can be a proxy or a tunnel out.
    DNS look-ups                      numeric addresses (no query is sent) and allowlisted names only;
                                      reverse look-ups only of allowlisted hosts
    subprocesses, os.system, exec     refused unless the program is in `programs` (empty: the CLI
                                      starts none); os.system always (a shell can do anything)
    ctypes.dlopen                     the program itself, libraries already mapped into the process,
                                      and files inside the Python installation and site-packages

Refusals raise GuardRefusedError, which is also a PermissionError, so library code written for
a failed connect or a missing program degrades instead of crashing: `ctypes.util.find_library`
returns None, `platform.processor()` an empty string. Each refusal is logged and handed to
`on_refusal` without anything that could carry PHI: host names that were refused are recorded as
a length and a sha256 prefix (a name can smuggle data out through DNS), and never arguments.

Native code that calls the OS directly (DuckDB's httpfs, c-ares) is not seen here: DuckDB is
locked down separately, and the NetworkPolicy, layer (c), covers the rest.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import os
import re
import shutil
import socket
import sys
import sysconfig
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from medhelm_local.client.allowed_hosts import Allowlist, canonical_host
from medhelm_local.errors import EgressRefusedError

log = logging.getLogger("medhelm_local.policy.guard")

_CONNECT = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})
_LOOKUP = frozenset({"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"})
_REVERSE = frozenset({"socket.gethostbyaddr", "socket.getnameinfo"})
_PROGRAM = frozenset({"subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system"})
WATCHED = _CONNECT | _LOOKUP | _REVERSE | _PROGRAM | {"ctypes.dlopen"}
_LOCAL_FAMILIES = frozenset(f for f in (getattr(socket, "AF_UNIX", None), getattr(socket, "AF_NETLINK", None)) if f)
_IP_FAMILIES = frozenset({socket.AF_INET, socket.AF_INET6})
_PLAIN = re.compile(r"^[\w./+-]{1,255}$")
_RESOLVE_TTL_S = 30.0

RefusalHandler = Callable[[dict[str, Any]], None]


class GuardRefusedError(EgressRefusedError, PermissionError):
    """The audit-hook guard refused a connection, look-up, program or library load."""


def _fingerprint(text: str) -> str:
    return f"a host name ({len(text)} characters, sha256 {hashlib.sha256(text.encode()).hexdigest()[:12]})"


def _plain(text: str) -> str:
    """A program or library path as recorded: itself if it is plain, else only a fingerprint."""
    return text if _PLAIN.match(text) else f"a path of {len(text)} characters"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _mapped_libraries() -> set[str]:
    """Paths and file names of every shared object mapped into this process (Linux), else empty."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            fields = (line.split(None, 5) for line in fh)
            paths = {f[5].strip() for f in fields if len(f) == 6 and f[5].startswith("/")}
    except OSError:
        return set()
    return paths | {os.path.basename(p) for p in paths}


def _library_roots() -> tuple[str, ...]:
    """Folders of the Python installation and its import path: libraries there may be loaded."""
    paths = sysconfig.get_paths()
    found = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    found |= {p for p in sys.path if p and os.path.isabs(p) and os.path.isdir(p)}
    return tuple(sorted({os.path.realpath(p).rstrip("/") + "/" for p in found}))


class _Rules:
    """The allowlist, indexed for the hook: address pairs, and host names with their ports."""

    def __init__(self, allowlist: Allowlist) -> None:
        pairs = {(canonical_host(h), p) for h, p in allowlist}
        self.addresses = frozenset((h, p) for h, p in pairs if _is_ip(h))
        names: dict[str, set[int]] = {}
        for host, port in pairs:
            if not _is_ip(host):
                names.setdefault(host, set()).add(port)
        self.names = {h: frozenset(ports) for h, ports in names.items()}
        self.hosts = frozenset(h for h, _ in pairs)
        self.where = str(getattr(allowlist, "source", None) or "policies/egress.yaml")


class EgressGuard:
    """The installed hook's state; `set_allowlist` swaps the endpoints it lets through."""

    def __init__(self, allowlist: Allowlist, on_refusal: RefusalHandler | None = None,
                 programs: Iterable[str] = ()) -> None:
        self._rules = _Rules(allowlist)
        self._on_refusal = on_refusal
        self._programs = frozenset(os.path.realpath(p) for p in programs)
        self._roots = _library_roots()
        self._resolved: dict[str, tuple[float, frozenset[str]]] = {}
        self._local = threading.local()
        self.refusals = 0

    def set_allowlist(self, allowlist: Allowlist) -> None:
        """Enforce this allowlist from now on (the CLI calls it once the policy is loaded)."""
        self._rules = _Rules(allowlist)
        self._resolved = {}

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: return to allow, raise GuardRefusedError to refuse."""
        if event not in WATCHED or getattr(self._local, "resolving", False):
            return
        refused = self.check(event, args)
        if refused is not None:
            self._refuse(event, *refused)

    def check(self, event: str, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
        """None if the event may proceed, else (target, reason, fix) with nothing PHI-bearing in them."""
        rules = self._rules
        if event in _CONNECT:
            return self._check_connect(rules, args)
        if event in _LOOKUP:
            host = os.fsdecode(args[0]) if isinstance(args[0], bytes) else args[0]
            if host is None or _is_ip(str(host)) or canonical_host(str(host)) in rules.names:
                return None
            return (_fingerprint(str(host)), "DNS look-up of a host that is not on the egress allowlist",
                    f"only host names listed in {rules.where} may be looked up")
        if event in _REVERSE:
            address = str(args[0][0] if isinstance(args[0], tuple) else args[0])
            if canonical_host(address) in rules.hosts:
                return None
            shown = address if _is_ip(address) else _fingerprint(address)
            return (shown, "reverse DNS look-up of a host that is not on the egress allowlist",
                    "medhelm-local never needs reverse look-ups")
        if event in _PROGRAM:
            return self._check_program(event, args)
        return self._check_library(args[0])

    def _check_connect(self, rules: _Rules, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
        sock, address = args[0], args[1]
        family = getattr(sock, "family", None)
        if address is None or family in _LOCAL_FAMILIES:
            return None  # sendmsg on a connected socket; or local IPC
        if family not in _IP_FAMILIES or not isinstance(address, tuple) or len(address) < 2:
            return (f"a socket of family {family}", "only TCP/IP to allowlisted endpoints and local sockets "
                    "are allowed", "medhelm-local needs no other kind of socket")
        host, port = canonical_host(str(address[0])), int(address[1])
        if self._address_allowed(rules, host, port):
            return None
        shown = f"{host}:{port}" if _is_ip(host) else f"{_fingerprint(host)} port {port}"
        return (shown, "not on the egress allowlist",
                f"if this endpoint is inside your network, add it to {rules.where} under allow (host, port, "
                "purpose, why) and have the change reviewed")

    def _address_allowed(self, rules: _Rules, host: str, port: int) -> bool:
        if (host, port) in rules.addresses or port in rules.names.get(host, ()):
            return True
        return any(port in ports and host in self._resolve(name) for name, ports in rules.names.items())

    def _resolve(self, name: str) -> frozenset[str]:
        """The addresses an allowlisted name has now (cached briefly), looked up by the guard itself."""
        cached = self._resolved.get(name)
        if cached is not None and cached[0] > time.monotonic():
            return cached[1]
        self._local.resolving = True
        try:
            found = frozenset(canonical_host(str(info[4][0])) for info in socket.getaddrinfo(name, None))
        except OSError:
            found = frozenset()
        finally:
            self._local.resolving = False
        self._resolved[name] = (time.monotonic() + _RESOLVE_TTL_S, found)
        return found

    def _check_program(self, event: str, args: tuple[Any, ...]) -> tuple[str, str, str] | None:
        fix = "medhelm-local starts no programs; one that is needed must be added to the guard's list in code"
        if event == "os.system":
            return ("a shell command", "shell commands are never allowed", fix)
        program = args[1] if event == "os.spawn" else args[0]
        if program is None:
            program = args[1][0] if isinstance(args[1], list | tuple) and args[1] else ""
        text = os.fsdecode(program)
        resolved = text if os.sep in text else (shutil.which(text) or text)
        if os.path.realpath(resolved) in self._programs:
            return None
        return (_plain(text), "starting programs is not allowed", fix)

    def _check_library(self, name: object) -> tuple[str, str, str] | None:
        if name is None:
            return None  # the program itself (ctypes.pythonapi, CDLL(None))
        text = os.fsdecode(name) if isinstance(name, str | bytes) else str(name)
        loaded = _mapped_libraries()
        if text in loaded:
            return None
        if os.sep in text:
            real = os.path.realpath(text)
            if real in loaded or any(real.startswith(root) for root in self._roots):
                return None
        return (_plain(text), "loading native libraries from outside the Python installation is not allowed",
                "install the Python package that ships the library; system libraries cannot be loaded")

    def _refuse(self, event: str, target: str, reason: str, fix: str) -> None:
        self.refusals += 1
        record = {"layer": "audit_hook", "event": event, "target": target, "reason": reason,
                  "pid": os.getpid(), "at": datetime.now(UTC).isoformat(timespec="milliseconds")}
        log.warning("egress guard refused %s to %s: %s", event, target, reason)
        if self._on_refusal is not None and not getattr(self._local, "reporting", False):
            self._local.reporting = True  # a handler that itself trips the guard is refused, not re-reported
            try:
                self._on_refusal(record)
            except Exception:
                log.exception("the egress refusal handler failed; the refusal stands")
            finally:
                self._local.reporting = False
        raise GuardRefusedError(f"{event} to {target} refused by the egress guard: {reason}",
                                where=f"audit event {event}", fix=fix)


_active: EgressGuard | None = None
_install_lock = threading.Lock()


def install_guard(allowlist: Allowlist, on_refusal: RefusalHandler | None = None,
                  programs: Iterable[str] = ()) -> EgressGuard:
    """Install the guard for the rest of the process; if one is installed already, return it unchanged."""
    global _active
    with _install_lock:
        if _active is None:
            guard = EgressGuard(allowlist, on_refusal, programs)
            sys.addaudithook(guard.hook)
            _active = guard
        return _active


def active_guard() -> EgressGuard | None:
    """The installed guard, or None (e.g. when the CLI app is driven in-process by tests)."""
    return _active
