"""Every error medhelm-local raises on purpose, in one tree.

Each message says what is wrong, where, and what to do next; the CLI prints it without a
traceback and exits non-zero. Errors never quote patient text: they name files, fields,
row numbers and ids only.

    MedhelmError                      exit 2 unless noted
    ├── ConfigError                   a settings value or config file is wrong
    ├── RunEntryError                 a run entry string or its arguments are malformed
    ├── ScenarioError
    │   ├── UnknownScenarioError      no benchmark registered under that name
    │   ├── DatasetMissingError       a dataset file is not in the data root
    │   ├── DatasetCorruptError       a file's sha256 differs from the manifest, or it does not parse
    │   ├── DataImportError           `data import` cannot copy a folder or bundle
    │   └── DataStageError            `data stage` cannot fetch a published file
    ├── DeploymentError               unknown model deployment or bad endpoint settings
    ├── EndpointUnreachableError      nothing answered at a deployment's URL (exit 3)
    ├── AllRequestsFailedError        every request of a run failed; all stored as failed (exit 6)
    ├── EgressRefusedError            a connection to a host:port outside the allowlist
    ├── ExportRefusedError            the export gate refused: role, access level, residual PHI (exit 5)
    ├── IntegrityError                a signature, file hash or audit chain does not check out (exit 4)
    ├── OutputError                   a file or folder cannot be written: disk full, no permission, read-only
    ├── StoreKeyError                 the key-encryption key is missing, malformed or wrong
    │   └── SigningKeyError           the export signing key or a public key is missing or unusable
    └── StoreError
        ├── StoreNotFoundError        no store at the given path
        ├── NotAStoreError            the file is not a medhelm-local store
        ├── StoreNotEncryptedError    the file is a DuckDB file without GCM encryption
        ├── StoreLockedError          another process holds the store open for writing
        ├── StoreSchemaError          the store was written by an unknown schema version
        └── StoreCorruptError         a page of the store does not decrypt or check out (exit 4)

    MedhelmWarning (a UserWarning)    something the user must know that does not stop the command:
                                      a torn write-ahead log, an audit sink that could not be reached
"""

from __future__ import annotations


class MedhelmError(Exception):
    """Base of every expected error; `str(err)` is the full user-facing message."""

    exit_code: int = 2

    def __init__(self, what: str, *, where: str | None = None, fix: str | None = None) -> None:
        self.what = what
        self.where = where
        self.fix = fix
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """What is wrong, where, and what to do, as one paragraph."""
        parts = [self.what.rstrip(".") + "."]
        if self.where:
            parts.append(f"Where: {self.where}.")
        if self.fix:
            parts.append(f"What to do: {self.fix.rstrip('.')}.")
        return " ".join(parts)


class ConfigError(MedhelmError):
    """A settings value, environment variable or config file does not validate."""


class RunEntryError(MedhelmError):
    """A run entry (`scenario:arg=value,model=...`) is malformed."""


class ScenarioError(MedhelmError):
    """A benchmark cannot be loaded."""


class UnknownScenarioError(ScenarioError):
    """No benchmark is registered under the requested name."""


class DatasetMissingError(ScenarioError):
    """A file a benchmark needs is not in the data root."""


class DatasetCorruptError(ScenarioError):
    """A dataset file differs from its manifest or cannot be parsed."""


class DataImportError(ScenarioError):
    """`data import` cannot copy a dataset folder or bundle."""


class DataStageError(ScenarioError):
    """`data stage` cannot fetch a published dataset file (missing at the source, or the connection failed)."""


class DeploymentError(MedhelmError):
    """A model deployment is unknown or its settings are unusable."""


class EndpointUnreachableError(MedhelmError):
    """Nothing answered at a deployment's URL."""

    exit_code = 3


class AllRequestsFailedError(MedhelmError):
    """Every request of a run failed: nothing could be scored (each failure is stored with its reason)."""

    exit_code = 6


class EgressRefusedError(MedhelmError):
    """A connection to a host:port outside the allowlist was refused before any socket opened."""


class ExportRefusedError(MedhelmError):
    """The export gate refused to let anything leave; the refusal is in the audit log."""

    exit_code = 5


class IntegrityError(MedhelmError):
    """Something signed or chained was changed: a bundle file, its manifest, or an audit record."""

    exit_code = 4


class OutputError(MedhelmError):
    """A file or folder the command writes cannot be written (a full disk, no permission, a read-only file
    system); nothing half-written is left in its place."""


class StoreKeyError(MedhelmError):
    """The key-encryption key is missing, malformed, or does not open this store."""


class SigningKeyError(StoreKeyError):
    """The export signing key (or the public key given to verify) is missing or unusable."""


class StoreError(MedhelmError):
    """A result store cannot be used."""


class StoreNotFoundError(StoreError):
    """No store exists at the given path."""


class NotAStoreError(StoreError):
    """The file is not a medhelm-local store."""


class StoreNotEncryptedError(StoreError):
    """The file is a DuckDB database that is not encrypted with AES-GCM."""


class StoreLockedError(StoreError):
    """Another process has the store open for writing."""


class StoreSchemaError(StoreError):
    """The store's schema version is not one this program knows."""


class StoreCorruptError(StoreError):
    """A page of the store (or its write-ahead log) does not decrypt or fails its checksum: damaged on disk."""

    exit_code = 4


class MedhelmWarning(UserWarning):
    """A condition the user must hear about that does not stop the command; the CLI prints it."""
