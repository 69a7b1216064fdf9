"""Where each regex rule is tried (`where_tried`, `tried`): letter-led rules searched only near the digits they
need, or only on notes that hold those digits.

A rule such as `(?<![\\w-])[a-z]{1,4}-?\\d{5,14}` starts with a letter, so `re` tries it at nearly every letter of
a note, yet every match holds a run of at least five digits at most five characters after its start, and most
notes hold no such run. `digit_window` reads both figures off the rule's parse tree (how far its first mandatory
digit can stand from the start, and how many digits that item takes at least) and how far past its start a match
can read (its look-aheads included); `window` keeps the rules whose run is long.
A note's digit runs long enough for the rule then give the only stretches where a match can start; `matches_in`
searches each stretch, with the text cut just past the farthest character a match starting there can read, so a
search there sees what a search of the whole note sees. A note without such a run skips the rule outright. Where
the stretches cover most of a note, the plain `finditer` is used: it is as exact and cheaper then. A rule whose
digits are shorter gets a gate instead (`digit_gate`): the digits it needs, with the marks before them, which a note
must hold for the rule to match, found by a search that jumps to digits.
tests/redact/test_redact_regex_speed.py checks every shipped rule so searched against the plain `finditer`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from medhelm_local.redact.regex_speed import REPEATS, compile_tree, first_chars
from medhelm_local.redact.regex_starts import Starts, matches_at, start_kind

Item = tuple[Any, Any]
_ZERO, _NINE = ord("0"), ord("9")
# The fewest digits a rule's run must hold for the windows to pay: a note has few runs of five digits or more,
# while the stretches before shorter runs (times, years, doses) cover most of it and each costs a call from Python.
LONG_RUN = 5
# The fewest characters a gate must take (digit_gate): two digits stand in nearly every note.
GATE_WIDTH = 3
# What one more search from Python costs, in characters `re` could have tried instead (an estimate: a call from
# Python costs about as much as `re` trying a letter-led rule at some twenty places). Stretches that together cost
# more than the note use `finditer`.
_CALL_COST = 24


def window(regex: str, flags: int = re.IGNORECASE) -> tuple[int, int, int] | None:
    """`digit_window` for a rule whose digits are a run of at least LONG_RUN, else None (see LONG_RUN)."""
    found = digit_window(regex, flags)
    return found if found is not None and found[1] >= LONG_RUN else None


def digit_window(regex: str, flags: int = re.IGNORECASE) -> tuple[int, int, int] | None:
    """For a rule every match of which holds a mandatory run of digits: (the most characters before that run's
    item, the fewest digits it takes, the most characters a match reads from its start, look-aheads included);
    None for any other rule, or a parse tree this module does not know."""
    try:
        seq = list(sre_parse.parse(regex, flags).data)
        first = _first_digit(seq)
        reach = _width(seq, ahead=True)
    except (re.error, _UnknownNodeError):
        return None
    if first is None or reach is None:
        return None
    return first[0], first[1], reach


class _UnknownNodeError(Exception):
    """A node this module does not reason about."""


def _digit_atom(item: Item) -> bool:
    op, av = item
    if op == c.LITERAL:
        return bool(_ZERO <= av <= _NINE)
    if op != c.IN:
        return False
    return bool(av) and all((kind == c.CATEGORY and value == c.CATEGORY_DIGIT)
                            or (kind == c.LITERAL and _ZERO <= value <= _NINE)
                            or (kind == c.RANGE and _ZERO <= value[0] <= value[1] <= _NINE) for kind, value in av)


def _first_digit(seq: list[Item]) -> tuple[int, int] | None:
    """(most characters before, fewest digits of) the first item of `seq` that must match digits, or None."""
    before = 0
    for item in seq:
        op, av = item
        if _digit_atom(item):
            return before, 1
        if op in REPEATS and av[0] >= 1 and len(av[2]) == 1 and _digit_atom(av[2][0]):
            return before, av[0]
        if op == c.SUBPATTERN:
            inner = _first_digit(list(av[-1]))
            if inner is not None:
                return before + inner[0], inner[1]
        elif op == c.BRANCH:
            found = [_first_digit(list(b)) for b in av[1]]
            if all(f is not None for f in found):
                return before + max(f[0] for f in found if f), min(f[1] for f in found if f)
        width = _width([item], ahead=False)
        if width is None:
            return None
        before += width
    return None


def _width(seq: list[Item], ahead: bool) -> int | None:
    """The most characters `seq` consumes (with `ahead`, plus every look-ahead's reach: a bound, not exact);
    None when unbounded."""
    total = 0
    for op, av in seq:
        if op in (c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY):
            width: int | None = 1
        elif op == c.AT:
            width = 0
        elif op in (c.ASSERT, c.ASSERT_NOT):
            width = _width(list(av[1]), ahead) if ahead and av[0] == 1 else 0
        elif op == c.SUBPATTERN:
            width = _width(list(av[-1]), ahead)
        elif op == c.ATOMIC_GROUP:
            width = _width(list(av), ahead)
        elif op == c.BRANCH:
            widths = [_width(list(b), ahead) for b in av[1]]
            width = None if any(w is None for w in widths) else max(w for w in widths if w is not None)
        elif op in REPEATS:
            inner = _width(list(av[2]), ahead)
            width = None if inner is None or av[1] == c.MAXREPEAT else av[1] * inner
        else:
            raise _UnknownNodeError(op)
        if width is None:
            return None
        total += width
    return total


def stretches(starts: Starts, before: int, digits: int) -> list[tuple[int, int]]:
    """Where a match of a rule with this `window` can start in the note, as merged (first, last) offsets."""
    found: list[tuple[int, int]] = []
    for start, end in starts.runs():
        if end - start < digits:
            continue
        first, last = max(0, start - before), end - digits
        if found and first <= found[-1][1] + 1:
            found[-1] = (found[-1][0], max(found[-1][1], last))
        else:
            found.append((first, last))
    return found


def cheaper(spans: list[tuple[int, int]], reach: int, size: int) -> bool:
    """Whether searching these stretches costs less than searching the whole note of `size` characters."""
    return sum(last - first + 1 + reach + _CALL_COST for first, last in spans) < size


def matches_in(pattern: re.Pattern[str], text: str, spans: list[tuple[int, int]], reach: int) -> list[re.Match[str]]:
    """What `pattern.finditer(text)` yields, given every offset where a match can start lies in `spans` (in order,
    apart). Each search stops `reach` characters past its stretch, beyond anything a match starting there reads,
    and a match it finds starting past the stretch is left for the stretch it lies in."""
    found: list[re.Match[str]] = []
    resume, size, search = 0, len(text), pattern.search
    for first, last in spans:
        at, stop = max(first, resume), min(size, last + reach + 1)
        while at <= last:
            m = search(text, at, stop)
            if m is None or m.start() > last:
                break
            found.append(m)
            resume = at = m.end()  # never empty: a match holds a digit
    return found


def digit_gate(regex: str, flags: int = re.IGNORECASE) -> re.Pattern[str] | None:
    """A regex every match of `regex` holds a match of, led by the digits it needs (and the marks just before them):
    `-\\d{2,6}...` for `[a-z]{1,4}\\d{0,3}-\\d{2,6}...`. `re` finds it by jumping to digits or marks, where `regex`
    is tried at every letter, so a note without it is spared the rule. None when the rule needs no digits at its
    top level, what it needs is under GATE_WIDTH characters (a note nearly always holds it), or the rule does not
    start with a letter (`re` finds its first character cheaply itself)."""
    try:
        parsed = sre_parse.parse(regex, flags)
        seq = list(parsed.data)
        at = next((j for j, item in enumerate(seq) if _digits_first(item)), None)
        if at is None or "(?P=" in regex or "(?(" in regex or not _letter_led(seq):
            return None
        while at > 0 and seq[at - 1][0] in (c.LITERAL, c.IN):
            at -= 1  # "-" in "\d{0,3}-\d{2,6}": one character every match holds too
        parsed.data, parsed.width = seq[at:], None
        if parsed.getwidth()[0] < GATE_WIDTH:
            return None
        return compile_tree(regex, parsed, flags)
    except Exception:  # a parse tree this module does not know: no gate, the rule is searched as written
        return None


def _letter_led(seq: list[Item]) -> bool:
    """Whether a match of `seq` may start with a letter (or its first characters are not known)."""
    found = first_chars(seq)
    if found is None:
        return True
    for kind, value in found[0]:
        if kind == c.LITERAL and chr(value).isalpha():
            return True
        if kind == c.RANGE and any(chr(v).isalpha() for v in range(value[0], value[1] + 1)):
            return True
        if kind == c.CATEGORY and value not in (c.CATEGORY_DIGIT, c.CATEGORY_SPACE):
            return True
        if kind == c.NEGATE:
            return True
    return False


def _digits_first(item: Item) -> bool:
    """An item that starts by taking at least one digit (a digit, a repeat of one, or a group opening so)."""
    op, av = item
    if _digit_atom(item):
        return True
    if op in REPEATS:
        return bool(av[0] >= 1 and len(av[2]) == 1 and _digit_atom(av[2][0]))
    if op == c.SUBPATTERN:
        body = [i for i in av[-1] if i[0] not in (c.ASSERT, c.ASSERT_NOT, c.AT)]
        return bool(body) and _digits_first(body[0])
    return False


def where_tried(expanded: str) -> tuple[str | None, tuple[int, int, int] | None, re.Pattern[str] | None]:
    """Where a rule is tried: at digits (a start kind), else near its digits (a window), else everywhere, on notes
    holding its gate."""
    kind = start_kind(expanded)
    if kind is not None:
        return kind, None, None
    where = window(expanded)
    return None, where, None if where is not None else digit_gate(expanded)


def tried(regex: re.Pattern[str], text: str, starts: Starts, kind: str | None,
          where: tuple[int, int, int] | None, gate: re.Pattern[str] | None) -> Iterable[re.Match[str]]:
    """What `regex.finditer(text)` yields, searched where the rule's start kind or window says a match can start,
    or not at all where its gate finds nothing."""
    if gate is not None and gate.search(text) is None:
        return ()
    if kind is not None:
        return matches_at(regex, text, starts.of(kind))
    if where is not None:
        spans = stretches(starts, where[0], where[1])
        if cheaper(spans, where[2], len(text)):
            return matches_in(regex, text, spans, where[2])
    return regex.finditer(text)


def word_tree(words: frozenset[str]) -> str:
    """A regex for exactly `words`, written as a tree of their shared beginnings: `re` then reads each character of
    a candidate once, where an alternation of the words tries them one by one."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def written(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + written(node[ch]) for ch in sorted(node) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return written(tree)
