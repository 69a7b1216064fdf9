"""Settings: one declared table, read from flags, `MEDHELM_*` environment, one TOML file, secrets.

Precedence, highest first: command-line flags, environment (`MEDHELM_DATA_ROOT`, nested with
`__`, e.g. `MEDHELM_DEPLOYMENTS__VLLM_LOCAL__BASE_URL`), the TOML config file, the secrets
directory (one file per field, the way Kubernetes mounts a Secret), then defaults.

The config file is the one given by `--config` or `MEDHELM_CONFIG`, else
`$XDG_CONFIG_HOME/medhelm-local/config.toml` (`~/.config/...`) if it exists. Nothing else is
searched: no `.env`, no walking up parent folders. What decides what may leave is not a setting:
the audit log's place comes from the installation (`installation.py`), and the policy and rule pack
an export uses must be the approved ones (`export/approval.py`).
"""

from __future__ import annotations

import os
import sys
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from medhelm_local.errors import ConfigError, StoreKeyError
from medhelm_local.field_errors import typo_first
from medhelm_local.key_files import shared_with

DEFAULT_SECRETS_DIR = Path("/run/secrets/medhelm-local")

# The parsed config file for the Settings being built; read by settings_customise_sources so
# the file can rank below the environment (init kwargs would rank above it).
_file_values: ContextVar[dict[str, Any] | None] = ContextVar("medhelm_config_file_values", default=None)


def default_config_path() -> Path:
    """The documented default config location (used only if the file exists)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "medhelm-local" / "config.toml"


def _shipped_folder(name: str) -> Path:
    """A folder shipped beside the package: the checkout's top-level folder when run from a checkout
    (editable installs, tests: edits there apply at once), else `<prefix>/share/medhelm-local/NAME`,
    where a wheel installs it."""
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / name).is_dir():  # a checkout, not site-packages
        return root / name
    return Path(sys.prefix) / "share" / "medhelm-local" / name


def default_policy_dir() -> Path:
    """The hospital-reviewable policy files (egress allowlist, export rules, retention, roles)."""
    return _shipped_folder("policies")


def default_redaction_dir() -> Path:
    """The redaction rule packs (patterns, dictionaries, surrogate settings)."""
    return _shipped_folder("redaction")


def _data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")) / "medhelm-local"


def default_audit_store() -> Path:
    """The audit log of a development set-up (one without an installation file): the user's own, one per user."""
    return _data_home() / "audit.duckdb"


def _installed_policy_dir() -> Path:
    from medhelm_local.installation import installation

    return installation().policy_dir


def default_data_root() -> Path:
    """Where benchmark files live unless configured."""
    return _data_home() / "data"


class Price(BaseModel):
    """What a deployment costs: per million tokens in and out, or per GPU-hour (with the GPU count)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # TOML reads `inf` and `nan`

    input_per_million: float | None = Field(None, ge=0, description="Price of one million prompt tokens")
    output_per_million: float | None = Field(None, ge=0, description="Price of one million generated tokens")
    per_gpu_hour: float | None = Field(None, ge=0, description="Price of one GPU for one hour")
    gpus: int = Field(1, ge=1, le=1024, description="GPUs serving the endpoint (with per_gpu_hour)")
    currency: str = Field("USD", min_length=1, max_length=8, description="Shown beside costs; never converted")

    @model_validator(mode="after")
    def _one_kind(self) -> Price:
        tokens = self.input_per_million is not None or self.output_per_million is not None
        if tokens == (self.per_gpu_hour is not None):
            raise ValueError("give input_per_million and output_per_million, or per_gpu_hour (with gpus), not both "
                             "and not neither")
        return self

    @property
    def per_token(self) -> bool:
        """True when priced by tokens (else by GPU time)."""
        return self.per_gpu_hour is None


class Deployment(BaseModel):
    """One OpenAI-compatible endpoint (vLLM, Ollama) that serves a model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    api: Literal["chat", "completions"] = Field("chat", description="Which endpoint to call")
    engine: Literal["vllm", "llama.cpp", "ollama", "other"] = Field(
        "vllm", description="The server software (docs/engines.md): decides the structured-output parameter, "
        "whether its /tokenize is asked, and how model names match (Ollama's name:tag)")
    reasoning: bool = Field(False, description="The model thinks before it answers (<think> or reasoning_content): "
                            "each request gets reasoning_budget more tokens, and the reasoning is stored apart")
    reasoning_budget: int = Field(4096, ge=0, le=100_000, description="Tokens added to every benchmark's max_tokens "
                                  "for a reasoning model's thinking (docs/engines.md has guidance per benchmark)")
    model: str | None = Field(None, description="Model name the server knows; default: the run entry's model")
    api_key_file: Path | None = Field(None, description="File holding the bearer token, if the server wants one")
    max_concurrency: int = Field(16, ge=1, le=1024, description="Requests in flight to this endpoint at most")
    timeout_s: float = Field(120.0, gt=0, le=3600, description="Per-request timeout in seconds")
    max_retries: int = Field(3, ge=0, le=20, description="Retries on 429, 5xx, timeouts and dropped connections")
    max_reply_bytes: int = Field(8 << 20, ge=1024, le=1 << 30, description="A reply larger than this is stored as "
                                 "failed (reply_too_large) instead of read into memory")
    price: Price | None = Field(None, description="What the endpoint costs (cost per run and per 1,000 instances); "
                                "none: no cost is shown")

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018  (raises ValueError for a port that is not a number from 0 to 65535)
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL with a host and, optionally, a numeric port, "
                             "e.g. http://127.0.0.1:8000/v1")
        return value.rstrip("/")

    @property
    def host_port(self) -> tuple[str, int]:
        """The (host, port) this deployment connects to; what the egress allowlist holds."""
        parts = urlsplit(self.base_url)
        default = 443 if parts.scheme == "https" else 80
        return (parts.hostname or "", parts.port or default)

    def api_key(self) -> str:
        """The bearer token from `api_key_file`, or a placeholder local servers ignore."""
        if self.api_key_file is None:
            return "EMPTY"
        try:
            return self.api_key_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(
                f"cannot read the API key file ({exc.strerror})",
                where=str(self.api_key_file),
                fix="check the path and its permissions in the deployment's api_key_file",
            ) from None


class JuryJudge(BaseModel):
    """One judge of a jury: a deployment, optionally with its own model name and request limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    deployment: str = Field(min_length=1, description="A deployment on the egress allowlist with purpose judge")
    model: str | None = Field(None, description="Model name the server knows; default: the deployment's model")
    max_concurrency: int | None = Field(None, ge=1, le=1024, description="Judge requests in flight at most; "
                                        "default and cap: the deployment's max_concurrency")


class Jury(BaseModel):
    """A named jury: the judge deployments that rate open-ended answers by a benchmark's rubric."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judges: list[str | JuryJudge] = Field(min_length=1, description="Judge deployments (names, or tables with "
                                          "deployment, model, max_concurrency)")

    @property
    def members(self) -> list[JuryJudge]:
        """Every judge as a JuryJudge."""
        return [JuryJudge(deployment=j) if isinstance(j, str) else j for j in self.judges]

    @model_validator(mode="after")
    def _distinct(self) -> Jury:
        names = [j.deployment for j in self.members]
        if len(set(names)) != len(names):
            raise ValueError("a judge deployment is listed twice")
        return self


class Settings(BaseSettings):
    """Everything medhelm-local reads from its environment. Each field has a help line."""

    model_config = SettingsConfigDict(
        env_prefix="MEDHELM_",
        env_nested_delimiter="__",
        extra="forbid",
        secrets_dir=None,
    )

    data_root: Path = Field(default_factory=default_data_root, description="Folder holding benchmark datasets")
    output_dir: Path = Field(Path("medhelm-results"), description="Folder where suite stores are written")
    kek_file: Path | None = Field(None, description="File holding the key-encryption key (a mounted Secret)")
    kek: SecretStr | None = Field(None, description="Key-encryption key itself (development only)")
    deployments: dict[str, Deployment] = Field(default_factory=dict, description="Model deployments by name")
    benchmark_cards: list[Path] = Field(default_factory=list, description="Benchmark card files or folders "
                                        "(a hospital's own benchmarks)")
    store_memory_limit: str | None = Field(None, description="DuckDB memory limit for stores, e.g. '4GB'; "
                                           "beyond it queries spill encrypted temp files. Unset, a run uses 32MB for "
                                           "texts up to 9 KB, 40MB up to 12 KB, 48MB up to ~16 KB, else room for "
                                           "2 x 2,048 of the longest; a report 256MB or what its longest texts need; "
                                           "other commands DuckDB's default")
    policy_dir: Path = Field(default_factory=lambda: _installed_policy_dir(), description="Folder of policy YAML "
                             "files (egress allowlist, export rules, retention, roles); default: the installed policy")
    redaction_dir: Path = Field(default_factory=default_redaction_dir, description="Folder of redaction rule packs")
    log_file: Path | None = Field(None, description="Append operational logs here (never PHI)")
    signing_key_file: Path | None = Field(None, description="Export signing key (Ed25519, sealed under the KEK), "
                                          "made by `medhelm-local keys signing-init`")
    juries: dict[str, Jury] = Field(default_factory=dict, description="LLM juries by name: the judge deployments "
                                    "that rate open-ended answers")
    jury: str | None = Field(None, description="The jury `run` and `judge` use unless --jury names another; none: "
                             "jury-scored benchmarks stay unjudged until `medhelm-local judge`")
    judge_map: dict[str, str] = Field(default_factory=dict, description="MedHELM judge names (in a jury_config_path "
                                      "file) -> the local judge deployments that stand in for them")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # No dotenv source: implicit configuration has no place in a hospital appliance.
        config_file = InitSettingsSource(settings_cls, init_kwargs=_file_values.get() or {})
        return (init_settings, env_settings, config_file, file_secret_settings)


def _read_toml(path: Path) -> dict[str, Any]:
    from medhelm_local.safe_parse import decode, parse_toml, read_bounded

    what = "config file"
    data = read_bounded(path, what, if_missing="create it (see README 'Configuration') or name the right config "
                                               "file")
    return parse_toml(decode(data, str(path), what), str(path), what)


def _origin(top: str, flags: dict[str, Any], file_values: dict[str, Any], path: Path | None,
            from_cli: bool = False) -> str:
    """Which source supplied a top-level setting, so the message sends the user to the right place: the
    overrides are the command's flags from the CLI, and keyword arguments from Python (`load_settings(x=...)`,
    `evaluate(output_dir=...)`), which have no command line to point at."""
    if top in flags:
        return f"command-line option for {top}" if from_cli else f"argument {top}="
    prefix = f"MEDHELM_{top.upper()}"
    env = sorted(n for n in os.environ if n.upper() == prefix or n.upper().startswith(prefix + "__"))
    if env:
        return f"environment variable {', '.join(env)}"
    if top in file_values:
        return f"config file {path}"
    return "secrets directory" if top == "kek" else f"config file {path}" if path else "settings"


def _describe(exc: ValidationError, origin_of: Any) -> ConfigError:
    errors, meant = typo_first(exc.errors(), Settings.model_fields)
    first = errors[0]
    loc = tuple(first["loc"])
    key = ".".join(str(p) for p in loc) or "(top level)"
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = "unknown setting" + (f" (did you mean '{meant}'?)" if meant else "")
    return ConfigError(
        f"setting '{key}' is invalid: {msg}" + (f" ({len(errors) - 1} more)" if len(errors) > 1 else ""),
        where=origin_of(str(loc[0]) if loc else ""),
        fix="correct or remove it; `medhelm-local doctor` lists every setting with its help line",
    )


# Settings that no longer exist because they must not be chosen per command: name -> where it went.
_RETIRED = {"audit_store": "the audit log's place is part of the installation, fixed by IT in "
                           "<install prefix>/etc/medhelm-local/installation.toml (`medhelm-local doctor` shows it)"}


def _refuse_retired(file_values: dict[str, Any], path: Path | None) -> None:
    for name, moved in _RETIRED.items():
        env = f"MEDHELM_{name.upper()}"
        found = (f"environment variable {env}" if env in os.environ
                 else f"config file {path}" if name in file_values else None)
        if found:
            raise ConfigError(f"'{name}' is no longer a setting: {moved}", where=found,
                              fix="remove it: every command writes to the installation's audit log")


def _refuse_shared_secret_key(secrets_dir: Path) -> None:
    """A KEK in the secrets directory is held to the same rule as `kek_file`: only its owner may read it."""
    try:
        entries = [e for e in secrets_dir.iterdir() if e.name.lower() == "medhelm_kek" and e.is_file()]
        modes = [(entry, entry.stat()) for entry in entries]
    except OSError:
        return  # an unreadable directory supplies nothing; pydantic-settings reads it the same way
    for entry, status in modes:
        shared = shared_with(status)
        if shared is not None:
            raise StoreKeyError(f"the key-encryption key in the secrets directory may be read or changed by {shared}, "
                                "so it is not used: whoever reads it can open every store", where=str(entry),
                                fix=f"run `chmod 600 {entry}` (in Kubernetes, mount the Secret with defaultMode 0400, "
                                    "as the Helm chart does)")


def load_settings(config: str | Path | None = None, *, _from_cli: bool = False, **overrides: Any) -> Settings:
    """Build Settings from flags (`overrides`), environment, the config file and secrets. `config`: the TOML
    config file (default: MEDHELM_CONFIG, else the user's config.toml if it exists). `_from_cli`: the overrides
    are a command's options, so an error names the option rather than a keyword argument."""
    config = None if config is None else Path(config)
    path = config or (Path(os.environ["MEDHELM_CONFIG"]) if os.environ.get("MEDHELM_CONFIG") else None)
    file_values: dict[str, Any] = {}
    if path is not None:
        file_values = _read_toml(path)
    elif default_config_path().is_file():
        path = default_config_path()
        file_values = _read_toml(path)
    _refuse_retired(file_values, path)
    secrets_env = os.environ.get("MEDHELM_SECRETS_DIR")
    secrets_dir = Path(secrets_env) if secrets_env else DEFAULT_SECRETS_DIR
    values = {k: v for k, v in overrides.items() if v is not None}
    if secrets_dir.is_dir():
        _refuse_shared_secret_key(secrets_dir)
    token = _file_values.set(file_values)
    try:
        return Settings(
            _secrets_dir=secrets_dir if secrets_dir.is_dir() else None,
            **values,
        )
    except ValidationError as exc:
        raise _describe(exc, lambda top: _origin(top, values, file_values, path, _from_cli)) from None
    finally:
        _file_values.reset(token)


def settings_for(config: Settings | str | Path | None = None, **overrides: Any) -> Settings:
    """Settings as a command builds them: `config` as a Settings object, or a TOML config file (default: the
    MEDHELM_CONFIG file, else the user's config.toml), with `overrides` (None: not given) on top."""
    if isinstance(config, Settings):
        given = {name: value for name, value in overrides.items() if value is not None}
        return config.model_copy(update=given) if given else config
    if config is not None and not isinstance(config, (str, Path)):
        raise ConfigError(f"config must be a Settings object or the path of a config file, not {type(config).__name__}",
                          where="config", fix="pass load_settings(...) or a path such as 'config.toml'")
    return load_settings(None if config is None else Path(config), **overrides)
