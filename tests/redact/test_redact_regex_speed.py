"""The faster compilation of the rules' regexes finds exactly what the plain compilation finds."""

from __future__ import annotations

import re
import string
from array import array

import pytest
from support.regex_cases import RULES_PATH, texts
from support.regex_cases import found as _found
from support.regex_cases import shipped as _shipped

from medhelm_local.redact.regex_speed import OTHER_CASES, compile_fast
from medhelm_local.redact.regex_starts import Starts, matches_at, start_kind
from medhelm_local.redact.regex_windows import digit_gate, digit_window, matches_in, stretches, window

TEXTS = texts()


@pytest.mark.parametrize(("what", "regex"), _shipped(), ids=[w for w, _ in _shipped()])
def test_every_shipped_rule_finds_the_same_matches(what: str, regex: str) -> None:
    fast, plain = compile_fast(regex), re.compile(regex, re.IGNORECASE)
    assert fast.pattern == regex and fast.groupindex == plain.groupindex
    assert _found(fast, TEXTS) == _found(plain, TEXTS), what


@pytest.mark.parametrize("regex", [
    r"(?<![\w.,/-])\d{5}(?:-\d{4})?(?![\w])",          # hoisted from a repeat
    r"(?<![\w])\((?P<v>\d{3})\)",                        # hoisted from a literal
    r"(?<![\w.])(?P<v>9\d|1[0-2]\d)\+?",                 # into a group, then into each alternative
    r"(?<![\w''’])[''’](?P<v>\d{2})",                    # a mark first
    r"(?<![\w])(?:svr|sbp|sats?|pvr|k|kg)[ ]{0,2}\d",   # alternatives grouped by first letter, Kelvin sign and all
    r"(?<![\w])(?:is|in|i)[ ]\d",                        # dotted and dotless i
    r"(?:a|ab|b)c",                                      # order kept inside a group
    r"(?<![\w])(?:jan|feb)\.?[ ]{0,3}\d{1,2}",            # a guard before a look-behind
    r"(?<![\w])p\.?[ ]{0,2}o\.?[ ]{1,3}box",                # a letter spelled out in its case forms
    r"(?<![\w])(?P<v>[ik]\d)",                               # two letters with more than two forms
    r"x?(?<![\w])\d",                                     # can start with an optional letter: no hoist
    r"(?<!\d)[a-z]{1,4}\d",                               # broad first letters: compiled as written
    r"(?<![\w])(?-i:ABC|abc)\d",                          # local case flags: no guard
    r"(?P<a>\d)(?P=a)",                                    # a back-reference: compiled as written
])
def test_rewritten_shapes_match_as_written(regex: str) -> None:
    texts = [*TEXTS[:300], "\u212a5", "K5", "k 5", "\u0130n 3", "\u0131s 4", "ab5", "12345", "(123)", "'97", "ac bc"]
    assert _found(compile_fast(regex), texts) == _found(re.compile(regex, re.IGNORECASE), texts)


def test_every_case_form_of_an_ascii_letter_is_known() -> None:
    """Spelling a letter out replaces IGNORECASE only if no other character in Unicode matches it."""
    every = array("I", range(0x110000)).tobytes().decode("utf-32-le", "surrogatepass")
    for letter in string.ascii_lowercase:
        assert set(re.findall(letter, every, re.IGNORECASE)) == {letter, letter.upper(), *OTHER_CASES.get(letter, "")}


def test_most_shipped_rules_are_rewritten() -> None:
    """The speed comes from the rewrites: a rule compiled as written is slower, not wrong, so count them."""
    rewritten = [what for what, regex in _shipped() if compile_fast(regex) != re.compile(regex, re.IGNORECASE)]
    assert len(rewritten) >= 0.8 * len(_shipped())


def test_a_regex_the_rewrites_cannot_read_compiles_as_written() -> None:
    regex = r"(?<=ab)c|(a)?(?(1)x|y)"  # a conditional group: no rewrite knows it
    fast = compile_fast(regex, 0)
    assert fast.pattern == regex
    assert [m.span() for m in fast.finditer("abc y ax")] == [(2, 3), (4, 5), (6, 8)]


def _starts_kinds() -> list[tuple[str, str, str]]:
    kinds = [(what, regex, start_kind(regex)) for what, regex in _shipped()]
    return [(what, regex, kind) for what, regex, kind in kinds if kind is not None]


@pytest.mark.parametrize(("what", "regex", "kind"), _starts_kinds(), ids=[w for w, _, _ in _starts_kinds()])
def test_rules_tried_at_their_starts_find_what_finditer_finds(what: str, regex: str, kind: str) -> None:
    """A rule tried only where a digit follows no word character nor one of the marks its look-behind names finds
    every match a full search does (the places are a superset of where it can start) and no other."""
    fast, plain = compile_fast(regex), re.compile(regex, re.IGNORECASE)
    found = [[(m.span(), m.groups(), m.groupdict()) for m in matches_at(fast, t, Starts(t).of(kind))] for t in TEXTS]
    assert found == _found(plain, TEXTS), what


def test_digit_rules_are_tried_at_their_starts() -> None:
    """The speed-up reaches the rules it was built for (a rule pack change that loses it shows here)."""
    kinds = {what: start_kind(regex) for what, regex in _shipped()}
    assert kinds["pattern ssn"] == "-" and kinds["pattern zip"] == ",-./" and kinds["negative shift_times"] == "-./:"
    assert sum(kind is not None for kind in kinds.values()) >= 30
    assert kinds["pattern phone_nanp"] is None  # may start with "+" or "(": searched as written
    assert kinds["pattern phone_trunk"] is None  # starts with "0", which `re` finds cheaply itself
    assert kinds["pattern event_year"] is None  # starts with a letter
    assert start_kind(r"(?<![.])\d{3}") is None  # a look-behind that lets a word character stand before it
    assert start_kind(r"(?<![\w])\d?x") is None  # may start with a letter or a digit



def _windows() -> list[tuple[str, str, tuple[int, int, int]]]:
    """The rules searched near their digits, and a few more of other shapes the analysis reads (the search is
    exact for any rule with a digit window; only the long runs make it pay)."""
    more = {"pattern phone_nanp", "pattern event_year", "pattern extension", "pattern age_said",
            "negative vital_ranges"}
    found = [(what, regex, digit_window(regex)) for what, regex in _shipped() if start_kind(regex) is None]
    return [(what, regex, where) for what, regex, where in found
            if where is not None and (window(regex) is not None or what in more)]


@pytest.mark.parametrize(("what", "regex", "where"), _windows(), ids=[w for w, _, _ in _windows()])
def test_rules_searched_near_their_digits_find_what_finditer_finds(what: str, regex: str,
                                                                   where: tuple[int, int, int]) -> None:
    """A letter-led rule searched only in the stretches before long enough digit runs, each search cut past the
    farthest character a match there reads, finds every match a full search does and no other."""
    fast, plain = compile_fast(regex), re.compile(regex, re.IGNORECASE)
    found = [[(m.span(), m.groups(), m.groupdict())
              for m in matches_in(fast, t, stretches(Starts(t), where[0], where[1]), where[2])] for t in TEXTS]
    assert found == _found(plain, TEXTS), what


def test_letter_led_rules_needing_long_digit_runs_are_searched_near_them() -> None:
    """The windows reach the rules they were built for, and their figures are read off the parse tree."""
    kept = {what for what, regex in _shipped() if start_kind(regex) is None and window(regex) is not None}
    assert kept == {"pattern letters_digits", "pattern military_post"}
    assert digit_window(r"(?<![\w-])[a-z]{1,4}-?\d{5,14}[a-z]{0,2}(?![\w])") == (5, 5, 22)
    assert digit_window(r"(?:ab|c)?(?:\(\d{3}\)|x\d{2})") == (3, 2, 7)  # optional letters, then either branch
    assert digit_window(r"(?<![\w])[a-z]{1,3}(?!\d)") is None  # no digit needed
    assert digit_window(r"[a-z]+\d") is None  # unbounded: no farthest character


def test_token_rule_regexes_gated_or_tried_at_line_starts_find_what_finditer_finds() -> None:
    """A note the gate search passes over holds no match of the regex it guards, and line initials tried at line
    starts are those a full search finds."""
    from medhelm_local.redact import inhouse, initials

    gated = [(inhouse._USER_ID_GATE, inhouse._USER_ID), (inhouse._SIGNOFF_GATE, inhouse._SIGNOFF),
             (initials._TRAILING_GATE, initials._TRAILING_INITIALS)]
    texts = [*TEXTS, "smith12 ok", "ABT:smith", "done. -JT", "x\nKJB\n", "by kl/jm  "]
    for gate, full in gated:
        assert [t for t in texts if gate.search(t) is None and full.search(t)] == [], full.pattern
    lines = [[m.span() for m in matches_at(initials._LINE_INITIALS, t, [0, *(m.end() for m in re.finditer("\n", t))])]
             for t in texts]
    assert lines == [[m.span() for m in initials._LINE_INITIALS.finditer(t)] for t in texts]


def test_label_words_found_in_the_lower_case_note_are_those_found_word_by_word() -> None:
    """One search of the lower-case note for the label words finds the words a lookup of every word finds."""
    from medhelm_local.redact.patterns import _LABEL_START, load_rules

    rules = load_rules(RULES_PATH)
    assert rules.label_start_regex is not None
    texts = [*TEXTS, "MRN: 12345", "\u212aEY 4", "ſsn 123", "\u0130D 5", "pt-id#3 " + "a" * 45, "ΣΣ mrn"]
    for text in texts:
        lower = text.lower()
        old = [w.start() for w in _LABEL_START.finditer(text) if w.group().lower() in rules.label_starts]
        assert rules.label_places(text, lower) == old, text


def test_a_rule_finds_nothing_where_its_digit_gate_finds_nothing() -> None:
    """The gate (the digits a letter-led rule needs, with the marks before them) holds in every match."""
    gated = [(what, regex, digit_gate(regex)) for what, regex in _shipped() if start_kind(regex) is None]
    gated = [(what, regex, gate) for what, regex, gate in gated if gate is not None]
    assert {"pattern accession", "pattern iban", "negative vital_ranges"} <= {what for what, _, _ in gated}
    assert [m.group() for m in digit_gate(r"(?<![\w-])[a-z]{1,4}\d{0,3}-\d{2,6}").finditer("ab-12 x-3")] == ["-12"]
    assert digit_gate(r"(?<![\w])[a-z]{2}[ ]{0,2}\d{2}") is None  # two digits: nearly every note holds them
    for what, regex, gate in gated:
        plain = re.compile(regex, re.IGNORECASE)
        assert [t for t in TEXTS if gate.search(t) is None and plain.search(t)] == [], what
