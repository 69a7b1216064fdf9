"""Policy folders for tests: the shipped files, with the egress allowlist replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

SHIPPED = Path(__file__).resolve().parents[2] / "policies"


def write_policy_dir(dest: Path, allow: list[tuple[str, int]]) -> Path:
    """A copy of the shipped policies whose egress.yaml allows exactly `allow`."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("export.yaml", "retention.yaml", "roles.yaml"):
        shutil.copy(SHIPPED / name, dest / name)
    lines = ["default: deny", "allow:" if allow else "allow: []"]
    for host, port in allow:
        lines += [f"  - host: {host}", f"    port: {port}", "    purpose: inference", "    why: test model server"]
    (dest / "egress.yaml").write_text("\n".join(lines) + "\n")
    return dest
