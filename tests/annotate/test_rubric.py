"""Rubrics are data: shipped ones load, a bad rubric file or card is a clear error naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.jury import write_generation_card

from medhelm_local.annotate.rubric import load_rubric, shipped
from medhelm_local.errors import ConfigError
from medhelm_local.scenarios import load_spec

RUBRIC = """rubric: 1
name: discharge
description: A discharge summary judged against the clinician's.
prompt: |-
  The record: {input}
  The summary: {response}
  The clinician's: {reference}
criteria:
  - name: accuracy
    asks: Is it correct?
    low: wrong
    high: correct
"""


def test_every_shipped_rubric_loads_with_medhelms_criteria_and_scale() -> None:
    assert {"clinical_note", "patient_answer", "care_plan", "clinical_text"} <= set(shipped())
    for name in shipped():
        rubric = load_rubric(name)
        assert (rubric.scale.min, rubric.scale.max) == (1, 5)
        expected = ["accuracy", "structure", "clarity"] if name == "care_plan" else ["accuracy", "completeness",
                                                                                    "clarity"]
        assert rubric.criterion_names == expected


def test_the_prompt_shows_input_answer_reference_criteria_and_the_json_asked_for() -> None:
    rubric = load_rubric("clinical_note")
    text = rubric.render(input="[doctor] any pain? {braces}", response="No pain.", reference="Denies pain.")

    assert "[doctor] any pain? {braces}" in text and "No pain." in text and "Denies pain." in text
    assert "- completeness:" in text and '"clarity": {"explanation": "...", "score": N}' in text
    schema = rubric.json_schema()
    assert schema["required"] == ["accuracy", "completeness", "clarity"]
    assert schema["properties"]["accuracy"]["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]


def test_a_rubric_file_beside_a_card_is_used(tmp_path: Path) -> None:
    (tmp_path / "discharge.yaml").write_text(RUBRIC)
    card = write_generation_card(tmp_path, 3, rubric="discharge.yaml")

    spec = load_spec(card)

    assert spec.rubric is not None and spec.rubric.name == "discharge"


@pytest.mark.parametrize(("old", "new", "message", "line"), [
    ("    high: correct\n", "    high: correct\n    weight: 2\n", "criteria.0.weight': unknown field", 13),
    ("  The summary: {response}", "  The summary: {response} for {patient_age}", "{patient_age}", 4),
    ("  The summary: {response}\n", "", "needs {response}", 4),
])
def test_a_bad_rubric_file_names_the_field_and_line(tmp_path: Path, old: str, new: str, message: str,
                                                    line: int) -> None:
    (tmp_path / "discharge.yaml").write_text(RUBRIC.replace(old, new))
    card = write_generation_card(tmp_path, 3, rubric="discharge.yaml")

    with pytest.raises(ConfigError, match=message.replace("{", r"\{").replace("}", r"\}")) as raised:
        load_spec(card)
    assert raised.value.where == f"{(tmp_path / 'discharge.yaml').resolve()}, line {line}"


def test_a_card_naming_an_unknown_rubric_or_none_for_its_jury_metric_is_an_error(tmp_path: Path) -> None:
    card = write_generation_card(tmp_path, 3, rubric="clinical_notes")
    with pytest.raises(ConfigError, match="no built-in rubric called 'clinical_notes'") as raised:
        load_spec(card)
    assert raised.value.fix is not None and "clinical_note" in raised.value.fix

    card.write_text(card.read_text().replace("rubric: clinical_notes\n", ""))
    with pytest.raises(ConfigError, match="jury, which needs a rubric"):
        load_spec(card)


def test_a_rubric_on_another_scale_than_the_jury_score_is_refused(tmp_path: Path) -> None:
    (tmp_path / "discharge.yaml").write_text(RUBRIC + "scale: {min: 0, max: 10}\n")
    card = write_generation_card(tmp_path, 3, rubric="discharge.yaml")

    with pytest.raises(ConfigError, match="scale is 0-10"):
        load_spec(card)
