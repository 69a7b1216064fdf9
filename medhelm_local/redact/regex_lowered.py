"""A rule's twin for the lower-case copy of an ASCII note: the same matches, searched without IGNORECASE.

Under IGNORECASE `re` lowers every character of the note before each test of a letter or a class, which costs
about a third of a rule's search. A note written in ASCII has a lower-case copy of the same length (the detector
has it already), and on that copy a rule can be searched case-sensitively: each one-character test of the rule
(a letter, a class, a negated letter) is replaced by the set of characters it accepts among those the copy can
hold (ASCII, no capitals), read off the test itself under the flags in force there. A test that tells a letter's
cases apart (a case-sensitive part of a rule: "(?-i:TAY-SACHS)"), or a case-sensitive back-reference, cannot be
read on the copy, which has lost them: such a rule gets no twin, nor does one holding a node this module does
not know; it is searched as written. A rule so rewritten finds, on the copy, exactly the spans and groups the
rule finds on the note; a check that reads the matched text is given the match on the note itself
(`patterns.find_pattern_spans`). A twin keeps its rule's text as its `.pattern` (for messages), so a pickled one
would come back as the rule compiled case-sensitively: twins are built where they are used, never pickled.
tests/redact/test_redact_regex_lowered.py checks every shipped rule's twin against the rule.
"""

from __future__ import annotations

import re
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from medhelm_local.redact.regex_speed import REPEATS, compile_tree, fast_tree

Item = tuple[Any, Any]

# What the lower-case copy of an ASCII note can hold: every ASCII character but the capitals.
COPY_ALPHABET = "".join(chr(i) for i in range(128) if not "A" <= chr(i) <= "Z")
_ONE_CHARACTER = {c.LITERAL, c.NOT_LITERAL, c.IN}
_KEPT = {c.AT, c.ANY}  # nothing of case in them
_ASCII = "".join(chr(i) for i in range(128))


class _UnknownNodeError(Exception):
    """A node of the parse tree this module does not rewrite."""


def lowered_twin(regex: str, flags: int = re.IGNORECASE) -> re.Pattern[str] | None:
    """The twin of `regex` (compiled as `regex_speed.compile_fast` compiles it) for lower-case ASCII text, or None
    where the rule's parse tree holds a node this module does not know."""
    try:
        parsed = fast_tree(regex, flags)
        parsed.data = _rewrite(list(parsed.data), flags | parsed.state.flags)
        parsed.state.flags &= ~re.IGNORECASE
        parsed.width = None
        return compile_tree(regex, parsed, flags & ~re.IGNORECASE)
    except (_UnknownNodeError, re.error, RecursionError):
        return None


def _rewrite(seq: list[Item], flags: int) -> list[Item]:
    out = []
    for op, av in seq:
        if op in _ONE_CHARACTER:
            out.append(_one_character((op, av), flags & re.IGNORECASE))
        elif op in _KEPT or (op == c.GROUPREF and flags & re.IGNORECASE):  # the copy lowers both sides alike
            out.append((op, av))
        elif op == c.SUBPATTERN:
            group, add, delete, body = av
            inner = (flags | add) & ~delete
            out.append((op, (group, add & ~re.IGNORECASE, delete & ~re.IGNORECASE, _again(body, inner))))
        elif op == c.BRANCH:
            out.append((op, (av[0], [_again(b, flags) for b in av[1]])))
        elif op in REPEATS:
            out.append((op, (av[0], av[1], _again(av[2], flags))))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            out.append((op, (av[0], _again(av[1], flags))))
        elif op == c.ATOMIC_GROUP:
            out.append((op, _again(av, flags)))
        elif op == c.GROUPREF_EXISTS:
            out.append((op, (av[0], _again(av[1], flags), None if av[2] is None else _again(av[2], flags))))
        else:
            raise _UnknownNodeError(op)
    return out


def _again(body: Any, flags: int) -> Any:
    return sre_parse.SubPattern(body.state, _rewrite(list(body.data), flags))


def _one_character(item: Item, ignorecase: int) -> Item:
    """`item` as a case-sensitive test accepting, among COPY_ALPHABET, what `item` accepts under `ignorecase`;
    _UnknownNodeError where it accepts a letter in one case and not the other (the copy cannot tell them apart)."""
    key = repr(item)
    every = _accepted(key, item, ignorecase, _ASCII)
    if any((ch in every) != (ch.lower() in every) for ch in _ASCII if ch.isupper()):
        raise _UnknownNodeError(item)
    accepted = "".join(ch for ch in every if ch in COPY_ALPHABET)
    if accepted == _accepted(key, item, 0, COPY_ALPHABET):
        return item  # no capital changes what it accepts here (a digit, a space): `re` tests it fastest as it is
    if not accepted:
        return (c.IN, [(c.LITERAL, 0x80)])  # nothing on the copy: a character an ASCII note never holds
    if len(accepted) == 1:
        return (c.LITERAL, ord(accepted))
    return (c.IN, [(c.LITERAL, ord(ch)) for ch in accepted])


_SEEN: dict[tuple[str, int, str], str] = {}  # (an item's text, its flags) -> what it accepts: rules share their classes


def _accepted(key: str, item: Item, ignorecase: int, alphabet: str) -> str:
    """The characters of `alphabet` that the one-character `item` accepts under these flags."""
    found = _SEEN.get((key, ignorecase, alphabet))
    if found is None:
        state = sre_parse.State()
        state.flags = ignorecase
        tree = sre_parse.SubPattern(state, [item])
        test = compile_tree("", tree, ignorecase)
        found = _SEEN[(key, ignorecase, alphabet)] = "".join(ch for ch in alphabet if test.fullmatch(ch))
    return found
