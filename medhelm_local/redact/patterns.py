"""The regular-expression half of PHI detection: rules read from `redaction/rules.yaml`, checked to run
in linear time, and applied with small validators (a date must be a real date, an IP a real address)."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# The standard library's own regex parser: the safety check reads the same tree `re` compiles.
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parser  # type: ignore[attr-defined]
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from medhelm_local.errors import ConfigError
from medhelm_local.redact.tokens import fold
from medhelm_local.redact.types import PhiType, Span


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
    facility_generic: list[str]
    street_suffixes: list[str]
    street_units: list[str]
    street_prefixes: list[str]
    street_compounds: list[str]
    address_cues: list[str]
    place_labels: list[str]
    eponym_followers: list[str]
    score_words: list[str]
    units: list[str]
    date_cues: list[str]
    zip_labels: list[str]
    states: list[str]


class RuleFile(BaseModel):
    """The whole of rules.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[1]
    macros: dict[str, str]
    patterns: list[PatternRule]
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


Validator = Callable[[str, re.Match[str], "Rules"], tuple[int, int, PhiType | None] | None]


@dataclass(frozen=True)
class Rules:
    """A loaded rule pack: compiled patterns, the label regex, and context word sets."""

    source: Path
    patterns: tuple[CompiledPattern, ...]
    label_regex: re.Pattern[str]
    label_types: dict[str, PhiType]
    context: ContextWords
    sets: dict[str, frozenset[str]]
    label_starts: frozenset[str]

    def words(self, key: str) -> frozenset[str]:
        """A context list as a set of lower-case entries."""
        return self.sets[key]


def load_rules(path: Path) -> Rules:
    """Read, validate and compile a rules.yaml; any problem is a RedactionRuleError naming the rule."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        spec = RuleFile.model_validate(raw)
    except OSError as exc:
        raise RedactionRuleError(f"cannot read the redaction rules ({exc.strerror})", where=str(path),
                                 fix="check the redaction_dir setting and that the rule pack is installed") from None
    except yaml.YAMLError as exc:
        raise RedactionRuleError(f"the redaction rules are not valid YAML ({exc})", where=str(path),
                                 fix="fix the YAML syntax") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise RedactionRuleError(f"redaction rule '{loc}' is invalid: {first['msg']}", where=str(path),
                                 fix="correct it as the comments at the top of the file describe") from None
    compiled = tuple(CompiledPattern(rule, _compile(_expand(rule.regex, spec.macros), f"pattern '{rule.name}'", path))
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
    return Rules(path, compiled, label_regex, label_types, spec.context, sets, starts)


def _norm(phrase: str) -> str:
    return " ".join(fold(phrase.lower()).split())


def _expand(regex: str, macros: dict[str, str]) -> str:
    return re.sub(r"\{([A-Z]+)\}", lambda m: macros.get(m.group(1), m.group(0)), regex)


def _compile(regex: str, what: str, path: Path) -> re.Pattern[str]:
    reason = unsafe_reason(regex)
    if reason:
        raise RedactionRuleError(f"{what} is refused: {reason}", where=str(path),
                                 fix="rewrite it so that it runs in linear time")
    return re.compile(regex, re.IGNORECASE)


def find_pattern_spans(text: str, rules: Rules) -> list[Span]:
    """Every span the regex rules and labels find in `text` (may overlap; the detector merges them)."""
    spans: list[Span] = []
    for c in rules.patterns:
        check = VALIDATORS[c.rule.check] if c.rule.check else None
        for m in c.regex.finditer(text):
            start, end = m.span(c.rule.group) if c.rule.group else m.span()
            kind = c.rule.type
            if check is not None:
                verdict = check(text, m, rules)
                if verdict is None:
                    continue
                start, end = verdict[0], verdict[1]
                kind = verdict[2] or kind
            spans.append(Span(start, end, kind))
    for word in _LABEL_START.finditer(text):
        found = rules.label_regex.match(text, word.start()) if word.group().lower() in rules.label_starts else None
        if found is None:
            continue
        start = found.start("v")
        end = _grouped_value_end(text, start + len(found.group("v").rstrip("-")))
        value = text[start:end]
        first_has_digit = any(ch.isdigit() for ch in found.group("v"))
        if first_has_digit and sum(ch.isdigit() for ch in value) >= 2 and len(value) >= 3 \
                and not _unit_follows(text, end, rules):
            spans.append(Span(start, end, rules.label_types[_norm(found.group("label"))]))
    return spans


_NEXT_GROUP = re.compile(r"[ -](?=[a-z0-9]{0,12}\d)[a-z0-9]{1,12}(?![\w])", re.IGNORECASE)


def _grouped_value_end(text: str, end: int) -> int:
    """End of an identifier written in groups ("46 28 52938", "14 9096265001 02") that starts before `end`."""
    for _ in range(4):
        m = _NEXT_GROUP.match(text, end)
        if m is None:
            break
        end = m.end()
    return end


# ---- validators: (text, match, rules) -> (start, end, type) or None to drop the match ----

_WORD = re.compile(r"[^\W_][\w'/.&-]{0,40}")
_LABEL_START = re.compile(r"(?<![\w#])[^\W\d_]{1,40}")
_TRAILING = ".,;:!?)]}'\"-"
_FAX_BEFORE = re.compile(r"(?:fax|facsimile|(?<![\w])f)[ \t]{0,3}(?:no\.?|number|#)?[ \t]{0,3}[:#.]?[ \t]{0,3}$",
                         re.IGNORECASE)
_TIME_AFTER = re.compile(r"[ \t]{0,2}(?:hrs|hr|h|hours|:)(?![a-z])", re.IGNORECASE)


def _words_before(text: str, start: int, count: int) -> list[str]:
    """Up to `count` words before `start` on the same line, nearest first, lower case."""
    line_start = text.rfind("\n", 0, start) + 1
    window = text[max(line_start, start - 60):start]
    window = window[window.rfind("_") + 1:]  # a blanked mask ("[____]") hides what stood before it
    return [w.lower().rstrip(".") for w in reversed(_WORD.findall(window))][:count]


def _word_after(text: str, end: int) -> str:
    """The word after `end` (past up to three spaces), lower case, or ''."""
    i = end
    while i < len(text) and i < end + 3 and text[i] in " \t":
        i += 1
    m = _WORD.match(text, i)
    return m.group().lower().rstrip(".,") if m else ""


def _unit_follows(text: str, end: int, rules: Rules) -> bool:
    nxt = text[end:end + 1]
    if nxt in ("%", "°"):
        return True
    return _word_after(text, end) in rules.words("units")


def _trim(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    start, end = m.span()
    while end > start and text[end - 1] in _TRAILING:
        if text[end - 1] == ")" and text.count("(", start, end) >= text.count(")", start, end):
            break
        end -= 1
    return (start, end, PhiType.URL if "@" not in text[start:end] else PhiType.EMAIL) if end - start >= 4 else None


def _ip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip(".")
    if ":" in value and value.count(":") < 7 and "::" not in value:
        return None
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return None
    return m.start(), m.start() + len(value), PhiType.IP


def _fax(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    before = text[max(0, m.start() - 24):m.start()]
    return m.start(), m.end(), PhiType.FAX if _FAX_BEFORE.search(before) else PhiType.PHONE


def _phone_digits(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = re.split(r"\.\s|\s\s", m.group("v"))[0].rstrip(" .-(")  # a sentence or column ends the number
    if not 7 <= sum(ch.isdigit() for ch in value) <= 15 or _unit_follows(text, m.start("v") + len(value), rules):
        return None
    kind = PhiType.FAX if m.group().lower().startswith(("fax", "facsimile")) else PhiType.PHONE
    return m.start("v"), m.start("v") + len(value), kind


_PHONE_BEFORE = re.compile(r"(?<![a-z])(?:phone|ph|tel|telephone|telefono|tfno|tlf|movil|mobile|cell|pager|fax|call|"
                           r"contact|reach|reached|number|office|home|work)(?![a-z])", re.IGNORECASE)
_PHONE_AFTER = frozenset({"office", "fax", "mobile", "home", "cell", "work", "phone", "movil", "tel"})
_DATE_SHAPE = re.compile(r"(?:19|20)\d{2}[ .-]\d{1,2}[ .-]\d{1,2}|\d{1,2}[ .-]\d{1,2}[ .-](?:19|20)\d{2}")


def _phone_context(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    """Digit groups ("917 277 000", "28-64-66-98") are a phone only beside a phone word on the same line."""
    digits = sum(ch.isdigit() for ch in m.group())
    if not 7 <= digits <= 13 or _DATE_SHAPE.fullmatch(m.group()) or _unit_follows(text, m.end(), rules):
        return None
    line_start = text.rfind("\n", 0, m.start()) + 1
    before = text[max(line_start, m.start() - 40):m.start()]
    after = (text[m.end():m.end() + 12].lstrip(" -").split() or [""])[0].lower().strip(".,;:)")
    if not (_PHONE_BEFORE.search(before) or after in _PHONE_AFTER):
        return None
    return _fax(text, m, rules)


def _iban(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    value = m.group().rstrip()
    compact = value.replace(" ", "")
    if len(compact) < 15 or sum(ch.isdigit() for ch in compact) < 8:
        return None
    return m.start(), m.start() + len(value), PhiType.ACCOUNT


def _date_numeric(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    sep = m.group("sep")
    parts = re.split(r"[tT]", m.group())[0].split(sep)  # "2021-07-22T14:30": the time is part of the date
    first, second, third = (int(p) for p in parts)
    if len(parts[0]) == 4:
        ok = 1 <= second <= 12 and 1 <= third <= 31
    else:
        ok = (1 <= first <= 12 and 1 <= second <= 31) or (1 <= second <= 12 and 1 <= first <= 31)
        ok = ok and (sep != "." or len(parts[2]) == 4)  # "7.35.45" is not a date; "22.07.2021" is
    return (m.start(), m.end(), PhiType.DATE) if ok else None


_FRACTION = re.compile(r"\d{1,2}/\d{1,2}")


def _date_partial(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    month, day = (int(p) for p in m.group().split("/"))
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    before = _words_before(text, m.start(), 3)
    cue = bool(before) and before[0] in rules.words("date_cues")
    scores = rules.words("score_words")
    if any(_FRACTION.fullmatch(w) for w in before) and day <= 10:
        return None  # "4/5 RUE and 5/5 LUE": a fraction in a list of fractions is a score
    if _word_after(text, m.end()) in scores or (day == 10 and not cue):
        return None  # "5/5 strength", "a 6/10 prompting": scores, whatever comes before
    if not cue:
        if before and before[0] in scores:
            return None
        if day <= 10 and any(w in scores for w in before):
            return None
        if month <= 3 and day <= 4:  # 1/2, 2/3, 3/4: fractions far more often than dates
            return None
    return m.start(), m.end(), PhiType.DATE


def _month_year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    month = int(re.split(r"[/-]", m.group())[0])
    return (m.start(), m.end(), PhiType.DATE) if 1 <= month <= 12 else None


def _month_alone(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    word = m.group()
    if word.islower():
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if line != line.lower():  # a lower-case month in a cased line is the verb or adjective
            return None
    return m.start(), m.end(), PhiType.DATE


def _year(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    if _unit_follows(text, m.end(), rules):
        return None
    value = int(m.group())
    could_be_time = value % 100 < 60 and value < 2100
    if could_be_time:
        before = _words_before(text, m.start(), 1)
        if _TIME_AFTER.match(text, m.end()) or (before and before[0] in {"at", "@", "by", "around", "approx",
                                                                           "approximately", "until", "till", "q"}):
            return None
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].strip():
            return None  # "2000 PT RESTING": a time opening a nursing-note line
    return m.start(), m.end(), PhiType.DATE


def _zip(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType] | None:
    before = _words_before(text, m.start(), 2)
    if not before or not (before[0] in rules.words("states") or before[0] in rules.words("zip_labels")
                          or " ".join(reversed(before)) in rules.words("states")):
        return None
    return m.start(), m.end(), PhiType.ZIP


def _not_measure(text: str, m: re.Match[str], rules: Rules) -> tuple[int, int, PhiType | None] | None:
    group = "v" if "v" in m.re.groupindex else 0
    return None if _unit_follows(text, m.end(group), rules) else (m.start(group), m.end(group), None)


VALIDATORS: dict[str, Validator] = {
    "trim": _trim, "ip": _ip, "fax": _fax, "phone_digits": _phone_digits, "iban": _iban, "date_numeric": _date_numeric,
    "date_partial": _date_partial, "month_year": _month_year, "month_alone": _month_alone, "year": _year,
    "not_measure": _not_measure, "zip": _zip, "phone_context": _phone_context,
}
