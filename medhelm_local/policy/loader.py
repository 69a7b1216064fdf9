"""Read the policy folder: every file validated strictly, cross-checked, and fingerprinted.

A policy that does not load stops the program (fail closed): each error names the file, the
line and the key to fix. Each file is opened once and must be a regular file (`trusted_files`):
the rules enforced and the digest that `policy approve` pins come from the same bytes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from medhelm_local.errors import ConfigError
from medhelm_local.policy.file_schemas import AuditPolicy, EgressPolicy, ExportPolicy, RetentionPolicy, RolesPolicy
from medhelm_local.trusted_files import decode_text, read_regular
from medhelm_local.yaml_lines import LocatedYaml, parse_located, validate_located

M = TypeVar("M", bound=BaseModel)

# File name -> (model, what it is called in messages). Nothing else in the folder is read.
POLICY_FILES: Mapping[str, tuple[type[BaseModel], str]] = {
    "egress.yaml": (EgressPolicy, "egress policy"),
    "export.yaml": (ExportPolicy, "export policy"),
    "retention.yaml": (RetentionPolicy, "retention policy"),
    "roles.yaml": (RolesPolicy, "roles policy"),
}
# Read when present: a folder without it forwards audit records nowhere beyond the appliance's log.
OPTIONAL_FILES: Mapping[str, tuple[type[BaseModel], str]] = {
    "audit.yaml": (AuditPolicy, "audit policy"),
}
_KNOWN = {**POLICY_FILES, **OPTIONAL_FILES}
_FIX = "correct it as the comments at the top of the file explain; then check with `medhelm-local policy check`"


@dataclass(frozen=True)
class Policy:
    """The effective policy: one validated model per file, where it came from, and its fingerprint."""

    directory: Path
    egress: EgressPolicy
    export: ExportPolicy
    retention: RetentionPolicy
    roles: RolesPolicy
    file_sha256: Mapping[str, str]
    audit: AuditPolicy = field(default_factory=lambda: AuditPolicy(forward=[]))
    texts: Mapping[str, str] = field(default_factory=dict)  # each file's text, as read once and digested

    @property
    def digest(self) -> str:
        """sha256 over every policy file read (names and bytes): the policy version an export records and
        `policy approve` pins."""
        h = hashlib.sha256()
        for name in sorted(self.file_sha256):
            h.update(f"{name}\0{self.file_sha256[name]}\n".encode())
        return h.hexdigest()

    def path_of(self, name: str) -> Path:
        """The path of one policy file, e.g. `path_of("egress.yaml")`."""
        return self.directory / name


def located_error(doc: LocatedYaml, what: str, loc: tuple[str | int, ...], message: str) -> ConfigError:
    """A ConfigError worded like validate_located's, for checks that span entries or files."""
    line = doc.line_of(loc)
    key_path = ".".join(str(p) for p in loc) or "(top level)"
    where = f"{doc.path}, line {line}" if line else str(doc.path)
    return ConfigError(f"{what} field '{key_path}': {message}", where=where, fix=_FIX)


@dataclass(frozen=True)
class _Read:
    """One policy file as read: its validated model, its parsed document (for line numbers), its sha256."""

    model: Any
    doc: LocatedYaml
    sha256: str
    text: str


def _load(directory: Path, name: str, model: type[M]) -> _Read:
    what = _KNOWN[name][1]
    path = directory / name
    data = read_regular(path, what)  # once: what is parsed below is what is digested
    text = decode_text(data, path, what)
    doc = parse_located(text, path, what)
    if doc.data is not None and not isinstance(doc.data, dict):
        raise ConfigError(f"the {what} must be a mapping of keys to values", where=str(doc.path), fix=_FIX)
    if not doc.data:
        # An empty file is not "no rules": it would silently mean defaults, so it is refused.
        raise ConfigError(f"the {what} is empty", where=str(doc.path), fix="restore the shipped file and edit it")
    parsed: M = validate_located(model, doc, what, _FIX)
    return _Read(parsed, doc, hashlib.sha256(data).hexdigest(), text)


def _check_folder(directory: Path) -> None:
    if not directory.is_dir():
        raise ConfigError("the policy folder does not exist", where=str(directory),
                          fix="set policy_dir (MEDHELM_POLICY_DIR) to the folder holding egress.yaml, export.yaml, "
                              "retention.yaml and roles.yaml, or restore the shipped policies/ folder")
    strays = sorted(p.name for p in directory.iterdir()
                    if p.suffix in (".yaml", ".yml") and p.name not in _KNOWN)
    if strays:
        # A misnamed file (egress.yml, export-extra.yaml) would otherwise look applied and be ignored.
        raise ConfigError(f"the policy folder holds YAML files this program does not read: {', '.join(strays)}",
                          where=str(directory),
                          fix=f"merge them into {', '.join(POLICY_FILES)} or move them out of the folder")


def _check_egress(policy: EgressPolicy, doc: LocatedYaml) -> None:
    seen: dict[tuple[str, int], int] = {}
    for index, entry in enumerate(policy.allow):
        key = (entry.host, entry.port)
        if key in seen:
            raise located_error(doc, "egress policy", ("allow", index, "host"),
                                f"{entry.host}:{entry.port} is listed twice (also entry {seen[key] + 1})")
        seen[key] = index


def _check_roles(export: ExportPolicy, export_doc: LocatedYaml, roles: RolesPolicy) -> None:
    for role in export.who_may_export:
        if role not in roles.roles:
            known = ", ".join(sorted(roles.roles)) or "none"
            raise located_error(export_doc, "export policy", ("who_may_export", role),
                                f"no role '{role}' in roles.yaml (roles there: {known})")


def load_policy(policy_dir: Path) -> Policy:
    """Load and validate every policy file in `policy_dir`; raise ConfigError naming file, line and key."""
    directory = Path(policy_dir)
    _check_folder(directory)
    read = {"egress.yaml": _load(directory, "egress.yaml", EgressPolicy)}
    _check_egress(read["egress.yaml"].model, read["egress.yaml"].doc)
    read["roles.yaml"] = _load(directory, "roles.yaml", RolesPolicy)
    read["export.yaml"] = _load(directory, "export.yaml", ExportPolicy)
    _check_roles(read["export.yaml"].model, read["export.yaml"].doc, read["roles.yaml"].model)
    read["retention.yaml"] = _load(directory, "retention.yaml", RetentionPolicy)
    # lexists, not exists: a dangling symlink is read, and refused, rather than taken for "no audit.yaml".
    if os.path.lexists(directory / "audit.yaml"):
        read["audit.yaml"] = _load(directory, "audit.yaml", AuditPolicy)
    audit = read["audit.yaml"].model if "audit.yaml" in read else AuditPolicy(forward=[])
    return Policy(directory, read["egress.yaml"].model, read["export.yaml"].model, read["retention.yaml"].model,
                  read["roles.yaml"].model, {name: r.sha256 for name, r in read.items()}, audit,
                  {name: r.text for name, r in read.items()})


def policy_summary(policy: Policy) -> dict[str, Any]:
    """The effective policy as plain data (for `policy check --json` and export manifests)."""
    return {
        "directory": str(policy.directory),
        "digest": policy.digest,
        "files": dict(policy.file_sha256),
        "egress": policy.egress.model_dump(),
        "export": policy.export.model_dump(),
        "retention": policy.retention.model_dump(),
        "roles": policy.roles.model_dump(),
        "audit": policy.audit.model_dump(exclude_none=True),
    }
