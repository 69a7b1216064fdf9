"""A script run in a new interpreter: what it imports is what a fresh process of the program would import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_python(script: str) -> str:
    """Run `script` with this interpreter from the repository root; its standard output (it must exit 0)."""
    found = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=REPO)
    assert found.returncode == 0, found.stderr
    return found.stdout
