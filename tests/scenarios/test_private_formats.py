"""MedHELM's private-benchmark formats: the documented example cards, pointed at files in MedHELM's shapes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError, RunEntryError
from medhelm_local.metrics.exact_match import EXACT_MATCH
from medhelm_local.scenarios import DataRoot, load_spec
from medhelm_local.scenarios.benchmark import Benchmark

FIXTURES = REPO / "tests" / "data" / "private"
EXAMPLES = REPO / "docs" / "private-benchmarks"


def example(name: str, tmp_path: Path, args: dict[str, str] | None = None) -> Benchmark:
    """The documented example card, next to the synthetic file of its format, as a hospital would place it."""
    card = shutil.copy(EXAMPLES / f"{name}.yaml", tmp_path / f"{name}.yaml")
    data = FIXTURES / ("CLEAR" if name == "clear" else f"{name}.csv")
    if data.is_dir():
        shutil.copytree(data, tmp_path / data.name)
    else:
        shutil.copy(data, tmp_path / data.name)
    return load_spec(Path(card)).create(args)


def load(bench: Benchmark, tmp_path: Path) -> list:  # type: ignore[type-arg]
    return bench.load(DataRoot(tmp_path / "no-data-root"))


def test_every_format_has_a_documented_example_card_that_loads_its_file(tmp_path: Path) -> None:
    from medhelm_local.scenarios.formats import all_formats

    documented = {load_spec(path).card.data.format for path in EXAMPLES.glob("*.yaml")}

    assert documented == set(all_formats())


def test_shc_rows_are_instances_by_row_even_when_two_rows_are_the_same(tmp_path: Path) -> None:
    bench = example("shc_ptbm_med", tmp_path)
    instances = load(bench, tmp_path)

    assert [i.id for i in instances] == ["1", "2", "3", "4"]  # MedHELM keys by prompt text: rows 1 and 3 collapse
    assert instances[0].input == instances[2].input
    assert [i.correct_references[0].text for i in instances] == ["A", "B", "A", "B"]
    assert len(instances[3].input) > 140_000  # a field longer than csv's default limit is read whole
    assert bench.access == "private"


def test_shc_prompt_letters_the_answers_and_reads_yes_as_a(tmp_path: Path) -> None:
    bench = example("shc_ptbm_med", tmp_path)
    first = load(bench, tmp_path)[0]

    text = bench.render(first).text

    assert text.startswith("Answer A or B.\n\nYou are reviewing a clinical note")
    assert text.endswith("just a simple A or B response.\nA. A\nB. B\nAnswer:")
    assert {s.metric: s.value for s in bench.score(first, "A")}[EXACT_MATCH] == 1.0
    assert {s.metric: s.value for s in bench.score(first, "Yes")}[EXACT_MATCH] == 1.0
    assert {s.metric: s.value for s in bench.score(first, "B")}[EXACT_MATCH] == 0.0


def test_the_question_variant_reads_with_the_same_card(tmp_path: Path) -> None:
    bench = example("shc_ptbm_med", tmp_path, {"data_path": str(FIXTURES / "shc_sequoia_med.csv")})

    instances = load(bench, tmp_path)

    assert [i.correct_references[0].text for i in instances] == ["A", "B"]
    assert "following Was the referral accepted? with the following context" in instances[0].input


def test_a_row_without_a_label_is_named(tmp_path: Path) -> None:
    bench = example("shc_ptbm_med", tmp_path)
    (tmp_path / "shc_ptbm_med.csv").write_text("prompt,context,label\nQ?,note,A\nQ?,note,\n")

    with pytest.raises(DatasetCorruptError, match="row 2 has no label"):
        load(bench, tmp_path)


def test_clear_reads_the_conditions_workbook_and_skips_empty_rows(tmp_path: Path) -> None:
    bench = example("clear", tmp_path)
    instances = load(bench, tmp_path)

    assert [i.id for i in instances] == ["2", "3", "5"]  # sheet rows; row 4 has no text
    assert [i.correct_references[0].text for i in instances] == [
        "Has a history of alcohol dependence", "Does not have a history of alcohol dependence", "Uncertain"]
    text = bench.render(instances[0]).text
    assert text.startswith("Answer 'A' for 'Has a history of alcohol dependence', 'B' for")
    assert "Original Clinical Note:\nPatient reports drinking" in text
    assert text.endswith("C. Uncertain\n\nAnswer:\nA. Has a history of alcohol dependence\n"
                         "B. Does not have a history of alcohol dependence\nC. Uncertain\n"
                         "Respond only with 'A', 'B', or 'C'. Do not add any other text, punctuation, or symbols:")


def test_clear_names_a_condition_without_its_workbook(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError, match="no spreadsheet for the condition homelessness"):
        load(example("clear", tmp_path, {"condition": "homelessness"}), tmp_path)
    with pytest.raises(RunEntryError, match="clear has no condition 'gout'"):
        load_spec(tmp_path / "clear.yaml").create({"condition": "gout"})


def test_chw_care_plan_skips_rows_without_a_note_and_references_the_note(tmp_path: Path) -> None:
    bench = example("chw_care_plan", tmp_path)
    instances = load(bench, tmp_path)

    assert [i.id for i in instances] == ["1", "3"]
    assert instances[0].correct_references[0].text.startswith("Client reports knee pain")
    assert instances[0].input.endswith("Clinical Note:\n" + instances[0].correct_references[0].text)


def test_mental_health_and_patient_instructions_keep_medhelms_layout(tmp_path: Path) -> None:
    counselling = example("mental_health", tmp_path)
    dialogue = load(counselling, tmp_path)[0]
    assert counselling.render(dialogue).text.endswith(
        "client: I feel I do not fit in at work.\n\nGenerate an empathetic and appropriate counselor response:\n"
        "Counselor response:")

    surgery = example("starr_patient_instructions", tmp_path)
    cases = load(surgery, tmp_path)
    assert [c.id for c in cases] == ["1", "3"]  # QC FALSE and a case without its H&P are left out
    assert surgery.render(cases[0]).text.split("\n\n", 1)[1].startswith("Case Details: Diagnosis: Inguinal hernia")


def test_a_record_column_is_marked_for_truncation(tmp_path: Path) -> None:
    from medhelm_local.scenarios.long_inputs import long_span

    instance = load(example("mental_health", tmp_path), tmp_path)[1]
    start, end = long_span(instance)

    assert instance.input[start:end] == "counselor: How have you been sleeping?\nclient: Barely, I keep worrying."
