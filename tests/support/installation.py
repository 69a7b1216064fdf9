"""A second installation of the program, made as IT makes one: a Python environment of its own, holding
the `medhelm-local` command and `etc/medhelm-local/installation.toml` (where the audit log lives, which
policy IT installed). Nothing here changes the program: it runs from another prefix, as on an appliance."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

# Where the program looks for it inside its prefix (medhelm_local.installation.RELATIVE_PATH; a test checks both agree).
RELATIVE_PATH = Path("etc") / "medhelm-local" / "installation.toml"


@dataclass(frozen=True)
class Installed:
    """One installation: its prefix, its command, its installation file."""

    prefix: Path
    cli: Path

    @property
    def file(self) -> Path:
        return self.prefix / RELATIVE_PATH

    def write(self, audit_log: Path, policy_dir: Path | None = None) -> None:
        """IT writes the installation file."""
        self.file.parent.mkdir(parents=True, exist_ok=True)
        lines = [f'audit_log = "{audit_log}"'] + ([f'policy_dir = "{policy_dir}"'] if policy_dir else [])
        self.file.write_text("\n".join(lines) + "\n")

    def run(self, *args: str, env: dict[str, str] | None = None, timeout: float = 300
            ) -> subprocess.CompletedProcess[str]:
        """Run this installation's `medhelm-local` as a user would."""
        return subprocess.run([str(self.cli), *args], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {}), "COLUMNS": "200"})


def install(root: Path) -> Installed:
    """A new Python environment at `root` that runs this checkout's program (the test environment's packages,
    through a .pth file, as a venv built from the wheelhouse would hold them)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, capture_output=True)
    site = Path(sysconfig.get_paths(vars={"base": str(root), "platbase": str(root)})["purelib"])
    shared = sysconfig.get_paths()["purelib"]
    (site / "medhelm_test_packages.pth").write_text(f"import site; site.addsitedir({shared!r})\n")
    cli = root / "bin" / "medhelm-local"
    cli.write_text(f"#!{root / 'bin' / 'python'}\nimport sys\nfrom medhelm_local.cli.entry import main\n"
                   "sys.exit(main())\n")
    cli.chmod(0o755)
    return Installed(root, cli)
