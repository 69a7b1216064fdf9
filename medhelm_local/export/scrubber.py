"""Redaction as the export gate applies it: every free-text value, then a rescan of what came out.

A value is redacted with the policy's style (masks or per-document surrogates); the scrubber
remembers where it put each replacement and scans the output again, with the configured rule pack
and also with the shipped one (`floor`), so a weakened pack cannot weaken the check. Anything found
outside those replacements is a residual: the gate refuses the export and names where it was
(artifact, run, pseudonymous instance, field, identifier type), never the text.
Instance ids of redacted data become pseudonyms, keyed by a secret made for this export alone,
so the same instance has the same pseudonym in every file of one bundle and in no other bundle.
An export under a human review (`review.py`) uses the review's secret instead, so it rebuilds the very
text the reviewer saw; it also masks the strings the reviewer flagged (`manual`), and keeps every
redacted value with where each replacement sits (`marks`), which is what the review shows and digests.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from medhelm_local.redact import Detector, DocumentSurrogates, PhiType, Policy, Span
from medhelm_local.redact.detector import detector_for_pack, surrogate_policy
from medhelm_local.redact.pack import RulePack, read_rule_pack
from medhelm_local.redact.surrogates import replace_spans
from medhelm_local.settings import default_redaction_dir


@dataclass(frozen=True)
class Residual:
    """Where the rescan still found something: enough to find it in the store, nothing of its text."""

    artifact: str
    run_id: str
    instance: str
    field: str
    type: str
    note: str = ""

    def describe(self) -> str:
        """One line for messages and the audit record."""
        return (f"{self.artifact}: run {self.run_id}, instance {self.instance}, field {self.field}: {self.type}"
                + (f" ({self.note})" if self.note else ""))


@dataclass(frozen=True)
class Marked:
    """One redacted value as it leaves, and each replacement in it: (start, end, identifier type)."""

    where: tuple[str, str, str, str]  # artifact, run, pseudonymous instance, field
    text: str
    marks: tuple[tuple[int, int, str], ...]


@dataclass
class Scrubber:
    """Redacts values for one export, counting what it replaced and collecting residuals."""

    detector: Detector
    style: str  # "mask" or "surrogate"
    policy: Policy
    floor: Detector | None = None  # the shipped rule pack: the rescan is never weaker than it
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    counts: Counter[str] = field(default_factory=Counter)
    residuals: list[Residual] = field(default_factory=list)
    _documents: dict[str, DocumentSurrogates] = field(default_factory=dict)
    # Strings a reviewer flagged as missed identifiers, masked wherever they stand (review.py).
    manual: tuple[tuple[str, PhiType], ...] = ()
    # When a list: every redacted value is kept in it, with its replacements (what a review shows).
    marked: list[Marked] | None = None

    def pseudonym(self, run_id: str, instance_id: str) -> str:
        """A stable, irreversible stand-in for an instance id within this export."""
        digest = hmac.new(self.secret, f"{run_id}\0{instance_id}".encode(), hashlib.sha256).hexdigest()
        return f"i-{digest[:16]}"

    def text(self, value: str | None, doc: str, where: tuple[str, str, str, str]) -> str | None:
        """`value` redacted; `doc` groups values whose surrogates must agree (one instance's texts)."""
        if not value:
            return value
        spans = self.detector.detect(value)
        spans += _manual_spans(value, self.manual, spans)
        out, inserted = replace_spans(value, spans, lambda span: self._replacement(value, span, doc))
        for span in spans:
            self.counts[span.type.value] += 1
        if self.marked is not None:
            self.marked.append(Marked(where, out, tuple((start, end, span.type.value) for (start, end), span
                                                        in zip(inserted, sorted(spans), strict=True))))
        for found in self._scan(out):
            outside = _outside(out, found, inserted)
            if any(ch.isalnum() for ch in outside):
                self.residuals.append(Residual(*where, found.type.value))
        return out

    def _scan(self, text: str) -> list[Span]:
        """What the rule pack, and the shipped pack beneath it, find in `text`."""
        found = self.detector.detect(text)
        if self.floor is not None and self.floor is not self.detector:
            found += self.floor.detect(text)
        return found

    def check(self, value: str | None, where: tuple[str, str, str, str], note: str) -> None:
        """Scan a value that leaves as it is; each identifier type found in it is a residual."""
        if value:
            for kind in sorted({span.type.value for span in self._scan(value)}):
                self.residuals.append(Residual(*where, kind, note))

    def json_text(self, value: str | None, doc: str, where: tuple[str, str, str, str]) -> str | None:
        """A JSON document with every string in it redacted (references, extra fields)."""
        if value is None:
            return None
        return json.dumps(self._walk(json.loads(value), doc, where), ensure_ascii=False)

    def _walk(self, node: Any, doc: str, where: tuple[str, str, str, str]) -> Any:
        if isinstance(node, str):
            return self.text(node, doc, where)
        if isinstance(node, list):
            return [self._walk(item, doc, where) for item in node]
        if isinstance(node, dict):
            return {key: self._walk(item, doc, where) for key, item in node.items()}
        return node

    def _replacement(self, text: str, span: Span, doc: str) -> str:
        original = text[span.start:span.end]
        if self.style == "mask":
            return self.policy.mask_format.format(type=span.type.value)
        surrogates = self._documents.get(doc)
        if surrogates is None:
            surrogates = DocumentSurrogates(self.secret, doc, self.policy, self.detector.words)
            self._documents[doc] = surrogates
        return surrogates.surrogate(original, span.type)


def scrubber_for(style: str, pack: RulePack, secret: bytes | None = None,
                 manual: tuple[tuple[str, PhiType], ...] = ()) -> Scrubber:
    """A scrubber for one export or redacted copy: the rule pack `pack` (as read once, the bytes its digest
    covers) redacts; the shipped pack joins the rescan as its floor. A review's export passes its secret
    and the reviewer's manual masks."""
    floor = detector_for_pack(read_rule_pack(default_redaction_dir().resolve()))
    scrubber = Scrubber(detector_for_pack(pack), style, surrogate_policy(pack), floor=floor, manual=manual)
    if secret is not None:
        scrubber.secret = secret
    return scrubber


def _manual_spans(text: str, manual: tuple[tuple[str, PhiType], ...], found: list[Span]) -> list[Span]:
    """Every place a flagged string stands in `text`, longest strings first, where no other span is."""
    taken = [(s.start, s.end) for s in found]
    spans: list[Span] = []
    for value, kind in sorted(manual, key=lambda m: -len(m[0])):
        start = text.find(value) if value else -1
        while start >= 0:
            end = start + len(value)
            if all(end <= a or start >= b for a, b in taken):
                spans.append(Span(start, end, kind))
                taken.append((start, end))
            start = text.find(value, end)
    return spans


def _outside(text: str, span: Span, inserted: list[tuple[int, int]]) -> str:
    """The characters of `span` that are not inside any inserted replacement."""
    covered = [False] * (span.end - span.start)
    for start, end in inserted:
        for i in range(max(start, span.start), min(end, span.end)):
            covered[i - span.start] = True
    return "".join(ch for ch, hit in zip(text[span.start:span.end], covered, strict=True) if not hit)
