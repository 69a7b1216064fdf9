"""PHI detection: regex rules for shaped identifiers, token rules with dictionaries for names and places.

Capital letters are evidence only on lines written in mixed case; on ALL-CAPS or all-lower lines
(nursing notes, transcripts) a word counts as a name only through a dictionary and its ambiguity
tier, or a cue (a title, a relation, a credential). A name found once marks its other mentions.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from medhelm_local.redact.addresses import AddressRules
from medhelm_local.redact.dictionaries import load_dictionaries
from medhelm_local.redact.patterns import find_pattern_spans, load_rules
from medhelm_local.redact.tokens import fold, tokenize
from medhelm_local.redact.types import Span, merge_spans


class Detector(AddressRules):
    """Finds PHI spans in text with one rule pack (rules.yaml plus dictionaries)."""

    @classmethod
    def from_dir(cls, folder: Path) -> Detector:
        """A detector for the rule pack in `folder` (rules.yaml and dictionaries/)."""
        return cls(load_rules(folder / "rules.yaml"), load_dictionaries(folder / "dictionaries"))

    def detect(self, text: str) -> list[Span]:
        """Typed PHI spans in `text`: sorted, merged, non-overlapping, end-exclusive code-point offsets."""
        spans = find_pattern_spans(fold(text), self.rules)  # accents off, offsets kept
        tokens = tokenize(text)
        spans += self._names(tokens)
        spans += self._streets(tokens) + self._facilities(tokens) + self._cities(tokens)
        spans += self._second_pass(text, tokens, merge_spans(spans))
        return merge_spans(spans)


@lru_cache(maxsize=4)
def detector_for(folder: Path) -> Detector:
    """A cached detector for a rule-pack folder (loading takes ~0.2 s; detecting does not reload)."""
    return Detector.from_dir(folder)


def detect(text: str, folder: Path | None = None) -> list[Span]:
    """PHI spans in `text` using the rule pack in `folder` (default: the `redaction_dir` default)."""
    from medhelm_local.settings import default_redaction_dir

    return detector_for((folder or default_redaction_dir()).resolve()).detect(text)
