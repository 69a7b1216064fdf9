"""Item 3: the audit log cannot be rewritten undetected by someone holding only the KEK, nor cut short."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from support.appliance import Appliance

from medhelm_local.audit import AuditLog
from medhelm_local.audit.chain import canonical_details, genesis_hash, record_hash
from medhelm_local.audit.checkpoints import checkpoint_details
from medhelm_local.audit.head import Head, write_head
from medhelm_local.export.signing import SigningKey
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


def rewrite_chain(path: Path, kek: Kek, sql: str, forger: SigningKey | None = None) -> None:
    """What someone holding the KEK can do: edit the log with DuckDB, then renumber and rehash every record so
    the hash chain is whole again (and, with `forger`, re-sign every checkpoint with a key of their own)."""
    handle = open_store(path, kek, kind="audit")
    try:
        con = handle.con
        con.execute(sql)
        rows = con.execute("SELECT recorded_at, kind, actor, details_json FROM audit ORDER BY seq").fetchall()
        con.execute("DELETE FROM audit")
        prev = genesis_hash(handle.store_id)
        for seq, (at, kind, actor, body) in enumerate(rows, start=1):
            if forger is not None and kind == "audit.checkpoint":
                body = canonical_details(checkpoint_details(forger, handle.store_id, seq - 1, prev))
            digest = record_hash(seq, at, kind, actor, body, prev)
            con.execute("INSERT INTO audit VALUES (?, ?, ?, ?, ?, ?, ?)", [seq, at, kind, actor, body, prev, digest])
            prev = digest
    finally:
        handle.close()


def _exports(appliance: Appliance, n: int) -> None:
    for i in range(n):
        done = appliance.cli("export", "ward", "--to", str(appliance.root / f"b{i}"), "--role", "data_scientist")
        assert done.returncode == 0, done.stderr


def test_a_record_removed_and_the_chain_recomputed_with_the_kek_is_caught(appliance: Appliance, kek: Kek) -> None:
    _exports(appliance, 2)
    assert appliance.cli("audit", "verify").returncode == 0
    first_export = next(r["seq"] for r in appliance.audit_records() if r["kind"] == "export.allowed")
    rewrite_chain(appliance.audit, kek, f"DELETE FROM audit WHERE seq = {first_export}")
    broken = appliance.cli("audit", "verify")
    assert broken.returncode == 4, broken.stdout
    assert "signed checkpoint over record" in broken.stderr and "rewritten, removed or inserted" in broken.stderr
    # The gate will not trust an approval in a log that does not verify: nothing leaves until it is restored.
    refused = appliance.cli("export", "ward", "--to", str(appliance.root / "after"), "--role", "data_scientist")
    assert refused.returncode == 4 and "audit log does not verify" in refused.stderr


def test_checkpoints_re_signed_with_another_key_are_caught(appliance: Appliance, kek: Kek) -> None:
    _exports(appliance, 1)
    forger = SigningKey(Ed25519PrivateKey.generate(), "forger")
    rewrite_chain(appliance.audit, kek, "UPDATE audit SET actor = 'someone else' WHERE kind = 'export.allowed'",
                  forger)
    broken = appliance.cli("audit", "verify")
    assert broken.returncode == 4 and f"signed by key {forger.key_id}" in broken.stderr


def test_an_edited_record_with_its_hash_recomputed_is_caught(appliance: Appliance, kek: Kek) -> None:
    _exports(appliance, 1)
    rewrite_chain(appliance.audit, kek, "UPDATE audit SET details_json = replace(details_json, 'data_scientist', "
                                        "'compliance_officer') WHERE kind = 'export.allowed'")
    assert appliance.cli("audit", "verify").returncode == 4


@pytest.fixture
def forwarding(appliance: Appliance) -> Path:
    """The appliance's policy forwards every record to an append-only file (approved like any policy change)."""
    sink = appliance.root / "sink" / "audit.jsonl"
    sink.parent.mkdir()
    appliance.write_policy("audit.yaml", f"forward:\n  - file: {sink}\n")
    return sink


def test_records_cut_from_the_end_are_found_in_the_forwarded_copy(appliance: Appliance, kek: Kek,
                                                                   forwarding: Path) -> None:
    _exports(appliance, 2)
    records = appliance.audit_records()
    forwarded = [json.loads(line) for line in forwarding.read_text().splitlines()]
    # Everything after the records made before forwarding was set up (the first approval, its checkpoint, and
    # the start of the ward store's runs) was forwarded.
    assert [r["seq"] for r in forwarded] == [r["seq"] for r in records if r["seq"] > records[0]["seq"] + 2]
    last_started = max(r["seq"] for r in records if r["kind"] == "export.started")
    rewrite_chain(appliance.audit, kek, f"DELETE FROM audit WHERE seq >= {last_started}")  # the last export, gone
    alone = appliance.cli("audit", "verify")
    assert alone.returncode == 4 and "does not continue the last checkpoint" in alone.stderr
    assert "cut off" in alone.stderr  # the appliance's note beside the log names a checkpoint the log lost
    # Someone who can also put back an older note (an old backup of both files) leaves a whole, signed chain:
    # only the copies kept outside show the loss.
    log_id, left = AuditLog(appliance.audit, kek).records()
    newest = max((r for r in left if r.kind == "audit.checkpoint"), key=lambda r: r.seq)
    write_head(appliance.audit, Head(log_id, newest.seq, newest.hash))
    alone = appliance.cli("audit", "verify")
    assert alone.returncode == 0, alone.stderr
    compared = appliance.cli("audit", "verify", "--forwarded", str(forwarding))
    assert compared.returncode == 4 and f"record {last_started}: was forwarded" in compared.stderr
    with_bundle = appliance.cli("audit", "verify", "--bundle", str(appliance.root / "b1"))
    assert with_bundle.returncode == 4 and "its export is not in the audit log" in with_bundle.stderr


@pytest.fixture
def syslog_socket(tmp_path: Path) -> Iterator[tuple[Path, socket.socket]]:
    """A real Unix datagram socket standing in for /dev/log (what syslog daemons and journald listen on)."""
    path = Path("/tmp") / f"medhelm-syslog-{tmp_path.name[-20:]}.sock"  # short: socket paths are limited
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(path))
    server.settimeout(5)
    yield path, server
    server.close()
    path.unlink(missing_ok=True)


def test_records_are_forwarded_to_the_syslog_socket(appliance: Appliance,
                                                    syslog_socket: tuple[Path, socket.socket]) -> None:
    path, server = syslog_socket
    appliance.write_policy("audit.yaml", f"forward:\n  - syslog: {path}\n")
    messages = [server.recv(65536).decode() for _ in range(2)]  # the approval and its checkpoint
    assert all(m.startswith("<86>medhelm-local-audit[") for m in messages)
    payload = json.loads(messages[0][messages[0].index("{"):])
    assert payload["kind"] == "policy.approved" and payload["hash"] == appliance.audit_records()[-2]["hash"]


def test_an_unreachable_sink_is_a_warning_and_the_record_is_kept(appliance: Appliance) -> None:
    appliance.write_policy("audit.yaml", "forward:\n  - syslog: /nonexistent/medhelm.sock\n", approve=False)
    done = appliance.cli("audit", "checkpoint")
    assert done.returncode == 0 and "could not be forwarded to syslog socket /nonexistent/medhelm.sock" in done.stderr
    assert appliance.audit_records()[-1]["kind"] == "audit.checkpoint"
