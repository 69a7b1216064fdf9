"""Fetch published files over HTTP(S), resuming partial downloads, and keep only what matches its sha256.

Every request goes through the project's one HTTP client (`client.http.HttpClient`), so the
egress allowlist is checked before a socket opens, proxy variables are ignored and redirects are
never followed. A file is written to `<name>.part` and renamed to its name only once its size and
sha256 match the published ones; a dropped connection resumes from the bytes already on disk with
an HTTP Range request.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from medhelm_local.client.allowed_hosts import Allowlist
from medhelm_local.client.http import HttpClient
from medhelm_local.client.loop import run as run_loop
from medhelm_local.client.wire import HttpError, Response
from medhelm_local.errors import DataStageError, IntegrityError
from medhelm_local.scenarios.datafiles import private_folder, sha256_file

RETRIES = 5  # per file, for dropped connections and 5xx answers
REQUEST_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Fetch:
    """One file to fetch: from where, to where, and what it must be."""

    label: str  # "folder/name", for messages and progress bars
    url: str
    target: Path
    sha256: str
    bytes: int


class Progress(Protocol):
    """Receives each file's progress (the CLI draws bars from it)."""

    def started(self, label: str, total: int, done: int) -> None:
        """A file is being fetched; `done` bytes were on disk already."""

    def advanced(self, label: str, size: int) -> None:
        """`size` more bytes of a file arrived."""

    def finished(self, label: str) -> None:
        """A file is complete and verified."""


class _DroppedError(Exception):
    """The connection ended early or the server failed; worth another try from where it stopped."""


def _describe(exc: Exception) -> str:
    """What went wrong with a connection, in words an IT person can act on."""
    if isinstance(exc, HttpError) and exc.dns:
        return "the host name could not be resolved: does this host have internet access?"
    if isinstance(exc, HttpError) and exc.tls:  # something answered, but not with a certificate this host trusts
        return f"{exc}: a proxy that intercepts TLS, or a CA bundle without the publisher's authority?"
    if isinstance(exc, HttpError) and exc.connect:
        return "nothing answered at the host"
    if isinstance(exc, TimeoutError):
        return "it timed out"
    return "the connection dropped"


def _part(target: Path) -> Path:
    return target.with_name(target.name + ".part")


def _mismatch(item: Fetch, what: str) -> IntegrityError:
    return IntegrityError(f"{item.label} does not match the checksum shipped with medhelm-local ({what}): it was "
                          "changed in transit or at its source, so the staging stopped and nothing was kept",
                          where=item.url, fix="run the same command again later; if it fails the same way, the "
                                              "publisher changed the file: report it, and do not carry it in")


def _verify(item: Fetch, part: Path) -> None:
    """Rename a complete download into place, or delete it and raise if its sha256 is wrong."""
    if sha256_file(part) != item.sha256:
        part.unlink()
        raise _mismatch(item, "sha256 differs")
    os.replace(part, item.target)


def _resume_point(item: Fetch, resp: Response, part: Path, offset: int) -> int:
    """Where the response's body starts in the file, after checking its status; raise if it is unusable."""
    if resp.status == 206 and resp.headers.get("content-range", "").startswith(f"bytes {offset}-"):
        return offset
    if resp.status in (200, 206, 416):
        part.unlink(missing_ok=True)  # no usable range (or the server ignored it): start from the first byte
        if resp.status == 200:
            return 0
        raise _DroppedError(f"HTTP {resp.status} with an unexpected range")
    if resp.status in (404, 410):
        raise DataStageError(f"{item.label} is not at its published location (HTTP {resp.status})", where=item.url,
                             fix="the publisher moved or removed it: check the source with `medhelm-local benchmarks "
                                 "show`, and stage the other benchmarks by name meanwhile")
    if resp.status >= 500 or resp.status == 429:
        raise _DroppedError(f"HTTP {resp.status}")
    redirect = " (a redirect, which is never followed)" if 300 <= resp.status < 400 else ""
    raise DataStageError(f"{item.label}: the server answered HTTP {resp.status}{redirect}", where=item.url,
                         fix="check that the source URL is the published location")


async def _request(http: HttpClient, item: Fetch, part: Path, progress: Progress | None) -> None:
    """One attempt: ask for the bytes not yet on disk and append them."""
    offset = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={offset}-"} if offset else {}
    try:
        async with http.request("GET", item.url, headers=headers) as resp:
            offset = _resume_point(item, resp, part, offset)
            if progress is not None:
                progress.started(item.label, item.bytes, offset)
            with os.fdopen(os.open(part, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab") as fh:
                async for block in resp.chunks():
                    offset += len(block)
                    if offset > item.bytes:
                        raise _mismatch(item, f"more than the published {item.bytes} bytes")
                    fh.write(block)
                    if progress is not None:
                        progress.advanced(item.label, len(block))
    except (TimeoutError, HttpError) as exc:
        raise _DroppedError(_describe(exc)) from None
    if offset < item.bytes:
        raise _DroppedError(f"the connection closed after {offset} of {item.bytes} bytes")


async def _fetch_one(http: HttpClient, item: Fetch, progress: Progress | None) -> None:
    if item.target.is_file() and sha256_file(item.target) == item.sha256:
        return  # fetched and verified by an earlier, interrupted run
    part = _part(item.target)
    private_folder(item.target.parent)
    if part.exists() and part.stat().st_size > item.bytes:
        part.unlink()
    reason = ""
    for attempt in range(RETRIES + 1):
        if part.exists() and part.stat().st_size == item.bytes:
            break
        try:
            await _request(http, item, part, progress)
            break
        except IntegrityError:
            part.unlink(missing_ok=True)
            raise
        except _DroppedError as exc:
            reason = str(exc)
            await asyncio.sleep(min(0.2 * 2 ** attempt, 5.0))
    else:
        raise DataStageError(f"{item.label} could not be fetched after {RETRIES + 1} tries ({reason})",
                             where=item.url, fix="run the same command again when the connection works: it keeps "
                                                 "what arrived and resumes where it stopped")
    _verify(item, part)
    if progress is not None:
        progress.finished(item.label)


async def _fetch_all(items: list[Fetch], allowlist: Allowlist, concurrency: int, progress: Progress | None) -> None:
    limit = asyncio.Semaphore(concurrency)
    async with HttpClient(allowlist, REQUEST_TIMEOUT_S, concurrency) as http:

        async def one(item: Fetch) -> None:
            async with limit:
                await _fetch_one(http, item, progress)

        tasks = [asyncio.ensure_future(one(item)) for item in items]
        try:
            await asyncio.gather(*tasks)
        finally:  # the first failure stops the rest: nothing more is written
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def fetch_files(items: Iterable[Fetch], allowlist: Allowlist, concurrency: int = 8,
                progress: Progress | None = None) -> None:
    """Fetch and verify every file; raise on the first that cannot be fetched or does not match."""
    run_loop(_fetch_all(list(items), allowlist, concurrency, progress))
