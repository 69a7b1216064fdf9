"""MIMIC-IV-Ext-BHC and MIMIC-RRS: one note or findings section in, a summary out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import GATED_FIXTURES

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.scenarios import DataRoot, create


def test_bhc_keeps_lines_with_a_note_and_a_summary(gated_root: Path) -> None:
    bench = create("mimic_bhc")
    instances = bench.load(DataRoot(gated_root))

    assert [i.id for i in instances] == ["line-000001", "line-000002", "line-000004"]
    text = bench.render(instances[0]).text
    assert text.startswith("Summarize the clinical note into a brief hospital course.\n\nClinical Note:\n<SEX> F")
    assert text.endswith("invented history one.\nBrief Hospital Course:\n")
    assert bench.prompt(instances[0]).max_tokens == 1024
    assert [m.name for m in bench.metrics] == [JURY_SCORE, ROUGE_L]
    assert bench.spec.rubric is not None and bench.spec.rubric.name == "hospital_course"


def test_bhc_data_path_may_name_the_file_itself(tmp_path: Path) -> None:
    path = GATED_FIXTURES / "mimic_bhc" / "mimic_iv_bhc.json"

    assert len(create("mimic_bhc", {"data_path": str(path)}).load(DataRoot(tmp_path))) == 3
    with pytest.raises(DatasetMissingError, match="data_path does not exist"):
        create("mimic_bhc", {"data_path": str(tmp_path / "nope.json")}).load(DataRoot(tmp_path))


def test_rrs_aligns_findings_and_impressions_by_line(gated_root: Path) -> None:
    bench = create("mimic_rrs")
    instances = bench.load(DataRoot(gated_root))

    assert [(i.id, i.correct_references[0].text) for i in instances] == [
        ("line-000001", "no acute cardiopulmonary process ."), ("line-000003", "mild cardiomegaly ."),
        ("line-000004", "small left effusion .")]
    assert bench.render(instances[0]).text.endswith(
        "concise as possible.\n\nFindings:\nthe heart is normal in size . the lungs are clear .\nImpression:\n")


def test_rrs_files_of_different_lengths_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "all"
    shutil.copytree(GATED_FIXTURES / "mimic_rrs", folder)
    (folder / "test.impression.tok").write_text("one line only\n")

    with pytest.raises(DatasetCorruptError, match="they must align"):
        create("mimic_rrs", {"data_path": str(folder)}).load(DataRoot(tmp_path))
