"""Key files (the KEK, the sealed export signing key, a KEK in the secrets directory): read once, and only
when nobody but their owner may read or write them.

A key file (the KEK; the sealed export signing key) is refused when anyone but its owner may read or
write it: mode 0600 or 0400. One case is allowed: a root-owned file that only its group may read, read
by a non-root process that is in that group. That is how Kubernetes mounts a Secret for a pod with an
fsGroup (root owns it, the pod's group reads it); the Helm chart mounts its Secrets with mode 0400,
which the kubelet turns into 0440 for the fsGroup.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from medhelm_local.errors import MedhelmError
from medhelm_local.safe_parse import Limits, read_bounded


def read_key_file(path: Path, error: type[MedhelmError], what: str, fix: str) -> bytes:
    """A key file's bytes, read once (a regular file of at most 64 KiB); `error` if it cannot be read or someone
    besides its owner may read it."""
    def owner_only(status: os.stat_result) -> None:
        # Checked on the file that was opened, so a swap between check and read changes nothing.
        shared = shared_with(status)
        if shared is not None:
            raise error(f"the {what} file may be read or changed by {shared}, so it is not used: whoever reads it "
                        "can open what it protects", where=str(path),
                        fix=f"run `chmod 600 {path}` so that only its owner can read it (in Kubernetes, mount the "
                            "Secret with defaultMode 0400, as the Helm chart does)")

    return read_bounded(path, f"{what} file", limits=Limits(max_bytes=64 << 10), error=error, if_missing=fix,
                        check=owner_only)


def shared_with(st: os.stat_result) -> str | None:
    """Who besides the owner may read or write a key file (with its mode), or None when nobody may."""
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077 == 0:
        return None
    # A Secret mounted for a pod's fsGroup: root owns it, this (non-root) process is not its owner, and reads it
    # as a member of its group, which may only read it.
    if mode & 0o037 == 0 and st.st_uid == 0 != os.geteuid() and st.st_gid in {os.getegid(), *os.getgroups()}:
        return None
    who = "others" if mode & 0o007 else "its group"
    return f"{who} (mode {mode:04o})"
