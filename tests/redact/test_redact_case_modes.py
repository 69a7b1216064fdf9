"""A note written in lower case with its shorthand in capitals ("pt c/o CP, MD aware. son john called"), or with only
its sentences' first words capitalised ("Son john called. Wife mary at bedside."), reads as a lower-case note: the
rules for lines without case find the lower-case names, wards and places they find when every letter is small. A
writer who uses case (names capitalised inside sentences) is still read with case, so "son will call" and "Mark the
site" stay words there, and a form's "Name: Chise T. Horiguchi" keeps its first name."""

from __future__ import annotations

import re

import pytest

from medhelm_local.redact import detect
from medhelm_local.redact.tokens import tokenize

# Lower-case ICU notes, and the shorthand a lower-case writer types in capitals.
NOTES = [
    "pt c/o cp overnight, md aware, ekg unchanged. son john called, wife mary at bedside. dr pike aware of k 3.2, "
    "repleted. plan to transfer to baker 4 when bed available.",
    "neuro: a+ox3, mae. resp: ls clear, 2l nc. pt lives in braintree with dtr lisa, transferred from st agnes "
    "general 4/10. cxr this am unchanged, abg 7.38/40/88. npo after mn for ct.",
    "sicu npn 7p-7a\npod 2 s/p lap chole, tol clears. pain 3/10 w/ prn iv morphine.\n"
    "pt's partner jess rooming in, cell 617 555 0124.\npt's surgeon dr ferenczi wants pt d/c home in am.\nkd rn",
]
SHORTHAND = {"cp", "md", "ekg", "k", "mae", "ls", "nc", "cxr", "abg", "npo", "mn", "ct", "sicu", "npn", "prn", "iv",
             "rn", "pod", "dtr"}


def _shorthand_in_capitals(text: str) -> str:
    return re.sub(r"[a-z0-9]+", lambda m: m.group().upper() if m.group() in SHORTHAND else m.group(), text)


def _found(text: str) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.type.value) for s in detect(text)]


@pytest.mark.parametrize("note", NOTES)
def test_shorthand_in_capitals_finds_what_the_lower_case_note_does(note: str) -> None:
    mixed = _shorthand_in_capitals(note)
    assert mixed != note and mixed.lower() == note
    assert _found(mixed) == _found(note)
    assert len(_found(note)) >= 4


def test_the_names_a_lower_case_writer_leaves_small_are_found() -> None:
    text = "pt c/o CP overnight, MD aware. son john called, wife mary at bedside. K 3.2, to baker 4 when bed ready."
    found = {text[s.start:s.end] for s in detect(text)}
    assert {"john", "mary", "baker 4"} <= found


def test_a_line_of_a_lower_case_note_with_a_capitalised_name_keeps_its_case() -> None:
    text = "pt c/o CP overnight, MD aware, ekg unchanged.\nson John called from home, will visit in the am."
    tokens = tokenize(text)
    first, second = [t for t in tokens if t.start < text.index("\n")], [t for t in tokens if t.start > text.index("\n")]
    assert not any(t.cased for t in first) and all(t.cased for t in second)
    assert "John" in {text[s.start:s.end] for s in detect(text)}


def test_lab_symbols_written_with_a_capital_are_shorthand_too() -> None:
    text = "labs: Na 140, K 3.2, Mg 2.0, Hct 30. son tom aware of plan, will call back this evening."
    assert not any(t.cased for t in tokenize(text))
    assert "tom" in {text[s.start:s.end] for s in detect(text)}


@pytest.mark.parametrize("text", [
    "Son will call tomorrow. Mark the site before the procedure. Patient will walk with PT today.",
    "Pt seen by the covering physician, will continue current regimen, MD aware of BP and HR. Son to call in am.",
    "will continue current regimen, MD aware of BP.\nSon will call in the morning, Mark to visit.",
])
def test_a_writer_who_uses_case_is_read_with_case(text: str) -> None:
    first_line = text.split("\n")[0]
    assert all(t.cased for t in tokenize(text) if t.kind == "w" and t.start < len(first_line))
    assert _found(text) == []


def _sentences_capitalised(text: str) -> str:
    return re.sub(r"(^|[.!?]\s+|\n)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


@pytest.mark.parametrize("note", NOTES[:2])
def test_sentence_starts_in_capitals_find_what_the_lower_case_note_does(note: str) -> None:
    mixed = _sentences_capitalised(note)
    assert mixed != note and mixed.lower() == note
    assert {(a, b) for a, b, _ in _found(mixed)} == {(a, b) for a, b, _ in _found(note)}


@pytest.mark.parametrize(("text", "value"), [
    ("Name: Chise T. Horiguchi\nPhone: 0378 3549890", "Chise T. Horiguchi"),
    ("What's your last name? Baba", "Baba"),
    ("Karin M. Beike\nLeasing consultant\nFritz-Armstrong", "Karin M. Beike"),
])
def test_a_form_or_an_address_with_case_keeps_its_names(text: str, value: str) -> None:
    assert value in {text[s.start:s.end] for s in detect(text)}
