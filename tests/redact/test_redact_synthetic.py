"""The seeded note generator: deterministic, well-formed gold spans, and a recall floor as a regression guard."""

from __future__ import annotations

import itertools

import pytest
from support.synthetic_notes import STYLES, SyntheticNote, generate
from support.synthetic_values import pools_for

from medhelm_local.redact import detect
from medhelm_local.settings import default_redaction_dir


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


def _recall(notes: list[SyntheticNote], spans_of: str = "spans") -> float:
    gold = hit = 0
    for note in notes:
        predicted = detect(note.text)
        for span in getattr(note, spans_of):
            gold += 1
            hit += any(p.start < span.end and span.start < p.end for p in predicted)
    return hit / max(1, gold)


def test_values_said_to_be_unlisted_are_in_no_shipped_list() -> None:
    # The measure is honest only if these names and towns cannot be looked up by the detector.
    pools = pools_for((default_redaction_dir() / "dictionaries").resolve())
    notes = generate(40, seed=3)
    unseen = [n.text[s.start:s.end] for n in notes for s in n.unseen]
    assert len(unseen) > 40
    assert not [v for v in unseen if v.split()[0].lower() in pools.known and len(v.split()) == 1]
    assert sum(len(n.unseen) for n in notes) / sum(len(n.spans) for n in notes) > 0.1


@pytest.mark.parametrize("style", STYLES)
def test_recall_floor_per_style_and_on_unlisted_values(style: str) -> None:
    notes = generate(40, seed=13, styles=(style,))
    assert _recall(notes) >= 0.97
    assert _recall(notes, "unseen") >= 0.95


def test_hard_negative_sentences_are_not_flagged() -> None:
    flagged = []
    for note in generate(40, seed=17):
        for span in detect(note.text):
            if any(a <= span.start < b for a, b in note.negatives):
                flagged.append(note.text[span.start:span.end])
    assert flagged == []
