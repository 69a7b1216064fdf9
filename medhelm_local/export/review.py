"""A person's review before free text of gated or private runs leaves (export.yaml `review: required`).

    request   `review request` runs the export gate as far as the built, redacted, rescanned text, with a
              secret made for this review, and keeps that text (each redacted value, where each
              replacement sits and its type) sealed under the KEK beside the audit log
              (`reviews/ID.sealed`, 0600). The log gets `review.requested` with the text's sha256.
    review    a compliance officer opens it in the viewer (`/review/ID`): every redaction highlighted;
              a span flagged as a missed identifier (`review.flagged`) blocks approval; send back
              (`review.sent_back`) or approve (`review.approved`, carrying the export signing key's
              signature over what it approves and who approved: an approval without it does not count)
    fix       `review resubmit ID` rebuilds the text under the approved rules (a rule added to the
              pack), with `--mask-flagged` also masking each flagged string; a flagged string still in
              the text refuses. A new round, with its own digest, waits for review again
    export    `export ... --review ID` rebuilds with the review's secret and masks: it leaves only when
              the newest record of the review approves this round with the key's signature, the
              text built now has the approved digest, the request is the one reviewed, and (when the
              policy says so) the approver is neither who asked nor who exports

The log is the authority on a review's state; the sealed file only holds the text, which is PHI's
neighbour and never goes into the log. Who acts is `policy.identity.current_actor()` of the process
(the viewer's, for approvals), never a setting.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from medhelm_local.audit.chain import AuditRecord
from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ConfigError, IntegrityError
from medhelm_local.export.scrubber import Marked
from medhelm_local.redact import PhiType
from medhelm_local.store.keys import Kek, write_secret_file
from medhelm_local.store.schema import artifact_tables

FORMAT = "medhelm-local-review/1"
FREE_TEXT = ("completions", "prompts", "ratings")
KINDS = ("review.requested", "review.resubmitted", "review.flagged", "review.sent_back", "review.approved",
         "review.approve_refused")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True)
class Flag:
    """A span of one item's text that the reviewer says is an identifier the redactor missed."""

    item: int
    start: int
    end: int
    type: str
    text: str  # sealed with the review, never in the log


@dataclass(frozen=True)
class Review:
    """One review as sealed: the request it is for, the text as it would leave, the reviewer's flags."""

    id: str
    round: int
    store: str
    run_id: str | None
    role: str
    include: tuple[str, ...] | None
    requested_by: str
    secret: str  # hex: pseudonyms and surrogates of the export are made from it
    masks: tuple[tuple[str, str], ...]  # (string, identifier type) masked by hand
    items: tuple[Marked, ...]
    flags: tuple[Flag, ...] = ()

    @property
    def digest(self) -> str:
        """sha256 of the text as it would leave: every value, where it stands, in build order."""
        return text_digest(self.items)

    def manual(self) -> tuple[tuple[str, PhiType], ...]:
        """The manual masks as the scrubber takes them."""
        return tuple((text, PhiType(kind)) for text, kind in self.masks)

    def same_request(self, store: Path, run_id: str | None, role: str, include: Sequence[str] | None) -> bool:
        """True when an export asks for exactly what was reviewed."""
        return (self.store, self.run_id, self.role, self.include) == (
            str(store.resolve()), run_id, role, tuple(include) if include is not None else None)


def text_digest(items: Sequence[Marked]) -> str:
    """sha256 over every redacted value and where it stands, in the order the export builds them."""
    body = json.dumps([[*m.where, m.text] for m in items], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


def needs_review(plan: Any, access: dict[str, str], stored: Callable[[str, str], bool] = lambda run, artifact: True
                 ) -> bool:
    """True when the plan sends free text of a gated or private run out (answers, prompts, ratings, or a report
    page that shows them) that the store holds (`stored(run_id, artifact)`: ratings of a run no jury rated are none)."""
    for run_id, chosen in plan.decisions.items():
        if access.get(run_id) == "public":
            continue
        if any(_text_leaves(chosen, a) and stored(run_id, a) for a in FREE_TEXT):
            return True
        parts = plan.report_contents.get(run_id, {})
        if chosen["report"].allowed and any(parts.get(p, "never") != "never" and stored(run_id, p) for p in FREE_TEXT):
            return True
    return False


def _text_leaves(chosen: Any, artifact: str) -> bool:
    """True when a text column of the artifact leaves: it may, and so may the artifact whose text it holds (a judge's
    explanation can quote the answer: without the answers, ratings leave as numbers only, which need no review)."""
    return chosen[artifact].allowed and any(
        c.treatment in ("text", "json_text") and (c.carries is None or chosen[c.carries].allowed)
        for t in artifact_tables(artifact) for c in t.columns)


def new_review_id() -> str:
    """A review's id: short, random, safe in URLs and file names."""
    return "rv-" + secrets.token_hex(6)


def valid_review_id(text: str) -> bool:
    """True for a string shaped like a review id."""
    return text.startswith("rv-") and 3 < len(text) <= 40 and set(text) <= _ID_CHARS


# --- the sealed file ------------------------------------------------------------------------------------------

def _to_json(review: Review) -> dict[str, Any]:
    return {"id": review.id, "round": review.round, "store": review.store, "run_id": review.run_id,
            "role": review.role, "include": list(review.include) if review.include is not None else None,
            "requested_by": review.requested_by, "secret": review.secret, "masks": [list(m) for m in review.masks],
            "items": [{"where": list(m.where), "text": m.text, "marks": [list(x) for x in m.marks]}
                      for m in review.items],
            "flags": [vars(f) for f in review.flags]}


def _from_json(d: dict[str, Any]) -> Review:
    items = tuple(Marked(tuple(i["where"]), i["text"], tuple(tuple(x) for x in i["marks"]))
                  for i in d["items"])
    return Review(d["id"], d["round"], d["store"], d["run_id"], d["role"],
                  tuple(d["include"]) if d["include"] is not None else None, d["requested_by"], d["secret"],
                  tuple((m[0], m[1]) for m in d["masks"]), items, tuple(Flag(**f) for f in d["flags"]))


class ReviewFolder:
    """The sealed reviews of this appliance, beside its audit log (`reviews_folder()`)."""

    def __init__(self, folder: Path, kek: Kek) -> None:
        self.folder = folder
        self._kek = kek

    def _path(self, review_id: str) -> Path:
        if not valid_review_id(review_id):
            raise ConfigError(f"'{review_id}' is not a review id", where="argument REVIEW",
                              fix="give an id from `medhelm-local review list` (rv-...)")
        return self.folder / f"{review_id}.sealed"

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time (the CLI and a running viewer take turns)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock = open(self.folder / ".lock", "a")
        except OSError as exc:
            raise ConfigError(f"cannot open the reviews folder ({exc.strerror})", where=str(self.folder),
                              fix="run as the appliance's user, who owns the folder of its audit log") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def save(self, review: Review) -> None:
        """Seal and write one review whole (replacing its earlier state)."""
        nonce = secrets.token_bytes(12)
        data = json.dumps(_to_json(review), ensure_ascii=False).encode()
        sealed = AESGCM(self._kek.key).encrypt(nonce, data, f"{FORMAT}\0{review.id}".encode())
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_secret_file(self._path(review.id), json.dumps({"format": FORMAT, "id": review.id,
                                                              "nonce": base64.b64encode(nonce).decode(),
                                                              "sealed": base64.b64encode(sealed).decode()}),
                          replace=True)

    def load(self, review_id: str) -> Review:
        """One review, unsealed; ConfigError if there is none, IntegrityError if it does not open."""
        path = self._path(review_id)
        if not path.is_file():
            raise ConfigError(f"there is no review {review_id}", where=str(self.folder),
                              fix="list them with `medhelm-local review list`")
        try:
            outer = json.loads(path.read_text(encoding="utf-8"))
            data = AESGCM(self._kek.key).decrypt(base64.b64decode(outer["nonce"]), base64.b64decode(outer["sealed"]),
                                                 f"{FORMAT}\0{review_id}".encode())
            return _from_json(json.loads(data))
        except (InvalidTag, OSError, ValueError, KeyError, TypeError) as exc:
            raise IntegrityError(f"the review's sealed file does not open under this KEK ({type(exc).__name__})",
                                 where=str(path), fix="restore it from backup, or request a new review") from None

    def ids(self) -> list[str]:
        """Every review id held here."""
        return sorted(p.stem for p in self.folder.glob("rv-*.sealed")) if self.folder.is_dir() else []


def reviews_folder(kek: Kek) -> ReviewFolder:
    """Where the appliance keeps its reviews: beside its audit log (where the installation put it)."""
    from medhelm_local.installation import installation

    return ReviewFolder(installation().audit_log.parent / "reviews", kek)


# --- state, from the log --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class State:
    """Where a review stands, as the audit log says: the newest record of it."""

    status: str  # pending | flagged | sent back | approved
    round: int
    last: AuditRecord
    requested: AuditRecord  # the record that opened this round


_STATUS = {"review.requested": "pending", "review.resubmitted": "pending", "review.flagged": "flagged",
           "review.sent_back": "sent back", "review.approved": "approved", "review.approve_refused": None}


def state_of(records: Sequence[AuditRecord], review_id: str) -> State | None:
    """The review's state from the log's records, or None when the log has no record of it."""
    status, round_, last, opened = None, 0, None, None
    for record in records:
        if record.kind not in _STATUS or record.details.get("review") != review_id:
            continue
        if record.kind in ("review.requested", "review.resubmitted"):
            opened, round_ = record, int(record.details.get("round", 1))
        kind_status = _STATUS[record.kind]
        if kind_status is not None and opened is not None:
            status, last = kind_status, record
    if status is None or last is None or opened is None:
        return None
    return State(status, round_, last, opened)


def record_request(audit: AuditLog, folder: ReviewFolder, review: Review, kind: str, actor: str | None = None,
                   **extra: Any) -> AuditRecord:
    """Seal a new round of a review and put it on record (the text's digest, never the text)."""
    with folder.locked():
        folder.save(review)
        return audit.append(kind, {"review": review.id, "round": review.round, "digest": review.digest,
                                   "store": review.store, "run_id": review.run_id, "role": review.role,
                                   "include": list(review.include) if review.include else "all permitted",
                                   "requested_by": review.requested_by, "values": len(review.items),
                                   "redactions": sum(len(m.marks) for m in review.items), **extra},
                            actor=actor or review.requested_by)
