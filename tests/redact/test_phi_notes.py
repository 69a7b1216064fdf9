"""The hand-annotated note sets: offsets that slice to their values, JSONL built from the markup, sizes, and
the recall `policy check` states is the one the independent set measures."""

from __future__ import annotations

from collections import Counter

import pytest
from support.phi_notes import FOLDER, NEUTRAL, SETS, load, parse_markup, to_jsonl
from support.phi_scoring import Tally

from medhelm_local.redact import detect
from medhelm_local.redact.quality import INDEPENDENT_NOTES, INDEPENDENT_PRECISION, INDEPENDENT_RECALL, residual_risk
from medhelm_local.redact.types import PhiType

STYLES = {"nursing_caps", "nursing_lower", "letter", "ed", "discharge"}


@pytest.mark.parametrize("name", SETS)
def test_jsonl_is_what_the_markup_builds(name: str) -> None:
    markup = (FOLDER / f"{name}.txt").read_text(encoding="utf-8")
    assert (FOLDER / f"{name}.jsonl").read_text(encoding="utf-8") == to_jsonl(parse_markup(markup))


@pytest.mark.parametrize("name", SETS)
def test_every_span_slices_to_its_value_with_a_known_type(name: str) -> None:
    notes = load(name)  # raises when an offset does not hold its value
    assert len({n.id for n in notes}) == len(notes)
    for note in notes:
        assert note.style in STYLES, note.id
        for span in note.spans:
            assert span.type == NEUTRAL or span.type in PhiType.__members__, (note.id, span)
            assert span.value == span.value.strip() and span.value, (note.id, span)


def test_independent_set_has_forty_notes_in_every_style() -> None:
    styles = Counter(n.style for n in load("independent"))
    assert sum(styles.values()) >= 40
    assert set(styles) == STYLES and min(styles.values()) >= 8


def test_a_mark_left_open_is_refused() -> None:
    with pytest.raises(ValueError, match="not closed"):
        parse_markup("### x-1 ed\nSeen by {{NAME|Lee today.\n")


def test_the_recall_policy_check_states_is_what_the_independent_set_measures() -> None:
    tally = Tally()
    for note in load("independent"):
        gold = [(s.start, s.end, "" if s.type == NEUTRAL else s.type, s.cls) for s in note.spans]
        tally.add((note.text, gold), [(s.start, s.end, s.type.value) for s in detect(note.text)])
    assert round(tally.recall(), 3) == INDEPENDENT_RECALL, "restate redact/quality.py, the README and the report"
    assert round(tally.precision(), 3) == INDEPENDENT_PRECISION
    assert len(load("independent")) == INDEPENDENT_NOTES
    assert f"measured recall {INDEPENDENT_RECALL:.3f}" in residual_risk()
