"""`export`: from a suite store to a signed bundle, through the gate, with an audit record either way.

    1. resolve the target (suite or run) and read its runs         nothing written yet
    2. open the signing key; check the approved policy and rules   missing -> audit, exit 2; other -> exit 5
    3. which runs are public: what each read, checked against the  a run not shown public is private data
       audit log and the published files (public_check.py)
    4. plan: role x access level x artifact, capped by code        refused -> audit, exit 5
    5. audit record `export.started`                                the attempt is on record before anything is built
    6. build the artifacts, redacting per plan; rescan the output  residual PHI -> audit, exit 5
       where the policy wants a review of free text, the text built must be the text a person
       approved (review.py); no approved review of exactly it -> audit, exit 5
       a report marks each jury-scored column validated by clinicians or not (the policy's
       jury_validation); one not validated, where the policy or --validated-only refuses those -> audit, exit 5;
       the manifest lists the marks (of the aggregates' jury-scored columns when no report leaves)
    7. write into a hidden folder, then the manifest (bound to the started record), then
       audit record `export.allowed` with the manifest's sha256, then the signature, then rename
    8. a checkpoint signed with the export key covers the outcome (allowed, refused or failed)

A bundle with a valid signature therefore always has its `export.allowed` record: a process killed
before that record leaves an unsigned `.partial` folder, which `verify` refuses and the next export
to the same destination removes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

import duckdb

from medhelm_local.audit.chain import AuditRecord
from medhelm_local.audit.log import AuditLog
from medhelm_local.errors import ConfigError, ExportRefusedError, IntegrityError, MedhelmError
from medhelm_local.export import artifacts as art
from medhelm_local.export.approval import check_pin, rule_pack_digest
from medhelm_local.export.artifacts import Shaper
from medhelm_local.export.bundle import (
    Writer,
    json_file,
    jsonl_file,
    sign_manifest,
    staging_folder,
    text_tree,
    write_export_manifest,
)
from medhelm_local.export.decisions import ExportPlan, RunAccess, plan_export
from medhelm_local.export.public_check import REESTABLISH, public_standing
from medhelm_local.export.review import Review, needs_review, reviews_folder, text_digest
from medhelm_local.export.review_gate import check_for_export
from medhelm_local.export.scrubber import Marked, Scrubber, scrubber_for
from medhelm_local.export.signing import SigningKey, load_signing_key
from medhelm_local.export.slices import slices_artifact
from medhelm_local.export.target import Target, open_target
from medhelm_local.policy.file_schemas import ARTIFACTS, Artifact
from medhelm_local.policy.identity import current_actor
from medhelm_local.policy.loader import Policy
from medhelm_local.policy.rules import may_leave_unredacted
from medhelm_local.redact import PhiType
from medhelm_local.redact.pack import read_rule_pack
from medhelm_local.report.exported import aggregate_jury_marks, report_tree
from medhelm_local.settings import Settings
from medhelm_local.store.integrity import explain_failure
from medhelm_local.store.keys import Kek
from medhelm_local.store.schema import artifact_tables

__all__ = ["ExportRequest", "ExportResult", "export", "rule_pack_digest", "signing_key_for"]


@dataclass(frozen=True)
class ExportRequest:
    """What the person exporting asked for."""

    target: Target
    destination: Path
    role: str
    include: tuple[Artifact, ...] | None = None
    unredacted: bool = False
    review: str | None = None  # the id of the approved review this export rests on (review.py)
    validated_only: bool = False  # refuse a report with a jury-scored column clinicians have not validated


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
    # Runs stored as public that the gate handled as private data, and why (public_check.py).
    handled_as_private: dict[str, str] = field(default_factory=dict)
    review: str | None = None


@dataclass
class _Attempt:
    """One export attempt as the audit log sees it: the key, once open, and the record that started it."""

    request: ExportRequest
    key: SigningKey | None = None
    started: AuditRecord | None = None

    def details(self, **extra: Any) -> dict[str, Any]:
        request = self.request
        started = {"started_seq": self.started.seq} if self.started else {}
        return {"target": request.target.describe(), "destination": str(request.destination.resolve()),
                "role": request.role, "include": list(request.include) if request.include else "all permitted",
                "unredacted_requested": request.unredacted, **started, **extra}


def export(settings: Settings, policy: Policy, kek: Kek, audit: AuditLog, request: ExportRequest) -> ExportResult:
    """Run the export gate; every outcome, allowed, refused or failed, is one audit record."""
    attempt = _Attempt(request)
    try:
        result = _export(settings, policy, kek, audit, attempt)
    except ExportRefusedError as exc:
        _finish(audit, attempt, "export.refused", reasons=[exc.what], policy=policy.digest)
        raise
    except MedhelmError as exc:
        _finish(audit, attempt, "export.failed", error=type(exc).__name__, message=exc.message)
        raise
    except BaseException as exc:  # a crash is a failed attempt too, and is recorded as one
        explained = _explain(exc, request.target.store)
        _finish(audit, attempt, "export.failed", error=type(explained or exc).__name__,
                message=explained.message if explained else "an unexpected error (see the operational log)")
        if explained is None:
            raise
        raise explained from None
    _finish(audit, attempt, None)
    return result


def _explain(exc: BaseException, store: Path) -> MedhelmError | None:
    """An unexpected exception as a clear error, where it has one."""
    if isinstance(exc, duckdb.Error):
        return explain_failure(exc, store)
    if isinstance(exc, OSError):
        return ConfigError(f"cannot write the export ({exc.strerror or exc})", where=str(exc.filename or store),
                           fix="check that the destination's folder exists, is writable and has space")
    return None


def _finish(audit: AuditLog, attempt: _Attempt, kind: str | None, **details: Any) -> None:
    """Record how the attempt ended (unless `kind` is None: already recorded) and, when the signing key
    is open, cover the log with a signed checkpoint."""
    if kind is not None:
        audit.append(kind, attempt.details(**details))
    if attempt.key is not None:
        try:
            audit.checkpoint(attempt.key)
        except IntegrityError:
            # A log that does not continue the appliance's note is not signed. Only the gate's own check of the
            # log finds this once the key is open, and its error is the one that explains it: keep that one.
            if kind is None:
                raise


def _refuse(reasons: Iterable[str], what: str, private: bool = False) -> ExportRefusedError:
    listed = list(reasons)
    also = f"; {REESTABLISH}" if private else ""
    return ExportRefusedError(f"{what}: " + "; ".join(listed[:5]) + (f" (and {len(listed) - 5} more)"
                                                                      if len(listed) > 5 else ""),
                              where="the export gate (policy and redaction checks)",
                              fix="export what the policy allows (see `medhelm-local policy check`); nothing was "
                                  f"written, and the refusal is in the audit log (`medhelm-local audit show`){also}")


def signing_key_for(settings: Settings, kek: Kek) -> SigningKey:
    """The configured export signing key, opened with the KEK; ConfigError if none is configured."""
    if settings.signing_key_file is None:
        raise ConfigError("no export signing key is configured, and every bundle is signed",
                          where="setting signing_key_file / MEDHELM_SIGNING_KEY_FILE",
                          fix="create one with `medhelm-local keys signing-init --out FILE` and set "
                              "MEDHELM_SIGNING_KEY_FILE to it; give its .pub file to whoever verifies bundles")
    return load_signing_key(settings.signing_key_file, kek)


@dataclass
class _Gated:
    """What the gate decided before anything is built: the runs as treated, the plan, the approval."""

    runs: list[art.RunRow]
    private: dict[str, str]
    plan: ExportPlan
    approval: Any
    store_id: str = ""


def _gate(settings: Settings, policy: Policy, audit: AuditLog, attempt: _Attempt, con: Any,
          pack_digest: str, key: SigningKey) -> _Gated:
    """Steps 2 to 4: the approved pair, which runs are public, the plan; ExportRefusedError if refused."""
    request = attempt.request
    runs = [r for r in art.read_runs(con) if request.target.run_id in (None, r.run_id)]
    if not runs:
        raise ConfigError(f"there is no {'run ' + request.target.run_id if request.target.run_id else 'run'} "
                          "to export in this store", where=str(request.target.store),
                          fix="list what is there with `medhelm-local runs list`")
    approval = check_pin(audit, key, policy, pack_digest)
    standing = public_standing(runs, con, audit.records()[1], settings.data_root)
    private = {run_id: s.why for run_id, s in standing.items() if s.why}
    runs = [replace(r, access=standing[r.run_id].access) for r in runs]
    plan = plan_export(policy, request.role, current_actor(),
                       [RunAccess(r.run_id, r.access, private.get(r.run_id)) for r in runs],
                       request.include, request.unredacted)
    if plan.refusals:
        raise _refuse(plan.refusals, "the export is refused", bool(private))
    return _Gated(runs, private, plan, approval)


def _export(settings: Settings, policy: Policy, kek: Kek, audit: AuditLog, attempt: _Attempt) -> ExportResult:
    request = attempt.request
    # Read once: the digest checked against the approval and the rules that redact come from the same bytes.
    pack = read_rule_pack(settings.redaction_dir.resolve())
    handle = open_target(request.target, kek, settings.store_memory_limit)
    try:
        key = attempt.key = signing_key_for(settings, kek)
        gated = _gate(settings, policy, audit, attempt, handle.con, pack.digest, key)
        runs, private, plan, approval = gated.runs, gated.private, gated.plan, gated.approval
        review = _review_for(policy, kek, audit, key, request, plan, runs, handle.con)
        started = attempt.started = audit.append("export.started", attempt.details(
            runs=[r.run_id for r in runs], policy=policy.digest, policy_approval=approval.seq,
            handled_as_private=private, **({"review": review[0].id, "review_approval": review[1].seq}
                                           if review else {})))
        scrubber = scrubber_for(policy.export.redaction.style, pack, *(
            (bytes.fromhex(review[0].secret), review[0].manual()) if review else ()))
        if review:
            scrubber.marked = []
        files, jury_marks = _build(plan, runs, scrubber, handle.con, policy, request.validated_only)
        store_id = handle.store_id
    finally:
        handle.close()
    redactions = dict(sorted(scrubber.counts.items()))
    if scrubber.residuals:
        raise _refuse([r.describe() for r in scrubber.residuals],
                      "what would leave still holds detectable PHI, so nothing leaves")
    if review and text_digest(scrubber.marked or []) != review[0].digest:
        raise _refuse([f"review {review[0].id} approved text with sha256 {review[0].digest[:16]}..., and the store "
                       f"now gives {text_digest(scrubber.marked or [])[:16]}... (the store or the rules changed)"],
                      "the text that would leave is not the text reviewed")
    manifest = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "created_by": {"user": current_actor(), "role": request.role},
        "source": {"store": request.target.store.name, "store_id": store_id,
                   "target": request.target.run_id or "whole suite store"},
        "runs": [{"run_id": r.run_id, "benchmark": r.scenario, "model": r.model, "access": r.access,
                  **({"handled_as_private": private[r.run_id]} if r.run_id in private else {}),
                  "artifacts": {a: {"treatment": d.treatment, "reason": d.reason}
                                for a, d in plan.decisions[r.run_id].items()}} for r in runs],
        "withheld": plan.withheld,
        "policy": {"sha256": policy.digest, "files": dict(policy.file_sha256),
                   "approved_in_audit_record": approval.seq},
        "redactor": {"medhelm_local": version("medhelm-local"), "rule_pack_sha256": approval.rule_pack_sha256,
                     "style": scrubber.style, "floor": "the shipped rule pack"},
        "redactions": redactions,
        # The export's own `export.started` record: the bundle is bound to it, and the log must keep it.
        "audit_head_before": {"seq": started.seq, "hash": started.hash},
        **({"review": {"id": review[0].id, "round": review[0].round, "text_sha256": review[0].digest,
                       "approved_in_audit_record": review[1].seq, "approved_by": review[1].actor,
                       "manual_masks": len(review[0].masks)}} if review else {}),
        # The marks, signed: which jury-scored columns (of the report, or of aggregates.json without it) this
        # hospital's clinicians validated.
        **({"jury_validation": jury_marks} if "report" in files or jury_marks else {}),
    }
    with staging_folder(request.destination) as staging:
        for name, write in files.items():
            write(staging, name)
        data = write_export_manifest(staging, manifest, key)
        digest = hashlib.sha256(data).hexdigest()
        record = audit.append("export.allowed", attempt.details(
            runs=[r.run_id for r in runs], manifest_sha256=digest, files=sorted(files),
            redactions=redactions, withheld=len(plan.withheld), signing_key_id=key.key_id,
            policy=policy.digest, handled_as_private=sorted(private),
            **({"review": review[0].id} if review else {})))
        sign_manifest(staging, data, key)
    return ExportResult(request.destination, digest, sorted(files), redactions, plan.withheld, key.key_id,
                        record.seq, [r.run_id for r in runs], private, review[0].id if review else None)


def _review_for(policy: Policy, kek: Kek, audit: AuditLog, key: SigningKey, request: ExportRequest,
                plan: ExportPlan, runs: list[art.RunRow], con: Any) -> tuple[Review, AuditRecord] | None:
    """The approved review this export rests on, when the policy wants one for what leaves; refused without."""
    if not policy.export.review.required or not needs_review(plan, {r.run_id: r.access for r in runs},
                                                             _stored_in(con)):
        return None
    if request.review is None:
        # A policy file written before reviews existed says nothing, and gets the safe side: say so, and how to choose.
        unsaid = ("review" not in policy.export.model_fields_set
                  or "required" not in policy.export.review.model_fields_set)
        why = ("export.yaml has no `review: required:` setting, and without one a review is required"
               if unsaid else "export.yaml review.required")
        raise _refuse(["the export carries answers, prompts or ratings of gated or private runs, and the policy "
                       f"({why}) wants a compliance officer to review the redacted text first: "
                       f"run `medhelm-local review request {request.target.run_id or request.target.store.stem} "
                       f"--role {request.role}{' --include ' + ','.join(request.include) if request.include else ''}`"
                       ", have it approved in the viewer (`medhelm-local serve`, page /review), then export again "
                       "naming that review (`medhelm-local export ... --review ID`); or export only numbers "
                       "(`medhelm-local export ... --include aggregates,scores`)"
                       + ("; a hospital that lets redacted text leave unread says `review: {required: false}` in "
                          "export.yaml and has the policy approved" if unsaid else "")],
                      "the export waits for a review")
    review = reviews_folder(kek).load(request.review)
    approved = check_for_export(audit, key, review, store=request.target.store, run_id=request.target.run_id,
                                role=request.role, include=request.include, exporter=current_actor(),
                                different_person=policy.export.review.different_person)
    return review, approved


def _stored_in(con: Any) -> Callable[[str, str], bool]:
    """Whether the store holds rows of an artifact for a run (the free text a review would read)."""
    def stored(run_id: str, artifact: str) -> bool:
        return any(con.execute(f"SELECT 1 FROM {t.name} WHERE run_id = ? LIMIT 1", [run_id]).fetchone()
                   for t in artifact_tables(artifact))
    return stored


def build_for_review(settings: Settings, policy: Policy, kek: Kek, audit: AuditLog, request: ExportRequest,
                     secret: bytes, masks: tuple[tuple[str, PhiType], ...]) -> list[Marked]:
    """The redacted values an export of `request` would carry, built as the export builds them (the gate's
    checks, redaction with `secret` and `masks`, the rescan), and nothing written."""
    attempt = _Attempt(request)
    pack = read_rule_pack(settings.redaction_dir.resolve())
    handle = open_target(request.target, kek, settings.store_memory_limit)
    try:
        key = signing_key_for(settings, kek)
        gated = _gate(settings, policy, audit, attempt, handle.con, pack.digest, key)
        if not needs_review(gated.plan, {r.run_id: r.access for r in gated.runs}, _stored_in(handle.con)):
            raise ConfigError("this export carries no answers, prompts or ratings of gated or private runs, so it "
                              "needs no review", where="review request", fix="export it directly")
        scrubber = scrubber_for(policy.export.redaction.style, pack, secret, masks)
        scrubber.marked = []
        _build(gated.plan, gated.runs, scrubber, handle.con, policy, request.validated_only)
    finally:
        handle.close()
    if scrubber.residuals:
        raise _refuse([r.describe() for r in scrubber.residuals],
                      "what would leave still holds detectable PHI, so it cannot go to review")
    return scrubber.marked



def _build(plan: ExportPlan, runs: list[art.RunRow], scrubber: Scrubber, con: Any, policy: Policy,
           validated_only: bool) -> tuple[dict[str, Writer], list[dict[str, object]]]:
    """Every artifact file of the bundle, built (and redacted) now, written later; and the jury-scored columns' marks
    (the report's, or those of the aggregates that leave without it)."""
    files: dict[str, Writer] = {}
    jury_marks: list[dict[str, object]] = []
    leaving = {run_id for artifact in ARTIFACTS for run_id in plan.leaving(artifact)}
    access = {r.run_id: r.access for r in runs}  # as the gate treats each run (public_check.py)
    labels = Shaper("runs", {r.run_id: "as_is" if may_leave_unredacted(r.access) else "redacted" for r in runs},
                    scrubber, access)
    run_rows = art.runs_artifact([r for r in runs if r.run_id in leaving], labels, con)
    files["runs.json"] = json_file(run_rows)

    def carried(run_id: str, artifact: str) -> str:
        decision = plan.decisions[run_id][artifact]  # type: ignore[index]
        return decision.treatment if decision.allowed else "never"

    for artifact in ARTIFACTS:
        run_ids = plan.leaving(artifact)
        if not run_ids:
            continue
        shaper = Shaper(artifact, {r: plan.treatment(r, artifact) for r in run_ids}, scrubber, access)
        if artifact == "aggregates":
            files["aggregates.json"] = json_file(art.aggregates_artifact(run_ids, shaper, con))
            sliced = slices_artifact(run_ids, shaper, con, policy.export.min_slice_size)
            if sliced:
                files["slices.json"] = json_file(sliced)
            if not plan.leaving("report"):  # with the report, its own marks (below) say the same
                jury_marks = aggregate_jury_marks(con, shaper.treatments, access,
                                                  lambda name, how: Shaper(name.removeprefix("report."), how,
                                                                           scrubber, access),
                                                  policy.export.jury_validation)
        elif artifact == "report":
            report = report_tree(con, plan.report_contents, access,
                                 lambda name, how: Shaper(name, how, scrubber, access),
                                 policy.export.jury_validation, validated_only)
            files["report"] = text_tree(report.files)
            jury_marks = report.marks_json()
        else:
            rows = art.rows_artifact(artifact, run_ids, shaper, con, carried)
            if not rows:
                continue  # nothing of it is stored (ratings of a suite no jury rated): no file
            plan.withheld += art.withheld_columns(artifact, run_ids, carried)
            files[f"{artifact}.jsonl"] = jsonl_file(rows)
    return files, jury_marks
