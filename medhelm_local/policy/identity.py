"""Who runs this command, from sources the caller cannot choose: never environment variables or flags.

    current_actor() -> str     the name audit records, manifests and `roles.yaml` members use

On a host, the operating system's account of the process's real user id (`pwd`), not `LOGNAME` or
`USER`, which `getpass.getuser()` reads first and anyone can set. In a Kubernetes pod, the pod's
service account (`system:serviceaccount:NAMESPACE:NAME`), read from the token the kubelet mounts
at a fixed path; it is believed only when the file is owned by root and nobody else may write it,
so a user cannot plant one. Root on the host can forge either; that is out of scope.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import pwd
import stat
from pathlib import Path

# The kubelet mounts the pod's service account token here (a projected, read-only volume).
SERVICE_ACCOUNT_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")
_SUBJECT_PREFIX = "system:serviceaccount:"


def os_user() -> str:
    """The account name of the process's real user id, or `uid N` when it has no passwd entry."""
    uid = os.getuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a container user with no passwd entry
        return f"uid {uid}"


def _root_controlled(path: Path) -> bool:
    """True when only root can have written `path`: owned by root, writable by no group or other."""
    try:
        st = path.stat()
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == 0 and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def platform_identity(token_path: Path = SERVICE_ACCOUNT_TOKEN) -> str | None:
    """The pod's service account subject from its mounted token, or None outside a pod (or for a
    token file a user could have written)."""
    if not _root_controlled(token_path):
        return None
    try:
        token = token_path.read_text(encoding="ascii").strip()
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (OSError, UnicodeDecodeError, IndexError, binascii.Error, ValueError):
        return None
    subject = claims.get("sub") if isinstance(claims, dict) else None
    if not isinstance(subject, str) or not subject.startswith(_SUBJECT_PREFIX) or len(subject) > 300:
        return None
    return subject


def current_actor() -> str:
    """Who runs this process: the pod's service account in Kubernetes, else the operating-system user."""
    return platform_identity() or os_user()
