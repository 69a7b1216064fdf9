"""The raters of this appliance: who may rate answers in the viewer, their one-time sign-in links, their sessions.

    raters.json   beside the appliance's audit log (where the installation put it), mode 0600, written
                  whole or not at all (`store.keys.write_secret_file`) under a lock file, so the CLI and
                  a running viewer take turns
    links         `secrets.token_urlsafe(32)`, shown once by `raters add`; only its sha256 is kept. A
                  link signs in once: used, superseded or revoked, it is refused
    sessions      a sign-in trades the link for a new random session token (the cookie); only its sha256
                  is kept. The CSRF token of a session is an HMAC of its session token: nothing more to
                  keep, and a form of one session is no good in another
    revoking      ends the rater's link and every session at once (each request looks the rater up)

A 256-bit random token needs no slow hash: nobody can guess its preimage, so sha256 is enough.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from medhelm_local.errors import ConfigError
from medhelm_local.store.keys import write_secret_file

FILE_NAME = "raters.json"
SESSION_DAYS = 14
_RATER_NAME = "lower case letters, digits, '.', '_' or '-', starting with a letter, at most 64 characters"


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def valid_rater_name(name: str) -> bool:
    """True for a name a rater may have (it appears in URLs, audit records and the store)."""
    return (0 < len(name) <= 64 and name[0].isascii() and name[0].islower()
            and all(c.isascii() and (c.islower() or c.isdigit() or c in "._-") for c in name))


@dataclass(frozen=True)
class Rater:
    """One rater as listed."""

    name: str
    role: str
    added_at: str
    added_by: str
    revoked_at: str | None
    signed_in_at: str | None

    @property
    def active(self) -> bool:
        """Not revoked."""
        return self.revoked_at is None


@dataclass(frozen=True)
class Session:
    """A signed-in rater: who, and the CSRF token their forms carry."""

    rater: str
    role: str
    csrf: str


class RaterRegistry:
    """The raters file at `path` (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def _locked(self, write: bool) -> Iterator[dict[str, Any]]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            lock = open(self.path.with_name(self.path.name + ".lock"), "a")
        except OSError as exc:
            raise ConfigError(f"cannot open the raters file ({exc.strerror})", where=str(self.path),
                              fix="run as the appliance's user, who owns the folder of its audit log") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX if write else fcntl.LOCK_SH)
            data = self._read()
            yield data
            if write:
                write_secret_file(self.path, json.dumps(data, indent=1, sort_keys=True), replace=True)

    def _read(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"version": 1, "raters": {}, "sessions": {}}
        try:
            data: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != 1 or not isinstance(data.get("raters"), dict):
                raise ValueError("unknown layout")
        except (OSError, ValueError, AttributeError) as exc:
            raise ConfigError(f"the raters file cannot be read ({exc})", where=str(self.path),
                              fix="restore it from a backup, or move it away and add the raters again") from None
        data.setdefault("sessions", {})
        return data

    def add(self, name: str, role: str, actor: str) -> str:
        """Add (or re-add a revoked) rater; the one-time sign-in token, which is not kept."""
        if not valid_rater_name(name):
            raise ConfigError(f"'{name}' is not a rater name", where="argument NAME", fix=f"use {_RATER_NAME}")
        token = secrets.token_urlsafe(32)
        with self._locked(write=True) as data:
            before = data["raters"].get(name)
            if before is not None and before["revoked_at"] is None:
                raise ConfigError(f"rater '{name}' exists already", where="argument NAME",
                                  fix=f"for a new sign-in link, revoke the old one first (`medhelm-local raters "
                                      f"revoke {name}`), then add the rater again")
            data["raters"][name] = {"role": role, "added_at": _now(), "added_by": actor, "revoked_at": None,
                                    "signed_in_at": None, "link_sha256": _digest(token)}
        return token

    def revoke(self, name: str) -> Rater:
        """Revoke a rater: their link and every session of theirs stop working."""
        with self._locked(write=True) as data:
            found = data["raters"].get(name)
            if found is None or found["revoked_at"] is not None:
                known = ", ".join(n for n, r in sorted(data["raters"].items()) if r["revoked_at"] is None) or "none"
                raise ConfigError(f"no active rater '{name}'", where="argument NAME", fix=f"active raters: {known}")
            found["revoked_at"] = _now()
            found["link_sha256"] = None
            data["sessions"] = {k: s for k, s in data["sessions"].items() if s["rater"] != name}
            return _rater(name, found)

    def raters(self) -> list[Rater]:
        """Every rater, revoked ones too, by name."""
        with self._locked(write=False) as data:
            return [_rater(n, r) for n, r in sorted(data["raters"].items())]

    def sign_in(self, link_token: str) -> tuple[str, str] | None:
        """Trade a sign-in token for a new session token: (rater, session token), or None if refused."""
        offered = _digest(link_token)
        with self._locked(write=True) as data:
            name = next((n for n, r in data["raters"].items() if r["revoked_at"] is None and r["link_sha256"]
                         and hmac.compare_digest(r["link_sha256"], offered)), None)
            if name is None:
                return None
            rater = data["raters"][name]
            rater["link_sha256"] = None  # one time only
            rater["signed_in_at"] = _now()
            session = secrets.token_urlsafe(32)
            expires = (datetime.now(UTC) + timedelta(days=SESSION_DAYS)).isoformat(timespec="seconds")
            data["sessions"] = {k: s for k, s in data["sessions"].items() if s["expires"] > _now()}
            data["sessions"][_digest(session)] = {"rater": name, "expires": expires}
            return name, session

    def session(self, session_token: str) -> Session | None:
        """The signed-in rater of a session token, or None (unknown, expired, or the rater revoked)."""
        with self._locked(write=False) as data:
            found = data["sessions"].get(_digest(session_token))
            if found is None or found["expires"] <= _now():
                return None
            rater = data["raters"].get(found["rater"])
            if rater is None or rater["revoked_at"] is not None:
                return None
            return Session(found["rater"], rater["role"], csrf_token(session_token))


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session (an HMAC of the session token: forms of one session fail in another)."""
    return hmac.new(session_token.encode(), b"medhelm-local rating form", hashlib.sha256).hexdigest()


def _rater(name: str, row: dict[str, Any]) -> Rater:
    return Rater(name, row["role"], row["added_at"], row["added_by"], row["revoked_at"], row["signed_in_at"])


def registry_path() -> Path:
    """Where the appliance keeps its raters: beside its audit log (where the installation put it)."""
    from medhelm_local.installation import installation

    return installation().audit_log.parent / FILE_NAME


def rater_registry() -> RaterRegistry:
    """The appliance's raters."""
    return RaterRegistry(registry_path())
