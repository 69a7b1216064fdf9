"""A local stand-in for the dataset publishers: a real HTTP server on 127.0.0.1 with Range support.

Serves `/<folder>/<path>` from a folder per dataset (the published files in ../shared/datasets when
present, else the project's own fixtures), and injects the faults a real download meets: a file
corrupted in transit, a connection dropped part-way, a file that is not there. Every request is
recorded (path and Range header) so tests can see what was asked for.
"""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

_RANGE = re.compile(r"^bytes=(\d+)-(\d*)$")


@dataclass
class Faults:
    """What goes wrong, by served path ("folder/name")."""

    corrupt: set[str] = field(default_factory=set)  # one byte flipped in transit, same length
    drop_after: dict[str, int] = field(default_factory=dict)  # close after N body bytes, once per path
    missing: set[str] = field(default_factory=set)  # 404
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range header)


class _Handler(BaseHTTPRequestHandler):
    server: _MirrorHTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: without this, 40 ms per file

    def log_message(self, format: str, *args: object) -> None:  # quiet in test output
        pass

    def do_GET(self) -> None:
        rel = unquote(urlsplit(self.path).path).lstrip("/")
        faults = self.server.faults
        faults.requests.append((rel, self.headers.get("Range")))
        path = self.server.resolve(rel)
        if path is None or rel in faults.missing:
            self._reply(404, b"not found\n")
            return
        data = path.read_bytes()
        if rel in faults.corrupt:
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1:]
        start, status = 0, 200
        match = _RANGE.match(self.headers.get("Range", ""))
        if match:
            start = int(match.group(1))
            if start >= len(data):
                self._reply(416, b"", {"Content-Range": f"bytes */{len(data)}"})
                return
            status = 206
        body = data[start:]
        headers = {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"} if status == 206 else {}
        cut = faults.drop_after.pop(rel, None)
        self._reply(status, body, headers, cut)

    def _reply(self, status: int, body: bytes, headers: Mapping[str, str] | None = None,
               cut: int | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if cut is None:
            self.wfile.write(body)
            return
        self.wfile.write(body[:cut])  # then the connection drops, as a flaky network does
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


class _MirrorHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folders: Mapping[str, Path], faults: Faults) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.folders = dict(folders)
        self.faults = faults

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up (as the downloader does when it stops early) is not news in test output

    def resolve(self, rel: str) -> Path | None:
        folder, _, name = rel.partition("/")
        base = self.folders.get(folder)
        if base is None or not name:
            return None
        path = (base / name).resolve()
        return path if path.is_file() and path.is_relative_to(base.resolve()) else None


@dataclass
class Mirror:
    """A running mirror: its URL, its faults (editable while it runs) and what it serves."""

    url: str
    port: int
    faults: Faults
    folders: dict[str, Path]


@contextmanager
def serve_mirror(folders: Mapping[str, Path]) -> Iterator[Mirror]:
    """Serve the folders on 127.0.0.1 (a free port) until the block ends."""
    faults = Faults()
    server = _MirrorHTTPServer(folders, faults)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        yield Mirror(f"http://127.0.0.1:{port}", port, faults, dict(folders))
    finally:
        server.shutdown()
        server.server_close()


def main() -> None:
    """Serve every folder under --root until killed (for bench/stage.py): writes its port to --port-file."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True, help="a folder of dataset folders")
    parser.add_argument("--port-file", type=Path, required=True)
    args = parser.parse_args()
    folders = {p.name: p for p in sorted(args.root.iterdir()) if p.is_dir()}
    with serve_mirror(folders) as mirror:
        tmp = args.port_file.with_name(args.port_file.name + ".tmp")
        tmp.write_text(str(mirror.port))
        tmp.rename(args.port_file)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
