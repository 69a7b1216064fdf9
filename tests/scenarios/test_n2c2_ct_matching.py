"""n2c2 2018 Track 1: one patient per test file, MedHELM's prompt, the criterion's label."""

from __future__ import annotations

from pathlib import Path

import pytest

from medhelm_local.errors import RunEntryError
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.long_inputs import long_span


def test_test_patients_are_read_and_training_ones_left_out(gated_root: Path) -> None:
    for subject, labels in (("ABDOMINAL", ["yes", "no", "no"]), ("CREATININE", ["no", "yes", "no"]),
                            ("ADVANCED-CAD", ["no", "yes", "no"])):
        instances = create("n2c2_ct_matching", {"subject": subject}).load(DataRoot(gated_root))
        assert [i.id for i in instances] == ["100", "101", "102"]
        assert [i.correct_references[0].text for i in instances] == labels


def test_the_prompt_heads_each_note_with_its_date_and_ends_with_the_question(gated_root: Path) -> None:
    bench = create("n2c2_ct_matching", {"subject": "CREATININE"})
    first, second, undated = bench.load(DataRoot(gated_root))

    assert first.input.startswith('\n    # Task\n    Your job is to decide whether the given patient meets the '
                                  'inclusion criterion for a clinical trial.\n\n    # Inclusion Criterion\n    The '
                                  'inclusion criterion being assessed is: "CREATININE".\n    The definition of the '
                                  'inclusion criterion is: "Serum creatinine level above the upper normal limit".')
    assert "current health status.     Each note is separated" in first.input
    assert "## Note #1\nDate: 2090-01-05\nRecord date: 2090-01-05\n\nInvented visit." in first.input
    # Newlines as MedHELM reads them: each run of three becomes one (four leave two).
    assert "History of appendectomy in 2080.\n\nCreatinine 0.9." in first.input
    assert "## Note #3\nDate: \nUndated addendum" in second.input
    assert "Assume that the current date is: 2089-02-14\n" in second.input  # the last dated note
    assert "Assume that the current date is: None\n" in undated.input
    start, end = long_span(first)
    assert first.input[start:end].startswith("## Note #1") and first.input[end:].startswith("\n\n    ----")
    assert bench.render(first).text.endswith('"CREATININE"?\n    \nA. yes\nB. no\nAnswer A for yes, B for no. Do not '
                                             'add any other text, punctuation, or symbols:')


def test_a_subject_medhelm_does_not_evaluate_is_refused() -> None:
    with pytest.raises(RunEntryError, match="n2c2_ct_matching has no subject 'HBA1C'"):
        create("n2c2_ct_matching", {"subject": "HBA1C"})
