"""Run the real console entry point with one hidden extra command that tries two ways out.

Used by test_egress_guard.py to show that the guard the entry point installs refuses, that the
command carries on, and that the refusals reach the audit log when the command ends.
Usage: python entry_probe.py REFUSED_PORT HOST_NAME CLI_ARGS... (with probe-egress as the command)
"""

from __future__ import annotations

import socket
import sys

import typer

from medhelm_local.cli import entry
from medhelm_local.cli import main as cli


def main() -> None:
    """Add `probe-egress` to the app, then hand over to the entry point."""
    port, host = int(sys.argv[1]), sys.argv[2]
    sys.argv = ["medhelm-local", *sys.argv[3:]]

    @cli.app.command("probe-egress", hidden=True)
    def probe(ctx: typer.Context) -> None:
        cli.settings_from(ctx)
        for name, action in (("connect", lambda: socket.create_connection(("127.0.0.1", port), timeout=2)),
                             ("dns", lambda: socket.getaddrinfo(host, 443))):
            try:
                action()
                print(f"{name}:open")
            except PermissionError:
                print(f"{name}:refused")

    entry.main()


if __name__ == "__main__":
    main()
