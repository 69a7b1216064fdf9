"""What a rater is shown of a run's text: as their role's policy says (roles.yaml, `sensitive_text`).

    public runs       the text as stored: published benchmarks carry no patient's identifiers
    gated, private    `full`: as stored; `redacted` (the default): input, answer and reference with every
                      identifier the redaction rule pack finds masked ([NAME], [DATE]), as an export masks them
    anything else     an access level this program does not know, or a role the policy no longer lists, is
                      treated as the strictest case: redacted

Masks, not surrogates, whatever the export policy's style: a rater must see that a name was there and was
removed, not read a made-up one as the patient's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from medhelm_local.raters.campaigns import RatingItem

if TYPE_CHECKING:
    from medhelm_local.policy.file_schemas import Role
    from medhelm_local.redact import Detector

FULL = "full"
PUBLIC = "public"
SENSITIVE = ("gated", "private")


@dataclass
class TextView:
    """Per role, how gated and private text is shown (read from the policy once, when the viewer starts)."""

    views: Mapping[str, str]  # role -> redacted | full
    redaction_dir: Path
    _detector: Detector | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def sees_full_text(self, role: str, access: str) -> bool:
        """True when a rater in `role` sees a run of `access` as stored."""
        return access == PUBLIC or (access in SENSITIVE and self.views.get(role) == FULL)

    def shown(self, item: RatingItem, role: str) -> RatingItem:
        """The item as a rater in `role` may see it."""
        if self.sees_full_text(role, item.access):
            return item
        return replace(item, input=self.redact(item.input), answer=self.redact(item.answer),
                       reference=None if item.reference is None else self.redact(item.reference))

    def redact(self, text: str) -> str:
        """`text` with every identifier the rule pack finds masked."""
        from medhelm_local.redact import mask

        return mask(text, self.detector().detect(text)) if text else text

    def detector(self) -> Detector:
        """The rule pack's detector, built on first use (it takes a moment) and kept."""
        with self._lock:
            if self._detector is None:
                from medhelm_local.redact import detector_for

                self._detector = detector_for(self.redaction_dir.resolve())
            return self._detector


def text_view(roles: Mapping[str, Role], redaction_dir: Path) -> TextView:
    """The view of each of the policy's roles (`Role.sensitive_text`)."""
    return TextView({name: role.sensitive_text for name, role in roles.items()}, redaction_dir)
