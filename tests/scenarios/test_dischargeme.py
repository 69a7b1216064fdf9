"""Discharge Me!: the phase-1 test files joined as MedHELM joins them, two targets per admission."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from conftest import GATED_FIXTURES

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.long_inputs import long_span


def test_admissions_that_pass_medhelms_joins_give_two_instances_each(gated_root: Path) -> None:
    instances = create("dischargeme").load(DataRoot(gated_root))

    # 20000003: no triage row; 20000004: no diagnosis row; 20000005: no radiology report.
    assert [i.id for i in instances] == ["20000001-brief_hospital_course", "20000001-discharge_instructions",
                                         "20000002-brief_hospital_course", "20000002-discharge_instructions"]
    bhc, di = instances[0], instances[1]
    assert bhc.correct_references[0].text.startswith("Patient admitted with community acquired pneumonia")
    assert di.correct_references[0].text == "Finish the antibiotic course and return if fever comes back."
    assert bhc.correct_references[0].text not in bhc.input and di.input.count("Finish the antibiotic") == 0
    assert "Finish the antibiotic" not in di.input and "Patient admitted with community" in di.input
    assert "Radiology Report:\nCHEST X-RAY: right lower lobe opacity.\n\n" in bhc.input  # the first report only
    assert "improving" not in bhc.input


def test_the_prompt_is_medhelms_and_the_note_is_the_record(gated_root: Path) -> None:
    bench = create("dischargeme")
    instance = bench.load(DataRoot(gated_root))[0]

    text = bench.render(instance).text
    start, end = long_span(instance)

    assert text.startswith("Given a discharge text, a radiology report text, and a target document of either "
                           "discharge instructions or a brief hospital course, return the generated target document "
                           "from the context provided.\n\nGenerate the Brief Hospital Course from the following "
                           "patient discharge text and radiology report text.    \n\nDischarge Text:\nName: ___")
    assert text.endswith("\n\nBrief Hospital Course:\n\nAnswer:")
    assert instance.input[start:end].startswith("Name: ___ Unit No: ___\nChief Complaint: cough and fever")
    assert bench.prompt(instance).max_tokens == 300 and bench.access == "gated" and bench.truncation == "keep_start"


def test_the_files_are_read_in_place_under_medhelms_data_path(tmp_path: Path) -> None:
    physionet = tmp_path / "physionet.org"
    shutil.copytree(GATED_FIXTURES / "dischargeme", physionet / "files" / "discharge-me" / "1.3")

    instances = create("dischargeme", {"data_path": str(physionet)}).load(DataRoot(tmp_path / "empty"))

    assert len(instances) == 4


def test_a_missing_file_is_named_with_where_it_is_published(tmp_path: Path) -> None:
    folder = tmp_path / "1.3"
    shutil.copytree(GATED_FIXTURES / "dischargeme", folder)
    (folder / "test_phase_1" / "triage.csv.gz").unlink()

    with pytest.raises(DatasetMissingError, match=r"test_phase_1/triage\.csv\.gz is not under data_path") as caught:
        create("dischargeme", {"data_path": str(folder)}).load(DataRoot(tmp_path / "empty"))
    assert "physionet.org/content/discharge-me" in str(caught.value)


def test_a_file_without_the_published_columns_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "1.3"
    shutil.copytree(GATED_FIXTURES / "dischargeme", folder)
    with gzip.open(folder / "test_phase_1" / "edstays.csv.gz", "wt") as fh:
        fh.write("subject_id,stay\n1,2\n")

    with pytest.raises(DatasetCorruptError, match=r"edstays\.csv\.gz lacks column"):
        create("dischargeme", {"data_path": str(folder)}).load(DataRoot(tmp_path / "empty"))


def test_a_truncated_download_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "1.3"
    shutil.copytree(GATED_FIXTURES / "dischargeme", folder)
    damaged = folder / "test_phase_1" / "radiology.csv.gz"
    damaged.write_bytes(damaged.read_bytes()[:40])

    with pytest.raises(DatasetCorruptError, match="does not have the published layout"):
        create("dischargeme", {"data_path": str(folder)}).load(DataRoot(tmp_path / "empty"))
