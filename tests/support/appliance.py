"""An appliance for export, audit and redacted-copy tests: a config, a KEK, a signing key, a data root with
the demo subsets, the 'ward' store (its runs' start in the audit log, as `run` records it), and the shipped
policy and rule pack approved for exports by a compliance officer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from medhelm_local.audit.log import AuditLog
from medhelm_local.store.keys import Kek
from support.phi_store import write_ward_store


@dataclass
class Appliance:
    """Paths of one test appliance and a way to run its CLI."""

    root: Path
    config: Path
    results: Path
    audit: Path
    signing_key: Path
    env: dict[str, str]

    @property
    def public_key(self) -> Path:
        return self.signing_key.with_suffix(".pub")

    @property
    def store(self) -> Path:
        return self.results / "ward.duckdb"

    def approve(self) -> subprocess.CompletedProcess[str]:
        """The compliance officer approves the configured policy and rule pack for exports."""
        done = self.cli("policy", "approve", "--role", "compliance_officer")
        assert done.returncode == 0, done.stderr
        return done

    def write_policy(self, name: str, text: str, approve: bool = True) -> None:
        """Write one file of the appliance's own copy of the shipped policies (made on first use), as a
        hospital edits it, and (unless told not to) approve the result, as its compliance officer then does."""
        from conftest import SHIPPED_POLICIES

        policies = self.root / "policies"
        if not policies.exists():
            shutil.copytree(SHIPPED_POLICIES, policies)
            with self.config.open("a") as fh:
                fh.write(f'policy_dir = "{policies}"\n')
        (policies / name).write_text(text)
        if approve:
            self.approve()

    def edit_policy(self, name: str, old: str, new: str, approve: bool = True) -> None:
        """`write_policy` with `old` replaced by `new` in one file of the shipped policies."""
        from conftest import SHIPPED_POLICIES

        current = self.root / "policies" / name
        text = (current if current.exists() else SHIPPED_POLICIES / name).read_text()
        assert old in text, f"{old!r} is not in {name}"
        self.write_policy(name, text.replace(old, new), approve)

    def audit_records(self, *, outcomes_only: bool = False) -> list[dict[str, Any]]:
        """The audit log as `audit show --json` prints it; with `outcomes_only`, without the bookkeeping
        around each attempt (approvals, runs started, `export.started`, signed checkpoints)."""
        shown = self.cli("audit", "show", "--json")
        assert shown.returncode == 0, shown.stderr
        records: list[dict[str, Any]] = json.loads(shown.stdout)
        bookkeeping = ("policy.approved", "export.started", "audit.checkpoint", "run.started")
        return [r for r in records if not outcomes_only or r["kind"] not in bookkeeping]

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        from conftest import run_cli

        return run_cli("-c", str(self.config), *args, env=self.env)


@pytest.fixture
def appliance(tmp_path: Path, kek_file: Path, kek: Kek, data_root: Path) -> Appliance:
    return make_appliance(tmp_path, kek_file, kek, data_root)


def make_appliance(tmp_path: Path, kek_file: Path, kek: Kek, data_root: Path, *, commands: bool = False) -> Appliance:
    """The `appliance` fixture's appliance in `tmp_path`, its audit log in the user's data folder (XDG_DATA_HOME);
    with `commands`, its signing key and approval made by running `keys signing-init` and `policy approve`."""
    results = tmp_path / "results"
    results.mkdir()
    started = write_ward_store(results / "ward.duckdb", kek, data_root)
    from conftest import dev_audit_log

    config = tmp_path / "config.toml"
    audit, signing = dev_audit_log(), tmp_path / "keys" / "export-signing.key"
    config.write_text(f'output_dir = "{results}"\ndata_root = "{data_root}"\nsigning_key_file = "{signing}"\n')
    app = Appliance(tmp_path, config, results, audit, signing, {"MEDHELM_KEK_FILE": str(kek_file)})
    if commands:
        made = app.cli("keys", "signing-init", "--out", str(signing))
        assert made.returncode == 0, made.stderr
        app.approve()
    else:
        _signing_init_and_approve(config, kek_file)
    AuditLog(audit, kek).append("run.started", started)  # as `run` records the runs' start
    return app


def _signing_init_and_approve(config: Path, kek_file: Path) -> None:
    """What `keys signing-init --out FILE` then `policy approve --role compliance_officer` do, through the library
    calls those commands make, with the same settings (this config, MEDHELM_KEK_FILE) and the same installation.

    In-process because every test of the appliance paid two command starts for it (about 2 s, 92 tests);
    the commands themselves are tested as commands where they are the subject (tests/security/test_policy_pin.py,
    test_audit_location.py, test_public_by_data.py, tests/cli/test_hostile_corpus.py, tests/e2e/test_vllm_export.py),
    and `Appliance.approve` (re-approving an edited policy) still runs the command; tests/security/test_file_modes.py
    makes its appliance with `commands=True`, since the modes of what the commands start is what it checks."""
    from medhelm_local.export.approval import approve as approve_pair
    from medhelm_local.export.inputs import gate_inputs
    from medhelm_local.export.service import signing_key_for
    from medhelm_local.export.signing import write_signing_key
    from medhelm_local.settings import load_settings
    from medhelm_local.store.keys import load_kek

    settings = load_settings(config, kek_file=kek_file)
    assert settings.signing_key_file is not None
    old_umask = os.umask(0o077)  # as the command sets it (cli/main.py): the audit log it starts is owner-only
    try:
        write_signing_key(settings.signing_key_file, load_kek(settings))
        gate = gate_inputs(settings)
        approve_pair(gate.audit, gate.policy, settings.redaction_dir, signing_key_for(settings, gate.kek),
                     "compliance_officer")
    finally:
        os.umask(old_umask)


@pytest.fixture
def bundle_files() -> Callable[[Path], dict[str, bytes]]:
    """Every file of a bundle, by name."""
    return lambda folder: {p.name: p.read_bytes() for p in sorted(folder.iterdir())}
