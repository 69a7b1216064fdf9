"""MedDialog and MedMCQA: the two public MedHELM sets whose files are imported with `data import`."""

from __future__ import annotations

from pathlib import Path

import pytest

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError
from medhelm_local.scenarios import DataRoot, create, get


def test_med_dialog_reads_the_subset_asked_for(gated_root: Path) -> None:
    bench = create("med_dialog", {"subset": "healthcaremagic"})
    instances = bench.load(DataRoot(gated_root))

    assert [i.id for i in instances] == ["healthcaremagic-00001", "healthcaremagic-00002"]
    assert bench.render(instances[0]).text == (
        "Generate a one sentence summary of this patient-doctor conversation.\n\nPatient-Doctor: Patient: I get "
        "cramps in my forearm when I bend my arm. Doctor: It may be a pinched nerve; try physiotherapy.\nSummary:")
    assert [i.id for i in create("med_dialog", {"subset": "icliniq"}).load(DataRoot(gated_root))] == ["icliniq-00001"]


def test_med_mcqa_is_medhelms_run_entry_with_the_correct_option_from_cop(gated_root: Path) -> None:
    bench = create("medhelm_med_mcqa")
    instances = bench.load(DataRoot(gated_root))

    assert get("medhelm_med_mcqa").name == "med_mcqa"
    assert [[r.text for r in i.correct_references] for i in instances] == [["Amoxicillin"], ["Vitamin C"],
                                                                          ["60-100"]]
    # MedHELM's own wording (get_medhelm_med_mcqa_spec), one answer token.
    prompt = bench.render(instances[1])
    assert prompt.text == (
        "Give a letter answer among A, B, C or D. Do not include any explanation or additional text.\n\nQuestion: "
        "Which vitamin deficiency causes scurvy?\nA. Vitamin A\nB. Vitamin B12\nC. Vitamin C\nD. Vitamin D\n"
        "Respond only with 'A', 'B', 'C' or 'D'. Do not add any other text, punctuation, or symbols.:")
    assert prompt.max_tokens == 1
    assert {s.metric: s.value for s in bench.score(instances[1], "C")}["exact_match"] == 1.0


def test_without_imported_files_the_message_says_where_they_are_published(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError, match=r"worksheets\.codalab\.org") as caught:
        create("med_dialog").load(DataRoot(tmp_path))
    assert "data import" in str(caught.value)


def test_a_copied_in_folder_without_recorded_checksums_is_refused(tmp_path: Path) -> None:
    import shutil

    from conftest import REPO

    shutil.copytree(REPO / "tests" / "data" / "datasets" / "medmcqa", tmp_path / "medmcqa")
    with pytest.raises(DatasetCorruptError, match=r"no checksum is recorded for medmcqa/dev\.json"):
        create("med_mcqa").load(DataRoot(tmp_path))
