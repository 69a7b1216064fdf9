"""A redaction rule pack as read once: every file's bytes, from which both its digest and its detector come.

`policy approve` pins the pack by its digest, and the export gate redacts with it. Both come from one
`RulePack`, read in one pass of regular files (`trusted_files`), so the rules that redact are the
rules that were pinned: a FIFO or a file swapped between two reads cannot split them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.redact.patterns import RedactionRuleError
from medhelm_local.trusted_files import decode_text, read_regular

_FIX_FOLDER = "check the redaction_dir setting, and that the rule pack folder holds only files and folders"


@dataclass(frozen=True)
class RulePack:
    """Every file of a rule pack folder (path relative to it, with `/`) and its bytes, read once."""

    folder: Path
    files: Mapping[str, bytes]

    @property
    def digest(self) -> str:
        """sha256 over every file (names and bytes): the redactor's version that approvals pin."""
        h = hashlib.sha256()
        for name in sorted(self.files, key=lambda n: Path(n).parts):
            h.update(f"{name}\0".encode() + hashlib.sha256(self.files[name]).digest())
        return h.hexdigest()

    def has(self, name: str) -> bool:
        """Whether the pack holds the file `name` (e.g. "surrogates.yaml")."""
        return name in self.files

    def path(self, name: str) -> Path:
        """Where `name` was read from (for messages)."""
        return self.folder / name

    def text(self, name: str, what: str = "redaction rule file") -> str:
        """The text of one file of the pack; RedactionRuleError if the pack lacks it or it is not UTF-8."""
        if name not in self.files:
            raise RedactionRuleError(f"the rule pack has no file {name}", where=str(self.path(name)),
                                     fix="check the redaction_dir setting and that the rule pack is complete")
        return decode_text(self.files[name], self.path(name), what, RedactionRuleError)


def read_rule_pack(folder: Path) -> RulePack:
    """Read every file under `folder` once; RedactionRuleError for a missing folder, a FIFO, device, socket,
    dangling symlink or symlinked folder in it."""
    if not folder.is_dir():
        raise RedactionRuleError("the redaction rule pack folder does not exist", where=str(folder), fix=_FIX_FOLDER)
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_dir():
            if path.is_symlink():
                # rglob does not enter it, so its files would be used by nobody's digest.
                raise RedactionRuleError("the rule pack holds a symlinked folder, which would be read without being "
                                         "pinned", where=str(path), fix="copy the folder into the rule pack")
            continue
        files[path.relative_to(folder).as_posix()] = read_regular(path, "redaction rule file", RedactionRuleError)
    return RulePack(folder, files)
