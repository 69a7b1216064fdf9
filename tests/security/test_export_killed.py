"""Item 4: an export killed at any moment leaves no bundle that verifies without its audit record."""

from __future__ import annotations

import os
from pathlib import Path

from kill_probe import Probe
from support.appliance import Appliance
from support.review import approved_review

from medhelm_local.audit import AuditLog
from medhelm_local.export import load_public_key, verify_bundle
from medhelm_local.export.bundle import audit_anchor
from medhelm_local.store.keys import Kek


def _killed_at(probe: Probe, appliance: Appliance, step: int, destination: Path, review_id: str) -> int:
    code, stderr = probe.run(step, destination.parent, "-c", str(appliance.config), "export", "ward", "--to",
                             str(destination), "--role", "compliance_officer", "--review", review_id)
    assert code in (0, 137), stderr
    return code


def _recorded(appliance: Appliance, kek: Kek) -> set[str]:
    _, records = AuditLog(appliance.audit, kek).records()
    return {str(r.details.get("manifest_sha256")) for r in records if r.kind == "export.allowed"}


def test_whatever_the_moment_of_a_kill_a_verifying_bundle_is_recorded(appliance: Appliance, kek: Kek) -> None:
    public = load_public_key(appliance.public_key)
    destination = appliance.root / "exports" / "ward-2026-11"
    destination.parent.mkdir()
    # The private answers leave with a person's approval (the shipped policy): asked for and approved once, before.
    review_id = approved_review(appliance, kek)
    step, partials_seen = 0, 0
    with Probe({**os.environ, **appliance.env}) as probe:  # one start of the program for every step
        while True:
            step += 1
            finished = _killed_at(probe, appliance, step, destination, review_id) == 0
            recorded = _recorded(appliance, kek)
            for folder in (p for p in destination.parent.iterdir() if (p / "MANIFEST.json").exists()):
                partials_seen += folder.name.endswith(".partial")
                verified = verify_bundle(folder, public)
                if folder.name.endswith(".partial"):
                    assert not verified.ok, f"step {step}: verify accepted the unfinished {folder.name}"
                if verified.ok:
                    assert audit_anchor(folder)[1] in recorded, f"step {step}: {folder.name} verifies, unrecorded"
            if finished or destination.exists():
                break
            assert step < 60, "the export never finished"
    assert step > 8 and partials_seen  # it really was killed while writing the bundle, many times over
    # The export that finished removed what the killed ones left behind.
    if finished:
        assert [p.name for p in destination.parent.iterdir()] == [destination.name]
        assert verify_bundle(destination, public).ok

