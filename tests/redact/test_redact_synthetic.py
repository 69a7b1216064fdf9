"""The seeded note generator: deterministic, well-formed gold spans, and a recall floor as a regression guard."""

from __future__ import annotations

import itertools

from medhelm_local.redact import detect
from medhelm_local.redact.synthetic import STYLES, generate


def test_same_seed_same_notes_and_every_style() -> None:
    first, again = generate(8, seed=5), generate(8, seed=5)
    assert first == again
    assert {n.style for n in first} == set(STYLES)
    assert generate(8, seed=6) != first


def test_gold_spans_lie_inside_the_text_and_do_not_overlap() -> None:
    for note in generate(20, seed=1):
        spans = sorted(note.spans)
        assert spans, note.id
        assert all(0 <= s.start < s.end <= len(note.text) for s in spans)
        assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
        assert all(note.text[s.start:s.end].strip() == note.text[s.start:s.end] for s in spans)


def test_nursing_notes_are_all_capitals() -> None:
    nursing = [n for n in generate(8, seed=2) if n.style == "nursing"]
    assert nursing and all(n.text == n.text.upper() for n in nursing)


def test_detector_recall_floor_on_generated_notes() -> None:
    gold = found = 0
    for note in generate(40, seed=11):
        predicted = detect(note.text)
        for span in note.spans:
            gold += 1
            found += any(p.start < span.end and span.start < p.end for p in predicted)
    assert found / gold >= 0.95
