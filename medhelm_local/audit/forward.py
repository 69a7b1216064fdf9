"""Forwarding: every audit record also goes, as it is written, to append-only sinks the hospital runs.

The sinks come from the policy's `audit.yaml`: the local syslog/journald socket (a Unix socket, so
the egress guard has nothing to refuse) or an append-only file. A copy of the records outside the
log is what proves that none was removed since, including from the end: `audit verify --forwarded
FILE` compares such a copy (a syslog extract works: everything before the first `{` of a line is
skipped) with the log. A sink that fails does not undo the record; it is reported as a warning.
"""

from __future__ import annotations

import json
import os
import socket
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from medhelm_local.audit.chain import AuditRecord, ChainProblem
from medhelm_local.errors import ConfigError, MedhelmWarning
from medhelm_local.policy.file_schemas import AuditPolicy

_SYSLOG_AUTHPRIV_INFO = 10 * 8 + 6  # facility authpriv (security messages), severity info
_TAG = "medhelm-local-audit"


class Sink(Protocol):
    """One place records are copied to."""

    def describe(self) -> str:
        """For messages."""
        ...

    def send(self, line: str) -> None:
        """Deliver one record line; OSError if it cannot."""
        ...


@dataclass(frozen=True)
class SyslogSink:
    """The local syslog daemon or journald, through its datagram socket."""

    address: str

    def describe(self) -> str:
        """For messages."""
        return f"syslog socket {self.address}"

    def send(self, line: str) -> None:
        """One syslog datagram, facility authpriv."""
        message = f"<{_SYSLOG_AUTHPRIV_INFO}>{_TAG}[{os.getpid()}]: {line}".encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.sendto(message, self.address)


@dataclass(frozen=True)
class FileSink:
    """An append-only file (owner-only when this program creates it), one record a line, synced."""

    path: str

    def describe(self) -> str:
        """For messages."""
        return f"file {self.path}"

    def send(self, line: str) -> None:
        """Append one line and sync it to disk."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)


def sinks_for(policy: AuditPolicy) -> list[Sink]:
    """The sinks `audit.yaml` names, in order."""
    return [SyslogSink(s.syslog) if s.syslog is not None else FileSink(str(s.file)) for s in policy.forward]


def forwarded_line(store_id: str, record: AuditRecord) -> str:
    """One record as forwarded: the log's id and the whole record, as one JSON object."""
    return json.dumps({"log": store_id, **record.to_dict()}, ensure_ascii=False, sort_keys=True)


def forward(sinks: Iterable[Sink], store_id: str, record: AuditRecord) -> None:
    """Send one record to every sink; a sink that fails is a warning, never a lost record."""
    line = forwarded_line(store_id, record)
    for sink in sinks:
        try:
            sink.send(line)
        except OSError as exc:
            warnings.warn(MedhelmWarning(
                f"audit record {record.seq} could not be forwarded to {sink.describe()} ({exc.strerror or exc}); "
                "it is in the audit log, and the sink is now missing it"), stacklevel=2)


def read_forwarded(path: Path) -> list[dict[str, Any]]:
    """The records in a copy of what was forwarded (JSON lines, or syslog lines ending in the JSON)."""
    from medhelm_local.safe_parse import Limits, read_bounded

    data = read_bounded(path, "file of forwarded records", limits=Limits(max_bytes=256 << 20),
                        if_missing="give a file holding the records the audit sink received")
    found = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        start = line.find("{")
        if start < 0:
            continue
        try:
            item = json.loads(line[start:])
        except (ValueError, RecursionError):  # not a record (a syslog line, a damaged one): the check counts it missing
            continue
        if isinstance(item, dict) and {"log", "seq", "hash"} <= item.keys():
            found.append(item)
    if not found:
        raise ConfigError("the file holds no forwarded audit records", where=str(path),
                          fix="give the file (or syslog extract) the audit sink wrote")
    return found


def check_forwarded(records: Sequence[AuditRecord], store_id: str, forwarded: Iterable[Mapping[str, Any]]
                    ) -> list[ChainProblem]:
    """Every forwarded record of this log that the log no longer holds, or holds changed."""
    by_seq = {r.seq: r for r in records}
    problems = []
    for item in forwarded:
        if item.get("log") != store_id or not isinstance(item.get("seq"), int):
            continue
        held = by_seq.get(item["seq"])
        if held is None:
            problems.append(ChainProblem(item["seq"], f"was forwarded ({item.get('kind')}, {item.get('at')}) and the "
                                                      "log no longer holds it (records were removed)"))
        elif held.hash != item.get("hash"):
            problems.append(ChainProblem(item["seq"], "differs from the copy that was forwarded "
                                                      "(the log was rewritten)"))
    return problems
