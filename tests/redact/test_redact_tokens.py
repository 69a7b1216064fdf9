"""Tokens keep their definition on every kind of line: ASCII with and without apostrophes, accented, mixed."""

from __future__ import annotations

import re

from support import phi_notes

from medhelm_local.redact.tokens import TokenList, fold, plain_spaces, tokenize, where

WORDS = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")
LINES = ["Pt seen by Dr. O'Brien and D’Angelo; son's cell 508-555-0100.", "PÉREZ, josé: 2 días", "x'y don't İstanbul",
         "ΟΔΟΣ'Α ½ Ⅻ ²", "no apostrophe here, 12 words and more words", "", "'", "a\r\nb\u2028c\n\n  d"]


def _check(text: str) -> None:
    tokens = tokenize(text)
    assert [t.start for t in tokens] == sorted(t.start for t in tokens)
    for tok in tokens:
        assert text[tok.start:tok.end] == tok.text
        assert tok.key == fold(tok.text.lower()).replace("'", "").replace("’", "")
        # a digit is what int() reads: "²" and "③" are marks, "٣" is a digit
        assert tok.kind == ("w" if tok.text[0].isalpha() else "d" if tok.text.isdecimal() else "p")
    # Every word, digit run and mark is a token or part of one ("O'Brien" joins three).
    covered = {i for tok in tokens for i in range(tok.start, tok.end)}
    assert all(m.start() in covered for m in WORDS.finditer(text))
    lines = {i: n for n, m in enumerate(re.finditer(r"[^\n\r\u2028]*(?:\r\n|[\n\r\u2028])?", text)) for i in
             range(m.start(), m.end())}
    for i, tok in enumerate(tokens):
        if len(tok.text) == 1 or not set(tok.text) & {"'", "’"}:  # a joined name opening a line is not marked
            assert tok.first == (i == 0 or lines[tokens[i - 1].start] != lines[tok.start])


def test_tokens_of_every_annotated_note_keep_their_definition() -> None:
    for name in phi_notes.SETS:
        for note in phi_notes.load(name):
            _check(note.text)
            _check(note.text.upper())


def test_tokens_of_awkward_lines() -> None:
    for line in LINES:
        _check(line)
    assert [t.key for t in tokenize("Dr. O'Brien")] == ["dr", ".", "obrien"]
    assert [t.key for t in tokenize("don't")] == ["don", "", "t"]  # a contraction stays apart


def test_case_mode_of_a_line_counts_its_letters() -> None:
    mixed, caps = tokenize("Seen today by the covering physician"), tokenize("SEEN TODAY BY THE COVERING PHYSICIAN")
    assert all(t.cased for t in mixed) and not any(t.cased for t in caps)
    assert all(t.cased for t in tokenize("Visto hoy por el médico de guardia"))


def test_where_finds_the_tokens_of_any_keys_in_order() -> None:
    """The index of a note's keys gives what a scan of every token gives, for few keys or many, and for a plain
    list of tokens too."""
    notes = [note.text for note in phi_notes.load("dev5")[:20]] + LINES
    for text in notes:
        tokens = tokenize(text)
        assert isinstance(tokens, TokenList)
        keys = sorted({t.key for t in tokens})
        for wanted in [set(), {"to"}, {"from", "at", "to", "nowhere"}, set(keys[::3]), set(keys), {"", "'"}]:
            scanned = [i for i, t in enumerate(tokens) if t.key in wanted]
            assert tokens.where(frozenset(wanted)) == scanned
            assert where(list(tokens), wanted) == scanned
            assert where(tokens, {k: None for k in wanted}) == scanned  # a dict's keys serve as the set


def test_a_token_list_copied_and_changed_has_its_own_index() -> None:
    tokens = tokenize("back to farr 7 from osh")
    assert tokens.where({"osh"}) == [5]
    changed = TokenList(tokens)
    changed[5] = changed[5]._replace(key="hospital")
    assert changed.where({"osh"}) == [] and changed.where({"hospital"}) == [5] and tokens.where({"osh"}) == [5]


def test_plain_spaces_keeps_the_length_and_leaves_tabs_and_breaks() -> None:
    text = "Dr.\u00a0Smith\t617\u202f555\u20090124\nnext\u3000line"
    plain = plain_spaces(text)
    assert plain == "Dr. Smith\t617 555 0124\nnext line"
    assert len(plain) == len(text)
