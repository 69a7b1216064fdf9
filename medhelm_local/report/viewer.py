"""Run the viewer: bind the socket first (a port in use is a clear error), print the link, serve with uvicorn."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable

from medhelm_local.errors import ConfigError
from medhelm_local.report.live import LiveStores
from medhelm_local.report.server import ASGIApp, create_app, is_loopback

DEFAULT_HOST = "127.0.0.1"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (an IP address, or `localhost` for 127.0.0.1); port 0 picks one."""
    address = "127.0.0.1" if host == "localhost" else host.strip("[]")
    try:
        family = socket.AF_INET6 if ipaddress.ip_address(address).version == 6 else socket.AF_INET
    except ValueError:
        raise ConfigError(f"--host '{host}' is not an IP address", where="option --host",
                          fix="give the address to listen on, e.g. 127.0.0.1 (the default) or 0.0.0.0 for every "
                              "interface; host names are not looked up") from None
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(f"port {port} on {address} is already in use", where="option --port",
                              fix="stop what is listening there, or choose another port (--port 0 picks a free one)"
                              ) from None
        raise ConfigError(f"cannot listen on {address}:{port} ({exc.strerror})", where="options --host / --port",
                          fix="choose an address of this machine and a port you may use (above 1023)") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The viewer's base URL for the bound socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(live: LiveStores, sock: socket.socket, token: str, announce: Callable[[str], None],
          front: Callable[[ASGIApp, int, bool], ASGIApp] | None = None) -> None:
    """Serve until interrupted; `announce` gets the base URL once the socket is listening. `front` (given the
    viewer, its port and whether it is on loopback) puts pages of a later stage in front (the rating pages)."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app = create_app(live, token, port, loopback=is_loopback(host))
    if front is not None:
        app = front(app, port, is_loopback(host))
    # No access log: request lines would put paths (and a first visit's token) in a log.
    config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False, server_header=False,
                            date_header=False, lifespan="off", ws="none", http="h11", loop="asyncio",
                            proxy_headers=False, timeout_graceful_shutdown=2)
    announce(url_of(sock))
    uvicorn.Server(config).run(sockets=[sock])
