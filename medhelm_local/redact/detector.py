"""PHI detection: regex rules for shaped identifiers, token rules with dictionaries for names and places.

Capital letters are evidence only on lines written in mixed case; on ALL-CAPS or all-lower lines
(nursing notes, transcripts) a word counts as a name only through a dictionary and its ambiguity
tier, or a cue (a title, a relation, a credential). A name found once marks its other mentions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from medhelm_local.redact.dictionaries import load_dictionaries
from medhelm_local.redact.nursing import NursingRules
from medhelm_local.redact.patterns import drop_negatives, find_pattern_spans, load_rules
from medhelm_local.redact.surrogates import load_policy
from medhelm_local.redact.tokens import Token, fold, tokenize
from medhelm_local.redact.types import PhiType, Span, merge_spans

DEFAULT_MASK = "[{type}]"


def mask_regex(*mask_formats: str) -> re.Pattern[str]:
    """A regex for the masks that `mask()` writes with these formats ("[NAME]", "<DATE>")."""
    kinds = "|".join(sorted((t.value for t in PhiType), key=len, reverse=True))
    forms = []
    for form in dict.fromkeys(mask_formats):
        before, _, after = form.partition("{type}")
        forms.append(f"{re.escape(before)}(?:{kinds}){re.escape(after)}")
    return re.compile("|".join(forms))


class Detector(NursingRules):
    """Finds PHI spans in text with one rule pack (rules.yaml plus dictionaries).

    Masks already in the text ("[NAME]", and the pack's own mask_format) are blanked before the rules
    run and never lie inside a span, so `detect(mask(text, detect(text)))` finds nothing new around them.
    """

    masks: re.Pattern[str] = mask_regex(DEFAULT_MASK)

    @classmethod
    def from_dir(cls, folder: Path) -> Detector:
        """A detector for the rule pack in `folder` (rules.yaml, dictionaries/, vocabulary/, and surrogates.yaml
        if there)."""
        detector = cls(load_rules(folder / "rules.yaml"),
                       load_dictionaries(folder / "dictionaries", folder / "vocabulary"))
        if (folder / "surrogates.yaml").exists():
            detector.masks = mask_regex(DEFAULT_MASK, load_policy(folder / "surrogates.yaml").mask_format)
        return detector

    def detect(self, text: str) -> list[Span]:
        """Typed PHI spans in `text`: sorted, merged, non-overlapping, end-exclusive code-point offsets."""
        masks = [m.span() for m in self.masks.finditer(text)]
        if not masks:
            return self._detect(text, tokenize(text))
        # Same length, so offsets hold: the rules see "[____]" ("_" is neither a word, a digit nor
        # punctuation to them), the case test sees "Xxxxxx" (a mask stands for a capitalised word).
        blank = self.masks.sub(lambda m: m.group()[0] + "_" * (len(m.group()) - 2) + m.group()[-1], text)
        as_word = self.masks.sub(lambda m: "X" + "x" * (len(m.group()) - 1), text)
        return _outside(self._detect(blank, tokenize(blank, as_word)), masks)

    def _detect(self, text: str, tokens: list[Token]) -> list[Span]:
        spans = find_pattern_spans(fold(text), self.rules)  # accents off, offsets kept
        spans += self._names(tokens)
        spans += self._streets(tokens) + self._facilities(tokens) + self._cities(tokens)
        spans += self._inhouse(text, tokens) + self._nursing_names(text, tokens)
        spans = self._second_pass(text, tokens, merge_spans(spans))
        spans = self._stretch_places(tokens, merge_spans(spans))
        return merge_spans(drop_negatives(fold(text), spans, self.rules))


def _outside(spans: list[Span], masks: list[tuple[int, int]]) -> list[Span]:
    """The parts of `spans` that lie outside every mask."""
    out = []
    for span in spans:
        start = span.start
        for a, b in masks:
            if b <= start or a >= span.end:
                continue
            if a > start:
                out.append(Span(start, a, span.type))
            start = max(start, b)
        if start < span.end:
            out.append(Span(start, span.end, span.type))
    return [s for s in out if s.end > s.start]


@lru_cache(maxsize=4)
def detector_for(folder: Path) -> Detector:
    """A cached detector for a rule-pack folder (loading takes ~0.2 s; detecting does not reload)."""
    return Detector.from_dir(folder)


def detect(text: str, folder: Path | None = None) -> list[Span]:
    """PHI spans in `text` using the rule pack in `folder` (default: the `redaction_dir` default)."""
    from medhelm_local.settings import default_redaction_dir

    return detector_for((folder or default_redaction_dir()).resolve()).detect(text)
