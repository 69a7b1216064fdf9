"""ACI-Bench: the three challenge test sets (120 encounters), dialogue in, clinician's note as reference."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATASETS

from medhelm_local.errors import DatasetCorruptError, DatasetMissingError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.records import Instance
from medhelm_local.scenarios import DataRoot, create, import_dataset

FIXTURE = REPO / "tests" / "data" / "datasets" / "aci_bench"
PUBLISHED = SHARED_DATASETS / "aci_bench"
needs_published = pytest.mark.skipif(not PUBLISHED.is_dir(),
                                     reason=f"published ACI-Bench not on this machine ({PUBLISHED})")
INSTRUCTIONS = ("Summarize the conversation to generate a clinical note with four sections:\n"
                "1. HISTORY OF PRESENT ILLNESS\n2. PHYSICAL EXAM\n3. RESULTS\n4. ASSESSMENT AND PLAN\n\n"
                "The conversation is:")


@pytest.fixture
def fixture_root(tmp_path: Path) -> Path:
    """A data root holding the committed four-encounter cut, imported as a user would."""
    report = import_dataset(FIXTURE, tmp_path / "data")
    assert report.matches_published is False
    return tmp_path / "data"


def test_the_fixture_loads_its_encounters_in_test_set_order(fixture_root: Path) -> None:
    instances = create("aci_bench").load(DataRoot(fixture_root))

    assert [i.id for i in instances] == ["D2N092-virtassist", "D2N094-virtassist", "D2N172-virtassist",
                                         "D2N132-virtassist"]
    assert [i.extra["test_set"] for i in instances] == ["clinicalnlp_taskB_test1", "clinicalnlp_taskB_test1",
                                                        "clef_taskC_test3", "clinicalnlp_taskC_test2"]
    data = json.loads((FIXTURE / "challenge_data_json" / "clinicalnlp_taskB_test1_full.json").read_text("utf-8"))
    first = data["data"][0]
    assert instances[0].input == f"Doctor-patient dialogue:\n\n{first['src']}"
    assert [r.text for r in instances[0].references] == [first["tgt"]]


def test_the_prompt_follows_medhelms_layout(fixture_root: Path) -> None:
    bench = create("aci_bench")
    instance = bench.load(DataRoot(fixture_root))[0]

    prompt = bench.render(instance)

    assert prompt.text == f"{INSTRUCTIONS}\n\nConversation: {instance.input}\nClinical Note:"
    assert prompt.text.startswith(f"{INSTRUCTIONS}\n\nConversation: Doctor-patient dialogue:\n\n[doctor] ")
    assert prompt.max_tokens == 768
    assert prompt.stop == ()
    assert prompt.temperature == 0.0


def test_the_note_scores_one_against_itself_with_rouge_l(fixture_root: Path) -> None:
    bench = create("aci_bench")
    instance = bench.load(DataRoot(fixture_root))[0]

    # The jury's score is main; it comes from the judges (annotate stage), never from the scorer.
    assert [m.name for m in bench.metrics] == [JURY_SCORE, ROUGE_L]
    assert {s.metric: s.value for s in bench.score(instance, instance.references[0].text)} == {ROUGE_L: 1.0}
    assert bench.score(instance, "")[0].value == 0.0


def test_a_missing_test_set_is_named(fixture_root: Path) -> None:
    (fixture_root / "aci_bench" / "challenge_data_json" / "clef_taskC_test3_full.json").unlink()

    with pytest.raises(DatasetMissingError, match=r"clef_taskC_test3_full\.json is missing"):
        create("aci_bench").load(DataRoot(fixture_root))


def test_an_encounter_in_two_test_sets_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "aci_bench"
    shutil.copytree(FIXTURE, source)
    folder = source / "challenge_data_json"
    (folder / "clef_taskC_test3_full.json").chmod(0o644)
    shutil.copyfile(folder / "clinicalnlp_taskC_test2_full.json", folder / "clef_taskC_test3_full.json")
    import_dataset(source, tmp_path / "data")

    with pytest.raises(DatasetCorruptError, match="appears twice"):
        create("aci_bench").load(DataRoot(tmp_path / "data"))


@pytest.fixture(scope="module")
def published() -> list[Instance]:
    return create("aci_bench").load(DataRoot(SHARED_DATASETS))


@needs_published
def test_the_published_test_sets_give_120_encounters(published: list[Instance]) -> None:
    assert len(published) == 120
    assert len({i.id for i in published}) == 120
    assert Counter(i.extra["test_set"] for i in published) == {
        "clinicalnlp_taskB_test1": 40, "clef_taskC_test3": 40, "clinicalnlp_taskC_test2": 40}
    assert all(i.input.startswith("Doctor-patient dialogue:\n\n") and "[doctor]" in i.input for i in published)
    assert all(len(i.references) == 1 and i.references[0].text.strip() for i in published)


@needs_published
def test_the_fixture_is_an_unchanged_cut_of_the_published_files(published: list[Instance]) -> None:
    by_id = {i.id: i for i in published}
    for path in sorted((FIXTURE / "challenge_data_json").glob("*.json")):
        cut = path.read_text("utf-8")
        for entry in json.loads(cut)["data"]:
            assert by_id[entry["file"]].references[0].text == entry["tgt"]
            assert by_id[entry["file"]].input.endswith(entry["src"])
        # Same serialisation as the published file (4-space indent, ASCII escapes).
        assert cut == json.dumps(json.loads(cut), indent=4)
