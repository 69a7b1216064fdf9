"""Compile a rule's regex into an equivalent one that `re` searches faster: same matches, same groups.

`re` tries a pattern at every position of a note unless the pattern starts with a character it can look
for directly. Almost every rule starts with a look-behind ("(?<![\\w.,/-])"), which turns that skip off,
and the long alternations (month names, vital signs) are tried one alternative at a time at each word.
Three rewrites of the parsed pattern, each exact, give the skip back or make the tries cheap:

- hoist: a one-character look-behind before a character that case cannot change (a digit, "(", "'") moves
  behind that character: `(?<!X)\\d{3}` becomes `\\d(?<!X[\\s\\S])\\d{2}`, so the search jumps to digits
  (a first letter or two is spelled out in its case forms for that: "p" as `(?-i:[pP])`);
- guard: otherwise a look-ahead for the characters a match can start with, `(?=[adfjmnos])(?<![\\w])(?:jan|...)`,
  so a position that cannot start a match fails in one test;
- group: alternatives starting with the same ASCII letter are tried behind that letter once
  (`svr|sbp|pvr` as `s(?:vr|bp)|pvr`), keeping their order, so one failed letter skips them all.

Anything the rewrites do not recognise is compiled as written. tests/redact/test_redact_regex_speed.py
checks every shipped rule against its plain compilation.
"""

from __future__ import annotations

import re
from re import _compiler as sre_compile  # type: ignore[attr-defined]
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

Item = tuple[Any, Any]

_ATOMS = {c.LITERAL, c.NOT_LITERAL, c.IN, c.ANY}
_ZERO_WIDTH = {c.ASSERT, c.ASSERT_NOT, c.AT}
REPEATS = {c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT}  # the parse tree's repeat nodes
_CASE_FLAGS = re.IGNORECASE | re.LOCALE | re.ASCII
_FEW = 8  # the most characters a spelled-out first letter may stand for (three letters in their case forms)
_ANY_CHAR: Item = (c.IN, [(c.CATEGORY, c.CATEGORY_SPACE), (c.CATEGORY, c.CATEGORY_NOT_SPACE)])
# First characters so common in notes that a look-ahead for them costs more than it saves.
_BROAD_CATEGORIES = {c.CATEGORY_WORD, c.CATEGORY_NOT_WORD, c.CATEGORY_NOT_DIGIT, c.CATEGORY_NOT_SPACE}


def compile_fast(regex: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """`re.compile(regex, flags)`, rewritten to search faster where that is exact (see the module's docstring)."""
    try:
        return compile_tree(regex, fast_tree(regex, flags), flags)
    except Exception:  # a parse tree this module does not know: the plain compilation is exact
        return re.compile(regex, flags)


def fast_tree(regex: str, flags: int = re.IGNORECASE) -> Any:
    """The parse tree of `regex` with the rewrites of the module's docstring (an exception where it holds a node
    they do not know)."""
    parsed = sre_parse.parse(regex, flags)
    state, all_flags = parsed.state, parsed.state.flags
    data = _group_branches(list(parsed.data), state, all_flags)
    hoisted = _hoist(data, state, all_flags)
    if hoisted is not None:
        data = hoisted
    else:
        data = _guarded(data, state, all_flags)
    parsed.data, parsed.width = data, None
    return parsed


def compile_tree(regex: str, parsed: Any, flags: int) -> re.Pattern[str]:
    """`re._compiler.compile` for a rewritten tree, keeping the rule's own text as the pattern's `.pattern`
    (what error messages, the safety check and pickling read)."""
    code = sre_compile._code(parsed, flags)
    groupindex = parsed.state.groupdict
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    compiled: re.Pattern[str] = sre_compile._sre.compile(regex, flags | parsed.state.flags, code,
                                                         parsed.state.groups - 1, groupindex, tuple(indexgroup))
    return compiled


def _sub(state: Any, items: list[Item]) -> Any:
    return sre_parse.SubPattern(state, items)


def _uncased(item: Item, flags: int) -> bool:
    """True when `item` (one character) matches the same characters with or without IGNORECASE."""
    if not flags & re.IGNORECASE:
        return True
    op, av = item
    iscased = sre_compile._sre.unicode_iscased
    if op == c.LITERAL:
        return not iscased(av)
    if op == c.IN:
        for kind, value in av:
            if kind == c.NEGATE or (kind == c.LITERAL and iscased(value)):
                return False
            if kind == c.RANGE and any(iscased(ch) for ch in range(value[0], value[1] + 1)):
                return False
        return True
    return False


# The characters other than its two ASCII forms that an ASCII letter matches under IGNORECASE (tested against
# every code point in tests/redact/test_redact_regex_speed.py).
OTHER_CASES = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}


def _without_case(item: Item, state: Any, flags: int, spell: bool = True) -> Item | None:
    """One character `item` as an item that matches the same characters without IGNORECASE (so `re` can
    search for it directly), or None. Letters are spelled out in every case form; only ASCII classes are."""
    if _uncased(item, flags):
        return item
    if not spell:
        return None
    op, av = item
    if op == c.LITERAL:
        members = [av]
    elif op == c.IN and all(kind in (c.LITERAL, c.RANGE) for kind, _ in av):
        members = [ch for kind, value in av for ch in ([value] if kind == c.LITERAL else range(value[0], value[1] + 1))]
    else:
        return None
    if any(ch > 127 for ch in members):
        return None
    chars: set[int] = set()
    for ch in members:
        low = chr(ch).lower()
        chars.update(map(ord, low + low.upper() + OTHER_CASES.get(low, "")))
    if len(chars) > _FEW:
        return None  # any letter: nearly every position of a note would be tried anyway
    spelled = (c.IN, [(c.LITERAL, ch) for ch in sorted(chars)])
    return (c.SUBPATTERN, (None, 0, re.IGNORECASE, _sub(state, [spelled])))


def _hoist(seq: list[Item], state: Any, flags: int, spell: bool = True) -> list[Item] | None:
    """`seq` with its leading one-character look-behind moved behind the first character, or None. A letter is
    spelled out in its case forms only where `re` can then search for it (not inside alternatives, where the
    guard and the grouping do better)."""
    if len(seq) < 2:
        return None
    (op, av), (first_op, first_av) = seq[0], seq[1]
    if op != c.ASSERT_NOT or av[0] != -1 or len(av[1]) != 1 or av[1][0][0] not in _ATOMS:
        return None
    behind: Item = (c.ASSERT_NOT, (-1, _sub(state, [av[1][0], _ANY_CHAR])))
    rest = seq[2:]
    if first_op in _ATOMS:
        first = _without_case(seq[1], state, flags, spell)
        return None if first is None else [first, behind, *rest]
    if first_op in (c.MAX_REPEAT, c.MIN_REPEAT):
        low, high, body = first_av
        first = _without_case(body[0], state, flags, spell) if low >= 1 and len(body) == 1 \
            and body[0][0] in _ATOMS else None
        if first is None:
            return None
        tail = [] if high == 1 else [(first_op, (low - 1, high if high == c.MAXREPEAT else high - 1, body))]
        return [first, behind, *tail, *rest]
    if first_op == c.SUBPATTERN:  # the look-behind goes inside the group: it is zero-width, its start is kept
        group, add, delete, body = first_av
        inner = None if add or delete else _hoist([seq[0], *body], state, flags, spell)
        return None if inner is None else [(c.SUBPATTERN, (group, add, delete, _sub(state, inner))), *rest]
    if first_op == c.BRANCH:  # the look-behind goes into each alternative, in order
        alternatives = []
        for alternative in first_av[1]:
            inner = _hoist([seq[0], *alternative], state, flags, spell=False)
            if inner is None:
                return None
            alternatives.append(_sub(state, inner))
        return [(c.BRANCH, (None, alternatives)), *rest]
    return None


def _guarded(seq: list[Item], state: Any, flags: int) -> list[Item]:
    """`seq` behind a look-ahead for the characters a match can start with, when they are few."""
    found = first_chars(seq)
    if found is None or found[1]:
        return seq  # unknown, or the pattern can match the empty string
    chars = list(dict.fromkeys(found[0]))
    for kind, value in chars:
        if kind == c.CATEGORY and value in _BROAD_CATEGORIES:
            return seq
        if kind == c.RANGE and value[1] - value[0] >= 5:
            return seq
    return [(c.ASSERT, (1, _sub(state, [(c.IN, chars)]))), *seq]


def first_chars(seq: list[Item]) -> tuple[list[Item], bool] | None:
    """The set items one of which the first character of a match of `seq` is, and whether `seq` can match
    nothing; None when that is not known."""
    chars: list[Item] = []
    for item in seq:
        if item[0] in _ZERO_WIDTH:
            continue
        found = _first_of_item(item)
        if found is None:
            return None
        chars += found[0]
        if not found[1]:
            return chars, False
    return chars, True


def _first_of_item(item: Item) -> tuple[list[Item], bool] | None:
    op, av = item
    if op == c.LITERAL:
        return [item], False
    if op == c.IN:
        return None if any(kind == c.NEGATE for kind, _ in av) else (list(av), False)
    if op == c.SUBPATTERN:
        _group, add, delete, body = av
        return None if (add | delete) & _CASE_FLAGS else first_chars(list(body))
    if op == c.BRANCH:
        chars: list[Item] = []
        empty = False
        for alternative in av[1]:
            found = first_chars(list(alternative))
            if found is None:
                return None
            chars += found[0]
            empty = empty or found[1]
        return chars, empty
    if op in REPEATS:
        found = first_chars(list(av[2]))
        return None if found is None else (found[0], found[1] or av[0] == 0)
    if op == c.ATOMIC_GROUP:
        return first_chars(list(av))
    return None


def _group_branches(seq: list[Item], state: Any, flags: int) -> list[Item]:
    """`seq` with every alternation's alternatives that start with the same ASCII letter or mark tried behind
    it once (recursively)."""
    out: list[Item] = []
    for op, av in seq:
        if op == c.BRANCH:
            alternatives = [_group_branches(list(a), state, flags) for a in av[1]]
            out.append((c.BRANCH, (None, _grouped(alternatives, state, flags))))
        elif op == c.SUBPATTERN:
            group, add, delete, body = av
            inner = _group_branches(list(body), state, sre_compile._combine_flags(flags, add, delete))
            out.append((c.SUBPATTERN, (group, add, delete, _sub(state, inner))))
        elif op in REPEATS:
            low, high, body = av
            out.append((op, (low, high, _sub(state, _group_branches(list(body), state, flags)))))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            out.append((op, (av[0], _sub(state, _group_branches(list(av[1]), state, flags)))))
        else:
            out.append((op, av))
    return out


def _key(alternative: list[Item], flags: int) -> int | None:
    """The first character of an alternative when it is an ASCII literal (lower case under IGNORECASE)."""
    if not alternative or alternative[0][0] != c.LITERAL or alternative[0][1] > 127:
        return None
    char = alternative[0][1]
    # Under IGNORECASE distinct ASCII letters never match the same character ("k" and the Kelvin sign
    # are one key), so alternatives under different keys cannot both match at one position.
    return ord(chr(char).lower()) if flags & re.IGNORECASE else char


def _grouped(alternatives: list[list[Item]], state: Any, flags: int) -> list[Any]:
    """Alternatives that share a first character as one alternative: that character, then theirs in order.
    Exact: at a position only one key's character can match, and within a key the order is kept."""
    keys = [_key(a, flags) for a in alternatives]
    if None in keys or flags & re.LOCALE or len(set(keys)) == len(keys):
        return [_sub(state, a) for a in alternatives]
    out: list[Any] = []
    for key in dict.fromkeys(keys):
        members = [a for a, k in zip(alternatives, keys, strict=True) if k == key]
        if len(members) == 1:
            out.append(_sub(state, members[0]))
            continue
        tails = [_sub(state, m[1:]) for m in members]
        out.append(_sub(state, [members[0][0], (c.BRANCH, (None, tails))]))
    return out
