"""`export`: from a suite store to a signed bundle, through the gate, with an audit record either way.

    1. resolve the target (suite or run) and read its runs         nothing written yet
    2. plan: role x access level x artifact, capped by code        refused -> audit, exit 5
    3. open the signing key                                        missing -> audit, exit 2
    4. build the artifacts, redacting per plan; rescan the output  residual PHI -> audit, exit 5
    5. write into a hidden folder, manifest, signature             failure -> nothing left behind
    6. audit record (allowed, manifest sha256), then rename into place
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from medhelm_local.audit.log import AuditLog, current_actor
from medhelm_local.errors import ConfigError, ExportRefusedError, MedhelmError
from medhelm_local.export import artifacts as art
from medhelm_local.export.bundle import seal_bundle, staging_folder, write_json, write_jsonl
from medhelm_local.export.decisions import ExportPlan, RunAccess, plan_export
from medhelm_local.export.scrubber import Scrubber
from medhelm_local.export.signing import SigningKey, load_signing_key
from medhelm_local.export.target import Target, open_target
from medhelm_local.policy.loader import Policy
from medhelm_local.policy.models import ARTIFACTS, Artifact
from medhelm_local.policy.rules import may_leave_unredacted
from medhelm_local.redact import detector_for, load_policy
from medhelm_local.report.exported import report_tree
from medhelm_local.settings import Settings
from medhelm_local.store.keys import Kek
from medhelm_local.store.schema import artifact_tables


@dataclass(frozen=True)
class ExportRequest:
    """What the person exporting asked for."""

    target: Target
    destination: Path
    role: str
    include: tuple[Artifact, ...] | None = None
    unredacted: bool = False


@dataclass
class ExportResult:
    """What left: the bundle, its manifest digest, what was redacted and withheld, and the audit record."""

    destination: Path
    manifest_sha256: str
    files: list[str]
    redactions: dict[str, int]
    withheld: list[dict[str, str]]
    signing_key_id: str
    audit_seq: int
    runs: list[str] = field(default_factory=list)


def rule_pack_digest(folder: Path) -> str:
    """sha256 over every file of a redaction rule pack (names and bytes): the redactor's version."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f"{path.relative_to(folder)}\0".encode() + hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def _audit_details(request: ExportRequest, **extra: Any) -> dict[str, Any]:
    return {"target": request.target.describe(), "destination": str(request.destination.resolve()),
            "role": request.role,
            "include": list(request.include) if request.include else "all permitted",
            "unredacted_requested": request.unredacted, **extra}


def export(settings: Settings, policy: Policy, kek: Kek, audit: AuditLog, request: ExportRequest) -> ExportResult:
    """Run the export gate; every outcome, allowed, refused or failed, is one audit record."""
    try:
        return _export(settings, policy, kek, audit, request)
    except ExportRefusedError as exc:
        audit.append("export.refused", _audit_details(request, reasons=[exc.what], policy=policy.digest))
        raise
    except MedhelmError as exc:
        audit.append("export.failed", _audit_details(request, error=type(exc).__name__, message=exc.message))
        raise


def _refuse(reasons: Iterable[str], what: str) -> ExportRefusedError:
    listed = list(reasons)
    return ExportRefusedError(f"{what}: " + "; ".join(listed[:5]) + (f" (and {len(listed) - 5} more)"
                                                                      if len(listed) > 5 else ""),
                              where="the export gate (policy and redaction checks)",
                              fix="export what the policy allows (see `medhelm-local policy check`); nothing was "
                                  "written, and the refusal is in the audit log (`medhelm-local audit show`)")


def _signing_key(settings: Settings, kek: Kek) -> SigningKey:
    if settings.signing_key_file is None:
        raise ConfigError("no export signing key is configured, and every bundle is signed",
                          where="setting signing_key_file / MEDHELM_SIGNING_KEY_FILE",
                          fix="create one with `medhelm-local keys signing-init --out FILE` and set "
                              "MEDHELM_SIGNING_KEY_FILE to it; give its .pub file to whoever verifies bundles")
    return load_signing_key(settings.signing_key_file, kek)


def _export(settings: Settings, policy: Policy, kek: Kek, audit: AuditLog, request: ExportRequest) -> ExportResult:
    handle = open_target(request.target, kek, settings.store_memory_limit)
    try:
        runs = [r for r in art.read_runs(handle.con) if request.target.run_id in (None, r.run_id)]
        if not runs:
            raise ConfigError(f"there is no {'run ' + request.target.run_id if request.target.run_id else 'run'} "
                              "to export in this store", where=str(request.target.store),
                              fix="list what is there with `medhelm-local runs list`")
        plan = plan_export(policy, request.role, current_actor(), [RunAccess(r.run_id, r.access) for r in runs],
                           request.include, request.unredacted)
        if plan.refusals:
            raise _refuse(plan.refusals, "the export is refused")
        key = _signing_key(settings, kek)
        folder = settings.redaction_dir.resolve()
        scrubber = Scrubber(detector_for(folder), policy.export.redaction.style,
                            load_policy(folder / "surrogates.yaml"))
        files = _build(plan, runs, scrubber, handle.con)
        store_id = handle.store_id
    finally:
        handle.close()
    redactions = dict(sorted(scrubber.counts.items()))
    if scrubber.residuals:
        raise _refuse([r.describe() for r in scrubber.residuals],
                      "the redacted output still holds detectable PHI, so nothing leaves")
    manifest = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "created_by": {"user": current_actor(), "role": request.role},
        "source": {"store": request.target.store.name, "store_id": store_id,
                   "target": request.target.run_id or "whole suite store"},
        "runs": [{"run_id": r.run_id, "benchmark": r.scenario, "model": r.model, "access": r.access,
                  "artifacts": {a: {"treatment": d.treatment, "reason": d.reason}
                                for a, d in plan.decisions[r.run_id].items()}} for r in runs],
        "withheld": plan.withheld,
        "policy": {"sha256": policy.digest, "files": dict(policy.file_sha256)},
        "redactor": {"medhelm_local": version("medhelm-local"), "rule_pack_sha256": rule_pack_digest(folder),
                     "style": scrubber.style},
        "redactions": redactions,
        "audit_head_before": _head(audit),
    }
    with staging_folder(request.destination) as staging:
        for name, write in files.items():
            write(staging, name)
        data = seal_bundle(staging, manifest, key)
        digest = hashlib.sha256(data).hexdigest()
        record = audit.append("export.allowed", _audit_details(
            request, runs=[r.run_id for r in runs], manifest_sha256=digest, files=sorted(files),
            redactions=redactions, withheld=len(plan.withheld), signing_key_id=key.key_id,
            policy=policy.digest))
    return ExportResult(request.destination, digest, sorted(files), redactions, plan.withheld, key.key_id,
                        record.seq, [r.run_id for r in runs])


def _head(audit: AuditLog) -> dict[str, Any] | None:
    head = audit.head()
    return None if head is None else {"seq": head[0], "hash": head[1]}


Writer = Callable[[Path, str], None]


def _build(plan: ExportPlan, runs: list[art.RunRow], scrubber: Scrubber, con: Any) -> dict[str, Writer]:
    """Every artifact file of the bundle, built (and redacted) now, written later."""
    files: dict[str, Writer] = {}
    leaving = {run_id for artifact in ARTIFACTS for run_id in plan.leaving(artifact)}
    access = {r.run_id: r.access for r in runs}
    labels = art.Shaper("runs", {r.run_id: "as_is" if may_leave_unredacted(r.access) else "redacted" for r in runs},
                        scrubber, access)
    run_rows = art.runs_artifact([r for r in runs if r.run_id in leaving], labels, con)
    files["runs.json"] = _json(run_rows)

    def carried(run_id: str, artifact: str) -> str:
        decision = plan.decisions[run_id][artifact]  # type: ignore[index]
        return decision.treatment if decision.allowed else "never"

    for artifact in ARTIFACTS:
        run_ids = plan.leaving(artifact)
        if not run_ids:
            continue
        plan.withheld += _withheld_columns(artifact, run_ids, carried)
        shaper = art.Shaper(artifact, {r: plan.treatment(r, artifact) for r in run_ids}, scrubber, access)
        if artifact == "aggregates":
            files["aggregates.json"] = _json(art.aggregates_artifact(run_ids, shaper, con))
        elif artifact == "report":
            files["report"] = _tree(report_tree(con, plan.report_contents, access,
                                                lambda name, how: art.Shaper(name, how, scrubber, access)))
        else:
            files[f"{artifact}.jsonl"] = _jsonl(art.rows_artifact(artifact, run_ids, shaper, con, carried))
    return files


def _withheld_columns(artifact: str, run_ids: list[str], carried: Callable[[str, str], str]) -> list[dict[str, str]]:
    """Columns of an artifact left out for a run because they hold text of an artifact that may not leave."""
    return [{"run_id": run_id, "artifact": f"{artifact}.{column.export_name}",
             "reason": f"it can hold {column.carries} text, and {column.carries} may not leave for this run"}
            for table in artifact_tables(artifact) for column in table.columns if column.carries is not None
            for run_id in run_ids if carried(run_id, column.carries) == "never"]


def _json(value: Any) -> Writer:
    return lambda folder, name: write_json(folder, name, value)


def _tree(files: dict[str, str]) -> Writer:
    """A folder of text files (the report), by path relative to it."""
    def write(folder: Path, name: str) -> None:
        for relative, text in files.items():
            path = folder / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return write


def _jsonl(rows: list[dict[str, Any]]) -> Writer:
    return lambda folder, name: write_jsonl(folder, name, rows)
