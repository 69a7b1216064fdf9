"""Rules tried only where a match can start, with those places found once a note for all of them.

`re` looks for a rule's first character by itself, testing every character of the note against the rule's first
class (`\\d` costs about as much a character as the rule's own tries): with thirty rules that start with a digit,
the note is read thirty times over. Most of them open with a look-behind that forbids a word character before the
match, so a match can only start at a digit with no word character before it. Those places are found once a note
(`Starts`), and such a rule is tried at each of them in turn (`matches_at`), which is what `finditer` does: the
leftmost match, then the next one from where it ended. Exact whenever the places are a superset of where the rule
can match, which `start_kind` makes sure of from the rule's parse tree; tests/redact/test_redact_regex_speed.py
checks every shipped rule both ways. (Rules that start with a letter gained nothing so: a note has some hundred
word starts, each a call from Python, against `re`'s own scan.)
"""

from __future__ import annotations

import re
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from medhelm_local.redact.regex_speed import first_chars

# A digit, then a look-behind over it and the character before: `re` jumps to digits (as "(?<!\w)\d" it would
# try every position).
_DIGITS = re.compile(r"\d(?<!\w\d)")
_ZERO, _NINE = ord("0"), ord("9")
_RUNS = re.compile(r"\d+")


def start_kind(regex: str, flags: int = re.IGNORECASE) -> str | None:
    """None when `regex` is searched as written; otherwise every match starts at a digit with neither a word
    character nor one of the returned marks before it ("" when its look-behind names no mark: `(?<![\\w.,/-])`
    gives ".,/-"). Not for a rule that can start at one digit only ("0"): `re` finds that cheaply itself."""
    try:
        seq = list(sre_parse.parse(regex, flags).data)
    except re.error:
        return None
    if not seq or seq[0][0] != c.ASSERT_NOT or seq[0][1][0] != -1 or not _forbids_word(list(seq[0][1][1])):
        return None
    found = first_chars(seq[1:])
    if found is None or found[1] or not found[0]:
        return None
    chars = found[0]
    if all(_digit(kind, value) for kind, value in chars) and (len(set(chars)) > 1 or chars[0][0] != c.LITERAL):
        # Marks are ASCII and not letters: under IGNORECASE each stands for itself alone.
        return "".join(sorted({chr(value) for kind, value in seq[0][1][1][0][1]
                               if kind == c.LITERAL and value < 128 and not chr(value).isalnum()}))
    return None


def _forbids_word(behind: list[Any]) -> bool:
    """A one-character look-behind whose class holds every word character (`[\\w.,/-]`)."""
    if len(behind) != 1 or behind[0][0] != c.IN:
        return False
    items = behind[0][1]
    return all(kind != c.NEGATE for kind, _ in items) and (c.CATEGORY, c.CATEGORY_WORD) in items


def _digit(kind: Any, value: Any) -> bool:
    if kind == c.CATEGORY:
        return bool(value == c.CATEGORY_DIGIT)
    if kind == c.LITERAL:
        return bool(_ZERO <= value <= _NINE)
    return bool(kind == c.RANGE and _ZERO <= value[0] <= value[1] <= _NINE)


class Starts:
    """The places of one note where rules can start, found on first use: the digits with no word character
    before them, and those of them without one of some marks before them either."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._found: dict[str, list[int]] = {}
        self._runs: list[tuple[int, int]] | None = None
        self._lower: str | None = None

    def lower(self) -> str:
        """The note in lower case, for the rules' `requires` tests (the rules and the negatives share it)."""
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    def runs(self) -> list[tuple[int, int]]:
        """(start, end) of every run of digits in the note, in order (regex_windows reads them)."""
        if self._runs is None:
            self._runs = [m.span() for m in _RUNS.finditer(self.text)]
        return self._runs

    def of(self, marks: str) -> list[int]:
        """Offsets of the digits that follow neither a word character nor one of `marks`, in order."""
        found = self._found.get(marks)
        if found is None:
            digits = self._found.get("")
            if digits is None:
                digits = self._found[""] = [m.start() for m in _DIGITS.finditer(self.text)]
            text = self.text
            found = self._found[marks] = [at for at in digits if not at or text[at - 1] not in marks] if marks \
                else digits
        return found


def matches_at(pattern: re.Pattern[str], text: str, starts: list[int]) -> list[re.Match[str]]:
    """What `pattern.finditer(text)` yields, trying only `starts` (every place a match can start, in order).
    `match` at a place sees the text before it as a search does, so look-behinds read the same."""
    found, resume, match = [], 0, pattern.match
    for at in starts:
        if at >= resume:
            m = match(text, at)
            if m is not None:
                found.append(m)
                resume = m.end()  # never empty: the match starts with a digit
    return found
