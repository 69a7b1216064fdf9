"""The regular-expression half of PHI detection: rules read from `redaction/rules.yaml`, checked to run
in linear time, and applied with small validators (a date must be a real date, an IP a real address)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# The standard library's own regex parser: the safety check reads the same tree `re` compiles.
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from medhelm_local.errors import ConfigError
from medhelm_local.redact.regex_lowered import lowered_twin
from medhelm_local.redact.regex_speed import compile_fast
from medhelm_local.redact.regex_starts import Starts
from medhelm_local.redact.regex_windows import tried, where_tried, word_tree
from medhelm_local.redact.tokens import fold
from medhelm_local.redact.types import PhiType, Span
from medhelm_local.redact.validators import VALIDATORS, unit_follows
from medhelm_local.safe_parse import read_bounded
from medhelm_local.yaml_lines import parse_located


class RedactionRuleError(ConfigError):
    """A redaction rule pack is missing, does not validate, or holds an unsafe pattern."""


class PatternRule(BaseModel):
    """One regex detector: `type` for what it finds, `check` for its validator, `group` for its span."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    type: PhiType
    regex: str
    check: str | None = None
    group: str | None = None
    requires: list[str] | None = None  # run only when the lower-case text holds one of these (for speed)
    split: bool = False  # the span is a list ("94, 02", "05 AND 06"): each run of digits in it is a span of its own


class NegativeRule(BaseModel):
    """A shape that is never PHI (a shift-time range, a ventilator setting): spans inside it are dropped."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    regex: str
    requires: list[str] | None = None


class ContextWords(BaseModel):
    """Words the token rules look for around a candidate (see rules.yaml for each list's meaning)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    titles_abbrev: list[str]
    titles_word: list[str]
    name_labels: list[str]
    name_verbs: list[str]
    relations: list[str]
    credentials: list[str]
    greetings: list[str]
    place_cues: list[str]
    facility_words: list[str]
    facility_names: list[str] = []
    facility_names_anywhere: list[str] = []
    facility_generic: list[str]
    street_suffixes: list[str]
    street_units: list[str]
    street_prefixes: list[str]
    street_compounds: list[str]
    address_cues: list[str]
    place_labels: list[str]
    eponym_followers: list[str]
    eponym_nouns: list[str] = []  # more nouns an eponym names, which the vocabulary build does not read
    score_words: list[str]
    units: list[str]
    date_cues: list[str]
    event_words: list[str]
    fraction_words: list[str]
    zip_labels: list[str]
    states: list[str]
    regions: list[str] = []  # provinces, territories and nations, which Safe Harbor treats as it does a state


class RuleFile(BaseModel):
    """The whole of rules.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[1]
    macros: dict[str, str]
    patterns: list[PatternRule]
    negatives: list[NegativeRule] = []
    labels: dict[PhiType, list[str]]
    context: ContextWords


_ATOMS = {sre_constants.LITERAL, sre_constants.NOT_LITERAL, sre_constants.IN, sre_constants.ANY,
          sre_constants.CATEGORY}
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
MAX_BOUND = 2000


def unsafe_reason(regex: str) -> str | None:
    """Why `regex` could backtrack super-linearly (a repeated group or an unbounded repeat), or None."""
    try:
        parsed = sre_parser.parse(regex, re.IGNORECASE)
    except re.error as exc:
        return f"it does not compile ({exc})"
    return _walk(list(parsed))


def _walk(items: list[tuple[Any, Any]]) -> str | None:
    for op, av in items:
        if op in _REPEATS:
            _low, high, sub = av
            if high == sre_constants.MAXREPEAT or high > MAX_BOUND:
                return "it has an unbounded repeat (+, * or {n,}); give it an upper bound such as {1,64}"
            if high > 1 and not (len(sub) == 1 and sub[0][0] in _ATOMS):
                return "it repeats a group; repeat single characters or classes only"
            found = _walk(list(sub))
        elif op == sre_constants.SUBPATTERN:
            found = _walk(list(av[-1]))
        elif op == sre_constants.BRANCH:
            found = next((r for r in (_walk(list(b)) for b in av[1]) if r), None)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            found = _walk(list(av[1]))
        else:
            found = None
        if found:
            return found
    return None


@dataclass(frozen=True)
class CompiledPattern:
    """A checked, compiled PatternRule."""

    rule: PatternRule
    regex: re.Pattern[str]
    requires: tuple[str, ...] = ()
    starts: str | None = None  # None: searched as written; else tried at digits (regex_starts.start_kind)
    window: tuple[int, int, int] | None = None  # searched near its digits (regex_windows.window); starts None only
    gate: re.Pattern[str] | None = None  # what every match holds (regex_windows.digit_gate); neither of the above
    twin: re.Pattern[str] | None = None  # the same rule for the lower-case copy of an ASCII note (regex_lowered)

    def may_match(self, lower_text: str) -> bool:
        """False when the text holds none of the literals the pattern needs, so it cannot match."""
        if not self.requires:
            return True
        for literal in self.requires:  # a loop, not any() over a generator: asked ~30 times a note
            if literal in lower_text:
                return True
        return False


@dataclass(frozen=True)
class CompiledNegative:
    """A checked, compiled NegativeRule, with where it can start as for CompiledPattern."""

    regex: re.Pattern[str]
    requires: tuple[str, ...]
    starts: str | None
    window: tuple[int, int, int] | None
    gate: re.Pattern[str] | None
    twin: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Rules:
    """A loaded rule pack: compiled patterns, the label regex, and context word sets."""

    source: Path
    patterns: tuple[CompiledPattern, ...]
    negatives: tuple[CompiledNegative, ...]
    label_regex: re.Pattern[str]
    label_types: dict[str, PhiType]
    context: ContextWords
    sets: dict[str, frozenset[str]]
    label_starts: frozenset[str]
    label_start_regex: re.Pattern[str] | None = None  # label_starts as whole words of the lower-case note

    def label_places(self, text: str, lower: str) -> list[int]:
        """Offsets of the words of `text` that start a label (`lower` is `text.lower()`)."""
        if self.label_start_regex is not None and len(lower) == len(text):
            # Each character lowered alone (same length), and lowering keeps which characters are letters and
            # word characters: the label words of the lower-case note stand where those of the note stand, and
            # one search finds them instead of a lookup for every word.
            return [m.start() for m in self.label_start_regex.finditer(lower)]
        starts = self.label_starts
        return [w.start() for w in _LABEL_START.finditer(text) if w.group().lower() in starts]

    def words(self, key: str) -> frozenset[str]:
        """A context list as a set of lower-case entries."""
        return self.sets[key]


def load_rules(path: Path) -> Rules:
    """Read, validate and compile a rules.yaml; any problem is a RedactionRuleError naming the rule."""
    data = read_bounded(path, "redaction rule file", error=RedactionRuleError,
                        if_missing="check the redaction_dir setting and that the rule pack is installed")
    return parse_rules(data, path)


def parse_rules(text: str | bytes, path: Path) -> Rules:
    """Validate and compile the text of a rules.yaml read from `path`; any problem is a RedactionRuleError."""
    raw = parse_located(text, path, "redaction rule file", error=RedactionRuleError).data
    try:
        spec = RuleFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise RedactionRuleError(f"redaction rule '{loc}' is invalid: {first['msg']}", where=str(path),
                                 fix="correct it as the comments at the top of the file describe") from None
    compiled = tuple(CompiledPattern(rule, _compile(_expand(rule.regex, spec.macros), f"pattern '{rule.name}'", path),
                                     tuple(r.lower() for r in rule.requires or ()),
                                     *where_tried(_expand(rule.regex, spec.macros)),
                                     twin=lowered_twin(_expand(rule.regex, spec.macros)))
                     for rule in spec.patterns)
    for c in compiled:
        if c.rule.check is not None and c.rule.check not in VALIDATORS:
            raise RedactionRuleError(f"pattern '{c.rule.name}' names an unknown check '{c.rule.check}'",
                                     where=str(path), fix=f"use one of {', '.join(sorted(VALIDATORS))}")
    label_types = {_norm(label): kind for kind, labels in spec.labels.items() for label in labels}
    alternatives = "|".join(r"[ \t]{1,3}".join(re.escape(w) for w in label.split())
                            for label in sorted(label_types, key=len, reverse=True))
    label_regex = _compile(
        rf"(?<![\w#/])(?P<label>{alternatives})(?![a-z])(?:[ \t]{{0,3}}(?:#|no\.|no|number|num|nbr|id))?"
        r"[ \t]{0,3}[:#=.]{0,2}[ \t]{0,3}(?:(?:is|was|es)[ \t]{1,3})?(?P<v>[a-z0-9][a-z0-9-]{0,30})(?![\w])",
        "the labels", path)
    sets = {key: frozenset(_norm(w) for w in words) for key, words in spec.context.model_dump().items()}
    starts = frozenset(m.group() for m in (_LABEL_START.match(label) for label in label_types) if m)
    negatives = tuple(CompiledNegative(_compile(_expand(n.regex, spec.macros), f"negative '{n.name}'", path),
                                       tuple(r.lower() for r in n.requires or ()),
                                       *where_tried(_expand(n.regex, spec.macros)),
                                       twin=lowered_twin(_expand(n.regex, spec.macros)))
                      for n in spec.negatives)
    # A word of 40 letters or more is cut at 40 by _LABEL_START; a non-ASCII label word may lower differently alone
    # and in its note (a final sigma): either keeps the word-by-word lookup.
    exact = all(len(s) < 40 and s.isascii() for s in starts)
    start_regex = re.compile(rf"(?<![\w#]){word_tree(starts)}(?![^\W\d_])") if exact and starts else None
    return Rules(path, compiled, negatives, label_regex, label_types, spec.context, sets, starts, start_regex)


def _norm(phrase: str) -> str:
    return " ".join(fold(phrase.lower()).split())


def _expand(regex: str, macros: dict[str, str]) -> str:
    return re.sub(r"\{([A-Z]+)\}", lambda m: macros.get(m.group(1), m.group(0)), regex)


def _compile(regex: str, what: str, path: Path) -> re.Pattern[str]:
    reason = unsafe_reason(regex)
    if reason:
        raise RedactionRuleError(f"{what} is refused: {reason}", where=str(path),
                                 fix="rewrite it so that it runs in linear time")
    return compile_fast(regex, re.IGNORECASE)


def drop_negatives(text: str, spans: list[Span], rules: Rules, starts: Starts | None = None) -> list[Span]:
    """`spans` less those lying wholly inside a shape that is never PHI (rules.yaml `negatives`). `starts`: the
    text's `Starts`, when find_pattern_spans has them already."""
    starts = starts or Starts(text)
    lower = starts.lower()
    on_copy = text.isascii()  # search the twins on the lower-case copy (regex_lowered): the same spans, sooner
    ranges = sorted(m.span() for n in rules.negatives if not n.requires or any(r in lower for r in n.requires)
                    for m in (tried(n.twin, lower, starts, n.starts, n.window, n.gate) if on_copy and n.twin
                              else tried(n.regex, text, starts, n.starts, n.window, n.gate)))
    if not ranges:
        return spans
    return [s for s in spans if not any(a <= s.start and s.end <= b for a, b in ranges)]


def find_pattern_spans(text: str, rules: Rules, starts: Starts | None = None) -> list[Span]:
    """Every span the regex rules and labels find in `text` (may overlap; the detector merges them). `starts`: the
    text's `Starts`, to share with drop_negatives."""
    spans: list[Span] = []
    starts = starts or Starts(text)
    lower = starts.lower()
    present: dict[tuple[str, ...], bool] = {}  # rules share their lists of literals (the month names)
    on_copy = text.isascii()  # search the twins on the lower-case copy (regex_lowered): the same spans, sooner
    for c in rules.patterns:
        if c.requires:
            needed = present.get(c.requires)
            if needed is None:
                needed = present[c.requires] = c.may_match(lower)
            if not needed:
                continue
        check = VALIDATORS[c.rule.check] if c.rule.check else None
        twin = c.twin if on_copy else None
        for m in (tried(twin, lower, starts, c.starts, c.window, c.gate) if twin is not None
                  else tried(c.regex, text, starts, c.starts, c.window, c.gate)):
            start, end = m.span(c.rule.group) if c.rule.group else m.span()
            kind = c.rule.type
            if check is not None:
                if twin is not None:  # a check reads the note's own text ("a lower-case month"): the same match there
                    m = c.regex.match(text, m.start()) or m
                verdict = check(text, m, rules)
                if verdict is None:
                    continue
                start, end = verdict[0], verdict[1]
                kind = verdict[2] or kind
            if c.rule.split:
                spans += [Span(d.start(), d.end(), kind) for d in _DIGITS.finditer(text, start, end)]
            else:
                spans.append(Span(start, end, kind))
    for at in rules.label_places(text, lower):
        found = rules.label_regex.match(text, at)
        if found is None:
            continue
        start = found.start("v")
        end = _grouped_value_end(text, start + len(found.group("v").rstrip("-")))
        value = text[start:end]
        first_has_digit = any(ch.isdigit() for ch in found.group("v"))
        digits = sum(ch.isdigit() for ch in value)
        if first_has_digit and (digits >= 2 or len(value) >= 5) and len(value) >= 3 \
                and not unit_follows(text, end, rules):  # "uid kbrown4" has one digit
            spans.append(Span(start, end, rules.label_types[_norm(found.group("label"))]))
    return spans


_DIGITS = re.compile(r"\d+")
_LABEL_START = re.compile(r"(?<![\w#])[^\W\d_]{1,40}")
_NEXT_GROUP = re.compile(r"[ -](?=[a-z0-9]{0,12}\d)[a-z0-9]{1,12}(?![\w])", re.IGNORECASE)


def _grouped_value_end(text: str, end: int) -> int:
    """End of an identifier written in groups ("46 28 52938", "14 9096265001 02") that starts before `end`."""
    for _ in range(4):
        m = _NEXT_GROUP.match(text, end)
        if m is None:
            break
        end = m.end()
    return end
