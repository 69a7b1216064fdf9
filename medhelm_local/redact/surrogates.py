"""Redaction styles: typed masks ("[NAME]") or surrogates that stay consistent within a document.

Surrogates are drawn with an HMAC of a secret key, the document id and the original value, so the
same original in the same document always gets the same surrogate, and nothing can be reversed
without the key. Dates move by one shift per document, keeping their written form ("March 3rd"
stays "Month Dth"); intervals between dates survive. Ages over 89 become the policy's cap (90).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from medhelm_local.redact.dictionaries import Dictionaries
from medhelm_local.redact.patterns import RedactionRuleError
from medhelm_local.redact.types import PhiType, Span
from medhelm_local.safe_parse import read_bounded
from medhelm_local.yaml_lines import parse_located

Style = Literal["mask", "surrogate"]
_MONTHS = ("january february march april may june july august september october november december").split()
_MONTH_RE = re.compile(r"(?<![a-z])(" + "|".join(sorted({m[:3] for m in _MONTHS} | set(_MONTHS) | {"sept"},
                                                         key=len, reverse=True)) + r")(?![a-z])", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\d{1,4}(?:st|nd|rd|th)?", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W\d_]+")


class Policy(BaseModel):
    """redaction/surrogates.yaml: the default style and how surrogates are made."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: Literal[1]
    style: Style = "mask"
    mask_format: str = Field("[{type}]", description="Mask text; {type} becomes the identifier type")
    date_shift_days: tuple[int, int] = Field((-365, -30), description="Range of the per-document date shift")
    age_cap: int = Field(90, description="Ages over 89 are replaced by this")


def load_policy(path: Path) -> Policy:
    """Read and validate a surrogates.yaml."""
    data = read_bounded(path, "redaction policy", error=RedactionRuleError,
                        if_missing="check the redaction_dir setting")
    return parse_policy(data, path)


def parse_policy(text: str | bytes, path: Path) -> Policy:
    """Validate the text of a surrogates.yaml read from `path`."""
    raw = parse_located(text, path, "redaction policy", error=RedactionRuleError).data
    try:
        policy = Policy.model_validate(raw)
    except ValidationError as exc:
        raise RedactionRuleError(f"the redaction policy does not validate ({str(exc).splitlines()[0]})",
                                 where=str(path), fix="correct it as its comments describe") from None
    low, high = policy.date_shift_days
    if not low <= high or low == high == 0:
        raise RedactionRuleError("date_shift_days must be [low, high] with low <= high, not both 0",
                                 where=str(path), fix="for example [-365, -30]")
    return policy


def mask(text: str, spans: list[Span], mask_format: str = "[{type}]") -> str:
    """`text` with every span replaced by its typed mask."""
    return replace_spans(text, spans, lambda span: mask_format.format(type=span.type.value))[0]


def replace_spans(text: str, spans: list[Span], make: Callable[[Span], str]) -> tuple[str, list[tuple[int, int]]]:
    """`text` with each span replaced by `make(span)`, and where each replacement sits in the result
    (the export gate rescans the result and must tell its own replacements from what is left)."""
    out: list[str] = []
    placed: list[tuple[int, int]] = []
    last = length = 0
    for span in sorted(spans):
        keep, replacement = text[last:span.start], make(span)
        out += [keep, replacement]
        length += len(keep)
        placed.append((length, length + len(replacement)))
        length += len(replacement)
        last = span.end
    out.append(text[last:])
    return "".join(out), placed


@dataclass
class DocumentSurrogates:
    """Surrogates for one document: a fixed date shift and a memory of what each original became."""

    key: bytes
    doc_id: str
    policy: Policy
    words: Dictionaries
    shift_days: int = 0
    _names: dict[str, str] = field(default_factory=dict)
    _values: dict[tuple[PhiType, str], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        low, high = self.policy.date_shift_days
        rng = self._rng("date-shift")
        self.shift_days = rng.choice([d for d in range(low, high + 1) if d != 0])

    def apply(self, text: str, spans: list[Span]) -> str:
        """`text` with each span replaced by its surrogate."""
        return replace_spans(text, spans, lambda span: self.surrogate(text[span.start:span.end], span.type))[0]

    def surrogate(self, original: str, kind: PhiType) -> str:
        """The surrogate for one original value of a type; the same one every time in this document."""
        if kind is PhiType.NAME:
            return _WORD_RE.sub(lambda m: self._name(m.group()), original)
        if kind is PhiType.DATE:
            return shift_date(original, self.shift_days) or self.policy.mask_format.format(type=kind.value)
        if kind is PhiType.AGE:
            return str(self.policy.age_cap)
        memo = (kind, original.lower())
        if memo not in self._values:
            self._values[memo] = self._make(original, kind)
        return self._values[memo]

    def _rng(self, *parts: str) -> random.Random:
        digest = hmac.new(self.key, "\0".join((self.doc_id, *parts)).encode(), hashlib.sha256).digest()
        return random.Random(digest)

    def _name(self, word: str) -> str:
        low = word.lower()
        if low not in self._names:
            pool = self._first_pool() if low in self.words.first_names else self._last_pool()
            rng, taken = self._rng("NAME", low), set(self._names.values())
            choice = rng.choice(pool)
            while choice in taken or choice == low:
                choice = rng.choice(pool)
            self._names[low] = choice
        return _same_case(word, self._names[low])

    def _first_pool(self) -> list[str]:
        return _pool(self.words.first_names)

    def _last_pool(self) -> list[str]:
        return _pool(self.words.surnames)

    def _make(self, original: str, kind: PhiType) -> str:
        rng = self._rng(kind.value, original.lower())
        if kind is PhiType.EMAIL:
            return f"{_scramble(original.split('@')[0], rng)}@example.org"
        if kind is PhiType.URL:
            return "https://www.example.org/" if "://" in original else "www.example.org"
        if kind is PhiType.IP:
            return f"2001:db8::{rng.randint(1, 65535):x}" if ":" in original else f"192.0.2.{rng.randint(1, 254)}"
        if kind is PhiType.CITY:
            return _same_case(original, rng.choice(_pool(self.words.cities)).title())
        if kind in (PhiType.STREET, PhiType.HOSPITAL):
            keep = {"street", "st", "avenue", "ave", "road", "rd", "drive", "dr", "lane", "ln", "way", "court", "ct",
                    "boulevard", "blvd", "place", "apt", "unit", "suite", "hospital", "medical", "center", "clinic",
                    "memorial", "general", "regional", "of", "the", "saint", "health", "rehabilitation"}
            text = re.sub(r"\d", lambda m: str(rng.randint(0, 9)), original)
            return _WORD_RE.sub(lambda m: m.group() if m.group().lower() in keep or len(m.group()) <= 1
                                else _same_case(m.group(), rng.choice(self._last_pool()).title()), text)
        return _scramble(original, rng)


def _pool(words: frozenset[str]) -> list[str]:
    return _POOLS.setdefault(id(words), sorted(w for w in words if w.isalpha() and 3 <= len(w) <= 10))


_POOLS: dict[int, list[str]] = {}


def _same_case(model: str, word: str) -> str:
    """`word` written the way `model` is: UPPER, lower or Title."""
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model.islower():
        return word.lower()
    return word[:1].upper() + word[1:].lower()


def _scramble(value: str, rng: random.Random) -> str:
    """Same shape, new characters: digits stay digits, letters stay letters of the same case."""
    out = []
    for ch in value:
        if ch.isdigit():
            out.append(str(rng.randint(0, 9)))
        elif ch.isalpha():
            letter = rng.choice("abcdefghjkmnpqrstuvwxyz")
            out.append(letter.upper() if ch.isupper() else letter)
        else:
            out.append(ch)
    return "".join(out)


def shift_date(value: str, days: int) -> str | None:
    """`value` (a date in any common written form) moved by `days`, in the same form; None if unreadable."""
    month_word = _MONTH_RE.search(value)
    nums = list(_NUMBER_RE.finditer(value))
    month_num: re.Match[str] | None = None
    day: re.Match[str] | None = None
    year: re.Match[str] | None = None
    short_year: re.Match[str] | None = None
    if month_word:
        month = _month_number(month_word.group())
        for m in nums:
            if _width(m) == 4 and year is None:
                year = m
            elif day is None and _width(m) <= 2 and 1 <= _int(m) <= 31:
                day = m
            elif day is not None and _width(m) == 2 and short_year is None:
                short_year = m
    else:
        if len(nums) == 1 and _width(nums[0]) == 4:
            new_year = (dt.date(_int(nums[0]), 7, 1) + dt.timedelta(days=days)).year
            return _sub(value, [(nums[0], str(new_year))])
        if len(nums) not in (2, 3):
            return None
        if _width(nums[0]) == 4 and len(nums) == 3:
            year, month_num, day = nums
        elif len(nums) == 2 and _width(nums[1]) == 4:
            month_num, year = nums
        else:
            month_num, day = (nums[1], nums[0]) if _int(nums[0]) > 12 >= _int(nums[1]) else (nums[0], nums[1])
            if len(nums) == 3:
                year, short_year = (nums[2], None) if _width(nums[2]) == 4 else (None, nums[2])
        month = _int(month_num)
    if not 1 <= month <= 12 or (day is not None and not 1 <= _int(day) <= 31):
        return None
    full_year = _int(year) if year else (2000 + _int(short_year) if short_year else 2001)
    old_day = min(_int(day), 28) if day else 15
    new = dt.date(full_year, month, old_day) + dt.timedelta(days=days)
    edits: list[tuple[re.Match[str], str]] = []
    if month_word:
        edits.append((month_word, _month_text(month_word.group(), new.month)))
    elif month_num:
        edits.append((month_num, _number_text(month_num.group(), new.month)))
    if day:
        edits.append((day, _number_text(day.group(), new.day)))
    if year:
        edits.append((year, str(new.year)))
    elif short_year:
        edits.append((short_year, f"{new.year % 100:02d}"))
    return _sub(value, edits)


def _int(m: re.Match[str]) -> int:
    return int(re.sub(r"\D", "", m.group()))


def _width(m: re.Match[str]) -> int:
    return len(re.sub(r"\D", "", m.group()))


def _month_number(word: str) -> int:
    low = word.lower()[:3]
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(low))


def _month_text(model: str, month: int) -> str:
    """Month `month` written like `model`: full or abbreviated, in its case."""
    full = _MONTHS[month - 1]
    if model.lower() == "sept":
        word = "sept" if month == 9 else full[:3]
    elif len(model) == 3 and model.lower() != "may":
        word = full[:3]
    else:
        word = full
    return _same_case(model, word)


def _number_text(model: str, value: int) -> str:
    digits = re.sub(r"\D", "", model)
    suffix = model[len(digits):]
    text = f"{value:0{len(digits)}d}" if digits.startswith("0") else str(value)
    if suffix:
        ordinal = "th" if 10 <= value % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(value % 10, "th")
        text += ordinal.upper() if suffix.isupper() else ordinal
    return text


def _sub(value: str, edits: list[tuple[re.Match[str], str]]) -> str:
    for m, new in sorted(edits, key=lambda e: e[0].start(), reverse=True):
        value = value[:m.start()] + new + value[m.end():]
    return value
