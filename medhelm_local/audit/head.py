"""The appliance's own note of where its audit log had got to: the last signed checkpoint, kept outside the log.

A fresh log, an older copy of this one, or another appliance's log put in its place each verify on their
own: their chains and checkpoints are whole. What gives them away is that they do not continue this
log. Every checkpoint therefore also writes the log's id and the checkpoint record's (seq, hash) to
`<log>.head` beside it, a file of its own (copying a log over this one does not replace it), and
approvals, exports and `audit verify` refuse a log that does not hold that record unchanged. A log
that holds signed checkpoints while no note exists is refused too (`audit checkpoint --adopt`, by the
compliance officer, starts the note for a log kept by a version without it).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.audit.chain import AuditRecord
from medhelm_local.audit.checkpoints import CHECKPOINT_KIND
from medhelm_local.errors import ConfigError, IntegrityError, MedhelmWarning
from medhelm_local.safe_parse import parse_json
from medhelm_local.trusted_files import decode_text, read_regular

_FORMAT = "medhelm-local-audit-head/1"
RESTORE_LOG = ("restore the appliance's audit log (with its .key and .head files) from the newest backup and "
            "investigate who replaced it; records in the log found here cannot be trusted")


@dataclass(frozen=True)
class Head:
    """The log's id and the (seq, hash) of the newest checkpoint record this appliance wrote to it."""

    log_id: str
    seq: int
    hash: str


def head_path(log: Path) -> Path:
    """Where the note for the log at `log` is kept."""
    return log.with_name(log.name + ".head")


def read_head(log: Path) -> Head | None:
    """The note for the log at `log`, or None if there is none; IntegrityError if it is damaged."""
    path = head_path(log)
    if not path.exists() and not path.is_symlink():
        return None
    try:
        data = parse_json(decode_text(read_regular(path, "audit head note", limit=4096), path, "audit head note"),
                          str(path), "audit head note")
        if data.get("format") != _FORMAT:
            raise ValueError
        return Head(str(data["log_id"]), int(data["seq"]), str(data["hash"]))
    except ConfigError as exc:
        raise IntegrityError(exc.what, where=exc.where, fix=RESTORE_LOG) from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise IntegrityError("the appliance's note of the audit log's last checkpoint is damaged", where=str(path),
                             fix=RESTORE_LOG) from None


def write_head(log: Path, head: Head) -> None:
    """Replace the note for the log at `log` with `head`, whole or not at all; a warning if it cannot be written
    (the checkpoint itself is already committed, and an older note is still one the log continues)."""
    path = head_path(log)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    text = json.dumps({"format": _FORMAT, "log_id": head.log_id, "seq": head.seq, "hash": head.hash}) + "\n"
    try:
        with partial.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        partial.replace(path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        warnings.warn(MedhelmWarning(f"the checkpoint is in the audit log, but its note outside the log could not "
                                     f"be written ({exc.strerror}) at {path}: a log replaced since the previous "
                                     "note would not be found; make room or fix the folder's permissions, then "
                                     "run `medhelm-local audit checkpoint`"), stacklevel=2)


@dataclass(frozen=True)
class LogFacts:
    """What continuity needs to know of a log: its id, its last seq, whether it holds a checkpoint, and the
    (kind, hash) of the record at the note's seq (None if it has no such record)."""

    log_id: str
    end: int
    has_checkpoint: bool
    at_head: tuple[str, str] | None

    @classmethod
    def of(cls, log_id: str, records: Sequence[AuditRecord], head: Head | None) -> LogFacts:
        """The facts of a log read whole."""
        held = next((r for r in records if head is not None and r.seq == head.seq), None)
        return cls(log_id, records[-1].seq if records else 0, any(r.kind == CHECKPOINT_KIND for r in records),
                   (held.kind, held.hash) if held else None)


def discontinuity(head: Head | None, log: LogFacts, path: Path) -> str | None:
    """Why the log at `path` does not continue the note `head`, or None if it does."""
    if head is None:
        if log.has_checkpoint:
            return (f"the log holds signed checkpoints, yet this appliance has no note of its last one "
                    f"({head_path(path)} is missing): it may be a log copied from elsewhere")
        return None
    if head.log_id != log.log_id:
        return (f"it is not the log this appliance keeps (its id is {log.log_id}, the appliance's note names "
                f"{head.log_id}): it was replaced")
    if log.at_head is None:
        return (f"it ends at record {log.end}, before record {head.seq}, the last checkpoint this appliance wrote: "
                "it is an older copy, or records were cut off")
    if log.at_head != (CHECKPOINT_KIND, head.hash):
        return (f"its record {head.seq} is not the checkpoint this appliance wrote there: the log was rewritten "
                "or replaced by an older copy")
    return None


def refuse_discontinuity(head: Head | None, log: LogFacts, path: Path) -> None:
    """IntegrityError if the log does not continue the appliance's note."""
    problem = discontinuity(head, log, path)
    if problem:
        raise IntegrityError(f"the audit log does not continue the last checkpoint this appliance recorded: {problem}",
                             where=str(path), fix=RESTORE_LOG)
