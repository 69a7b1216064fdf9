"""The clinical vocabularies learned from public medical text: what they hold, how names are weighed
against them, that a damaged file is a clear error, and that the build script reproduces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from medhelm_local.redact import RedactionRuleError
from medhelm_local.redact.detector import Detector, detector_for
from medhelm_local.redact.dictionaries import Ambiguity, read_table
from medhelm_local.settings import default_redaction_dir

PACK = default_redaction_dir().resolve()
REPO = Path(__file__).resolve().parents[2]
DATASETS = REPO.parent / "shared" / "datasets"


def test_shorthand_abbreviations_and_short_forms_are_clinical_evidence() -> None:
    words = detector_for(PACK).words
    for abbreviation in ("perrla", "bipap", "npo"):
        assert words.is_shorthand(abbreviation), abbreviation
    for short in ("dobut", "vanc", "levo", "fent", "pulm", "palp"):  # "levo", "fent": rare surnames too
        assert short in words.short_forms, short
    assert "martha" not in words.clinical and "kowalski" not in words.clinical


def test_names_are_weighed_against_how_often_medical_text_writes_them_as_words() -> None:
    words = detector_for(PACK).words
    assert words.ambiguity("may") is Ambiguity.CLINICAL  # 1,000+ times in lower case: a word first
    assert words.ambiguity("miller") is Ambiguity.EVERYDAY  # an English word, but the 7th surname
    assert words.ambiguity("barbara") is Ambiguity.NAME_ONLY  # a few lower-case uses in one source
    assert words.ambiguity("kowalczyk") is Ambiguity.NAME_ONLY


def test_short_forms_count_only_on_lines_without_case() -> None:
    detector = detector_for(PACK)
    caps = [t for t in detector.detect("PT ON LEVO AND FENT, DR SATU TO SEE") if t.type.value == "NAME"]
    assert [("PT ON LEVO AND FENT, DR SATU TO SEE")[s.start:s.end] for s in caps] == ["SATU"]
    mixed = "Seen today with her sister, Satu Elomo, who lives nearby."
    assert any(mixed[s.start:s.end].startswith("Satu") for s in detector.detect(mixed))


def test_a_vocabulary_row_without_a_count_is_a_clear_error(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    table = pack / "vocabulary" / "clinical_words.tsv"
    table.write_text(table.read_text(encoding="utf-8") + "orphan\n", encoding="utf-8")
    with pytest.raises(RedactionRuleError, match=r"vocabulary row \d+ has no word or count") as caught:
        Detector.from_dir(pack)
    assert "build_vocabulary.py" in caught.value.fix
    (pack / "vocabulary" / "short_forms.tsv").unlink()
    with pytest.raises(RedactionRuleError, match="the redaction dictionary does not exist"):
        read_table(pack / "vocabulary" / "short_forms.tsv")


@pytest.mark.skipif(not DATASETS.is_dir(), reason="the public datasets (../shared/datasets) are not on this machine")
def test_the_build_script_reproduces_the_shipped_vocabularies(tmp_path: Path) -> None:
    script = REPO / "deploy" / "redaction" / "build_vocabulary.py"
    done = subprocess.run([sys.executable, str(script), "--datasets", str(DATASETS), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    for name in ("clinical_words.tsv", "abbreviations.tsv", "short_forms.tsv", "eponyms.tsv"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (PACK / "vocabulary" / name).read_text(
            encoding="utf-8"), name
