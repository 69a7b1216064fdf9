"""The installation: where the audit log lives and which policy IT installed, fixed when the program is installed.

    <prefix>/etc/medhelm-local/installation.toml        <prefix>: the Python environment the program is
                                                        installed in, e.g. /opt/medhelm-local

    audit_log = "/var/lib/medhelm-local/audit/audit.duckdb"   # the appliance's one audit log
    policy_dir = "/etc/medhelm-local/policies"               # the policy IT installed (default: the shipped one)

No setting, environment variable, config file or flag names either: what decides what may leave must not
be chosen per command. The file sits inside the program's own installation because whoever can change
it can change the program itself, which is out of scope (docs/trust-model.md); everyone else can only
read it. The installed policy is what the first approval in a log is checked against (who may approve),
so an empty or replaced log gives no one a right IT's policy does not.

Without the file the program is a development set-up: the audit log is in the user's own data folder
(~/.local/share/medhelm-local/audit.duckdb) and the installed policy is the shipped one. `doctor` says
which it is.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from medhelm_local.errors import ConfigError
from medhelm_local.safe_parse import parse_toml
from medhelm_local.trusted_files import decode_text, read_regular

RELATIVE_PATH = Path("etc") / "medhelm-local" / "installation.toml"
_FIX = (f"IT corrects <install prefix>/{RELATIVE_PATH}: audit_log = \"/absolute/path/audit.duckdb\" and, optionally, "
        "policy_dir = \"/absolute/path/policies\" (see docs/trust-model.md)")


class _InstallationFile(BaseModel):
    """installation.toml as IT writes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    audit_log: Path = Field(description="The appliance's audit log (an absolute path)")
    policy_dir: Path | None = Field(None, description="The policy folder IT installed (an absolute path); default: "
                                                      "the shipped policies")

    @field_validator("audit_log", "policy_dir")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_absolute():
            raise ValueError("must be an absolute path (it may not depend on the folder a command runs in)")
        return value


@dataclass(frozen=True)
class Installation:
    """What the installation fixed: its file (None for a development set-up), the audit log, the installed policy."""

    file: Path | None
    audit_log: Path
    policy_dir: Path

    def describe(self) -> str:
        """One line for `doctor`."""
        if self.file is None:
            return (f"development set-up (no {installation_path()}): audit log {self.audit_log}, the user's own; "
                    f"installed policy: the shipped one, {self.policy_dir}")
        return f"{self.file}: audit log {self.audit_log}, installed policy {self.policy_dir}"


def installation_path() -> Path:
    """Where this program's installation file is (it may not exist)."""
    return Path(sys.prefix) / RELATIVE_PATH


def installation() -> Installation:
    """The installation this program runs in (its file read once per process); ConfigError if the file does
    not validate."""
    from medhelm_local.settings import default_audit_store, default_policy_dir

    fields = _installation_file()
    if fields is None:  # development: the user's own data folder, worked out now (it is not the installation's)
        return Installation(None, default_audit_store(), default_policy_dir())
    return Installation(installation_path(), fields.audit_log, fields.policy_dir or default_policy_dir())


@cache
def _installation_file() -> _InstallationFile | None:
    path = installation_path()
    if not path.exists() and not path.is_symlink():
        return None
    text = decode_text(read_regular(path, "installation file"), path, "installation file")
    data = parse_toml(text, str(path), "installation file")  # nesting and overlong numbers refused, with the line
    try:
        return _InstallationFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = first["msg"].removeprefix("Value error, ")
        message = "unknown setting" if first["type"] == "extra_forbidden" else message
        raise ConfigError(f"installation file entry '{key}': {message}", where=str(path), fix=_FIX) from None
