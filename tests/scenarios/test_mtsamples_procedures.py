"""MTSamples Procedures: reference line from PLAN/SUMMARY/FINDINGS; the input stops before the first of them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATASETS

from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.records import Instance
from medhelm_local.scenarios import DataRoot, create

PUBLISHED = SHARED_DATASETS / "mtsamples_procedures"
needs_published = pytest.mark.skipif(
    not PUBLISHED.is_dir(),
    reason=f"published MTSamples not on this machine ({PUBLISHED}); no licence is stated, so no fixture ships",
)
INSTRUCTIONS = "Here are information about a patient, return a reasonable treatment plan for the patient."


def read(tmp_path: Path, reports: dict[str, str]) -> list[Instance]:
    paths = {}
    for name, text in reports.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text, "utf-8")
        paths[f"mtsample_procedure/{name}.txt"] = path
    return create("mtsamples_procedures").read(paths)


def test_the_input_stops_before_the_first_section_heading(tmp_path: Path) -> None:
    instances = read(tmp_path, {
        "knee": "PROCEDURE: Arthroscopy.FINDINGS: Torn meniscus.\nPLAN: Physical therapy.\nKeywords: k",
        "none": "PROCEDURE: Biopsy.\nKeywords: b",
        "cyst": "  PROCEDURE: Excision.SUMMARY: Cyst removed.\nFINDINGS: Benign.  \n",
    })

    assert [i.id for i in instances] == ["cyst", "knee"]
    assert [i.references[0].text for i in instances] == ["Cyst removed.", "Physical therapy."]
    assert [i.input for i in instances] == ["PROCEDURE: Excision.", "PROCEDURE: Arthroscopy."]


def test_the_main_metric_is_rouge_l_until_the_jury_exists() -> None:
    bench = create("mtsamples_procedures")
    assert bench.main_metric == ROUGE_L
    assert len(bench.data_files) == 429


@pytest.fixture(scope="module")
def published() -> list[Instance]:
    return create("mtsamples_procedures").load(DataRoot(SHARED_DATASETS))


@needs_published
def test_131_of_the_429_published_reports_have_a_reference(published: list[Instance]) -> None:
    assert len(list((PUBLISHED / "mtsample_procedure").glob("*.txt"))) == 429
    assert len(published) == 131  # 298 reports have no PLAN, SUMMARY or FINDINGS line and are skipped, as in MedHELM
    assert len({i.id for i in published}) == 131
    assert Counter(i.extra["section"] for i in published) == {"FINDINGS": 98, "PLAN": 27, "SUMMARY": 6}
    assert all(i.input.strip() and i.references[0].text.strip() for i in published)


@needs_published
def test_no_reference_or_heading_is_left_in_the_published_inputs(published: list[Instance]) -> None:
    for instance in published:
        assert instance.references[0].text not in instance.input, instance.id
        assert not any(h in instance.input for h in ("PLAN:", "SUMMARY:", "FINDINGS:")), instance.id


@needs_published
def test_the_published_prompt_follows_medhelms_layout(published: list[Instance]) -> None:
    bench = create("mtsamples_procedures")
    instance = published[0]

    prompt = bench.render(instance)

    assert instance.id == "AC Separation Revision & Hardware Removal"
    assert prompt.text == f"{INSTRUCTIONS}\n\nPatient Notes: {instance.input}\nAnswer:"
    assert prompt.text.startswith(f"{INSTRUCTIONS}\n\nPatient Notes: Medical Specialty:")
    assert prompt.max_tokens == 512
    assert prompt.stop == ()
    assert bench.score(instance, instance.references[0].text)[0].value == 1.0
