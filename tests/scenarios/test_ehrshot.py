"""EHRSHOT (MEDS): each label with the patient's codes up to its prediction time, in MedHELM's prompt."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest
from conftest import GATED_FIXTURES

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.benchmarks.ehrshot.reader import LAB_SAMPLE, read_labels


def test_each_label_gets_the_codes_up_to_its_prediction_time(gated_root: Path) -> None:
    instances = create("ehrshot").load(DataRoot(gated_root))

    assert [i.id for i in instances] == ["label-000000", "label-000001", "label-000002", "label-000003"]
    assert [i.correct_references[0].text for i in instances] == ["yes", "no", "no", "yes"]
    june, january, other, empty = instances
    assert june.input.endswith("Patient EHR:\n- SNOMED/38341003\n- Visit/IP\n- LOINC/2160-0\n\n")  # no static code
    assert "- ICD10CM/I10" in january.input and "ICD10CM/I10" not in june.input
    assert other.input.endswith("Patient EHR:\n- Visit/OP\n- LOINC/718-7\n\n")
    assert empty.input.endswith("Patient EHR:\n\n\n")  # a patient without events, as in MedHELM


def test_the_prompt_is_medhelms_persona_and_question(gated_root: Path) -> None:
    bench = create("ehrshot", {"subject": "guo_readmission"})
    instance = bench.load(DataRoot(gated_root))[0]

    text = bench.render(instance).text

    assert text.startswith(
        "Answer A for yes, B for no.\n\n\n# Instructions\nYou are an expert hospitalist at Stanford Healthcare, an "
        "academic medical center affiliated with Stanford University. You specialize in predicting 30-day "
        "readmission.\n\nInstruction: Review the patient's EHR history. Based on all available medical evidence in "
        "the provided EHR, please answer the question: If this patient is discharged from the hospital right now, is "
        "the patient likely to be readmitted to the hospital within 30 days?\n\n\n# Your Task\nPatient EHR:\n")
    assert text.endswith("\n\nA. yes\nB. no\nRespond with only 'A' for yes or 'B' for no. Do not add any other text, "
                         "punctuation, or symbols:")
    assert bench.max_length == 100000 and bench.truncation == "keep_end"


def test_new_diagnosis_tasks_carry_the_definitions(gated_root: Path) -> None:
    instance = create("ehrshot", {"subject": "new_hypertension"}).load(DataRoot(gated_root))[0]

    assert "Clinical Definition: Hypertension, or high blood pressure," in instance.input
    assert "following medical codes: ICD10CM/I10, ICD9CM/401, ICD9CM/401.0," in instance.input


def test_lab_tasks_draw_medhelms_10000_labels(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = LAB_SAMPLE + 500
    path = tmp_path / "labels.parquet"
    pq.write_table(pa.table({"subject_id": pa.array(range(n), pa.int64()),
                             "prediction_time": pa.array([datetime(2020, 1, 1)] * n, pa.timestamp("us")),
                             "boolean_value": [i % 2 == 0 for i in range(n)]}), path)

    drawn = read_labels(path, "lab_anemia")

    assert len(drawn) == LAB_SAMPLE and len({label.index for label in drawn}) == LAB_SAMPLE
    assert {label.index for label in drawn} == {label.index for label in read_labels(path, "lab_anemia")}
    assert len(read_labels(path, "guo_readmission")) == n  # other tasks use every label


def test_unsorted_data_and_missing_labels_are_refused(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    folder = tmp_path / "meds"
    shutil.copytree(GATED_FIXTURES / "ehrshot", folder)
    with pytest.raises(DatasetMissingError, match=r"labels/lab_anemia/labels\.parquet is missing"):
        shutil.rmtree(folder / "labels" / "lab_anemia")
        create("ehrshot", {"subject": "lab_anemia", "data_path": str(folder)}).load(DataRoot(tmp_path))
    data = pq.read_table(folder / "data" / "data.parquet")
    pq.write_table(data.take([5, 0, 1, 2, 3, 4, 6, 7]), folder / "data" / "data.parquet")
    with pytest.raises(DatasetCorruptError, match="not sorted by subject_id"):
        create("ehrshot", {"data_path": str(folder)}).load(DataRoot(tmp_path))
