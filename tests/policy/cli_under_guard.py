"""Run the medhelm-local CLI with the egress guard installed before anything else, as cli/main.py will.

Usage: python cli_under_guard.py REFUSALS_FILE HOST:PORT[,HOST:PORT...] CLI_ARGS...
Each refusal is appended to REFUSALS_FILE as one JSON line.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from medhelm_local.client.allowlist import Allowlist
from medhelm_local.policy.guard import install_guard


def main() -> None:
    refusals_file, allow = sys.argv[1], sys.argv[2]
    pairs = [(item.rpartition(":")[0], int(item.rpartition(":")[2])) for item in allow.split(",") if item]

    def record(event: dict[str, Any]) -> None:
        with open(refusals_file, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(event) + "\n")

    install_guard(Allowlist(pairs), on_refusal=record)
    sys.argv = ["medhelm-local", *sys.argv[3:]]
    from medhelm_local.cli.main import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
