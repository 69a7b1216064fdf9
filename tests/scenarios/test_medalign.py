"""MedAlign: instructions, first-annotator responses and each patient's XML record, joined as MedHELM joins them."""

from __future__ import annotations

from pathlib import Path

from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.long_inputs import long_span


def test_instructions_with_a_first_annotator_response_are_instances(gated_root: Path) -> None:
    bench = create("medalign")
    instances = bench.load(DataRoot(gated_root))

    assert [i.id for i in instances] == ["1", "2", "4"]  # 3 has only a second annotator's response
    assert [i.correct_references[0].text for i in instances] == [
        "Lisinopril was started at the last visit.", "Allergic to penicillin (rash).", "On 01/01/2099."]
    first = instances[0]
    assert first.input.startswith('Instruction: Answer the following question based on the EHR:\n\nEHR: '
                                  '<eventstream person_id="1001">')
    assert first.input.endswith("</eventstream>\n\n\nQuestion: What medication was started at the last visit?"
                                "\n\nAnswer:")
    # No instructions or nouns of its own; HELM's generation adapter ends the input with a line break.
    assert bench.render(first).text == first.input + "\n"
    start, end = long_span(instances[2])
    assert instances[2].input[start:end].count("<visit ") == 120


def test_max_length_is_medhelms_argument_with_its_default(gated_root: Path) -> None:
    assert create("medalign").max_length == 40000
    assert create("medalign", {"max_length": "100000"}).max_length == 100000
