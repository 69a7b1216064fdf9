"""`export_bundle()`: a signed, redacted bundle from Python, through the same gate as `medhelm-local export`, which
calls the same `export_with` with the settings it read.

The caller names what to export, where, in which role, and which artifacts; nothing else. The policy, the audit log
and the identity of the person exporting are not parameters: they are read once from the appliance's settings,
its installation and the operating system (export/inputs.py, docs/trust-model.md), so a notebook has no way around
the gate that the command line does not have. Every attempt, allowed, refused or failed, is an audit record.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from medhelm_local.errors import ConfigError
from medhelm_local.export.bundle import Verification, verify_bundle
from medhelm_local.export.inputs import gate_inputs
from medhelm_local.export.service import ExportRequest, ExportResult, export
from medhelm_local.export.signing import load_public_key
from medhelm_local.export.target import resolve_target
from medhelm_local.file_modes import owner_only
from medhelm_local.policy.file_schemas import ARTIFACTS, Artifact
from medhelm_local.settings import Settings


def artifacts_named(names: str | Sequence[str] | None, where: str = "include") -> tuple[Artifact, ...] | None:
    """The artifacts asked for (a list, or one comma-separated string), in the bundle's order; None: all the policy
    lets the role take. ConfigError naming any that is not an artifact."""
    if names is None:
        return None
    listed = names.split(",") if isinstance(names, str) else list(names)
    items = tuple(dict.fromkeys(i.strip() for i in listed if i.strip()))
    unknown = [i for i in items if i not in ARTIFACTS]
    if unknown or not items:
        what = f"{', '.join(repr(i) for i in unknown)} is not an artifact" if unknown else "no artifact was named"
        raise ConfigError(what, where=where, fix=f"give a comma-separated list of: {', '.join(ARTIFACTS)}")
    return tuple(a for a in ARTIFACTS if a in items)


def export_with(settings: Settings, target: str, *, to: Path, role: str,
                include: tuple[Artifact, ...] | None = None, unredacted: bool = False, review: str | None = None,
                validated_only: bool = False, store: Path | None = None) -> ExportResult:
    """Export `target` (a suite, or a run id or its unique beginning) with these settings through the gate."""
    inputs = gate_inputs(settings)
    resolved = resolve_target(settings, inputs.kek, target, store)
    return export(settings, inputs.policy, inputs.kek, inputs.audit,
                  ExportRequest(resolved, to, role, include, unredacted, review, validated_only))


@owner_only
def export_bundle(target: str, *, to: str | Path, role: str, config: Settings | str | Path | None = None,
                  include: str | Sequence[str] | None = None, unredacted: bool = False, review: str | None = None,
                  validated_only: bool = False, store: str | Path | None = None,
                  output_dir: str | Path | None = None) -> ExportResult:
    """Export a suite's results (or one run's) to the new folder `to` as a signed bundle, as `medhelm-local export`
    does: redacted per the approved policy for `role` (one you are a member of), rescanned, recorded in the audit
    log. `include`: only these artifacts (aggregates, scores, completions, prompts, ...); `review`: the approved
    review of the free text it carries, where the policy wants one; `validated_only`: refuse a report with a
    jury-scored column clinicians have not validated. A refusal is an `ExportRefusedError`."""
    from medhelm_local.run.in_force import settings_in_force

    settings, _ = settings_in_force(config, output_dir=None if output_dir is None else Path(output_dir))
    return export_with(settings, target, to=Path(to), role=role, include=artifacts_named(include),
                       unredacted=unredacted, review=review, validated_only=validated_only,
                       store=None if store is None else Path(store))


def verify_export(bundle: str | Path, public_key: str | Path) -> Verification:
    """Check a bundle's signature and every file's hash with the sender's public key (`.pub`), as `medhelm-local
    verify` does; needs no store and no KEK. A bundle that does not verify is `ok` False with its `problems`."""
    return verify_bundle(Path(bundle), load_public_key(Path(public_key)))
