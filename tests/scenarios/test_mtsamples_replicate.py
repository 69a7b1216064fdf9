"""MTSamples Replicate: PLAN (else SUMMARY, else FINDINGS) line as reference, cut from the report given as input."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED_DATASETS

from medhelm_local.errors import DatasetMissingError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.records import Instance
from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.benchmarks.mtsamples_replicate.reader import reference_section

PUBLISHED = SHARED_DATASETS / "mtsamples_replicate"
needs_published = pytest.mark.skipif(
    not PUBLISHED.is_dir(),
    reason=f"published MTSamples not on this machine ({PUBLISHED}); no licence is stated, so no fixture ships",
)
INSTRUCTIONS = "Given various information about a patient, return a reasonable treatment plan for the patient."


@pytest.mark.parametrize(("report", "expected"), [
    ("HPI: cough.PLAN:  Admit.\nKeywords: x", ("PLAN:", "Admit.")),
    ("FINDINGS: Normal.\nSUMMARY: Stable.\nPLAN: Follow up.", ("PLAN:", "Follow up.")),
    ("FINDINGS: Normal.\nSUMMARY: Stable.", ("SUMMARY:", "Stable.")),
    ("PLAN:\nSUMMARY: Stable.", ("SUMMARY:", "Stable.")),  # a heading with nothing on its line does not count
    ("TREATMENT PLAN: Rest.", ("PLAN:", "Rest.")),
    ("Plan: rest. Findings: none.", None),  # headings are matched in capitals, as the reports write them
    ("PLAN:   \nFINDINGS:", None),
    ("No sections at all.", None),
])
def test_the_reference_section_is_picked_as_medhelm_does(report: str, expected: tuple[str, str] | None) -> None:
    assert reference_section(report) == expected


def read(tmp_path: Path, reports: dict[str, str], args: dict[str, str] | None = None) -> list[Instance]:
    paths = {}
    for name, text in reports.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text, "utf-8")
        paths[f"mtsamples_processed/{name}.txt"] = path
    return create("mtsamples_replicate", args).read(paths)


def test_reports_without_a_section_are_skipped_and_the_reference_is_cut_from_the_input(tmp_path: Path) -> None:
    instances = read(tmp_path, {
        "b plan": "Description: x\nEXAM: ok.PLAN: Start aspirin.\nKeywords: a",
        "a none": "Description: nothing to predict\n",
        "c findings": "HISTORY: y.FINDINGS: Small polyp.\nIMPRESSION: benign.PLAN:\nKeywords: b",
        "d summary first": "SUMMARY: Stable angina.\nEXAM: ok.PLAN:\nKeywords: c",
    })

    assert [i.id for i in instances] == ["b plan", "c findings", "d summary first"]
    assert [i.references[0].text for i in instances] == ["Start aspirin.", "Small polyp.", "Stable angina."]
    assert [i.input for i in instances] == ["Description: x\nEXAM: ok.", "HISTORY: y.", ""]
    assert [i.extra["section"] for i in instances] == ["PLAN", "FINDINGS", "SUMMARY"]


def test_helm_compat_reproduces_medhelms_faults_and_only_then_compares(tmp_path: Path) -> None:
    reports = {
        "b plan": "Description: x\nEXAM: ok.PLAN: Start aspirin.\nKeywords: a",
        "c findings": "HISTORY: y.FINDINGS: Small polyp.\nIMPRESSION: benign.PLAN:\nKeywords: b",
        "e lower case": "HISTORY: z.\nFindings: Normal.\nPLAN: Follow up.",
    }

    ours = read(tmp_path, reports)
    medhelms = read(tmp_path, reports, {"helm_compat": "true"})

    # MedHELM leaves the FINDINGS reference in the input and fails on (drops) a lower-case "Findings:".
    assert [i.id for i in ours] == ["b plan", "c findings", "e lower case"]
    assert [i.id for i in medhelms] == ["b plan", "c findings"]
    assert medhelms[1].input == "HISTORY: y.FINDINGS: Small polyp.\nIMPRESSION: benign."
    assert ours[1].input == "HISTORY: y."
    assert "169 of its 427" in (create("mtsamples_replicate").not_comparable or "")
    assert create("mtsamples_replicate", {"helm_compat": "true"}).not_comparable is None


def test_helm_compat_reads_only_the_first_1000_files_in_name_order(tmp_path: Path) -> None:
    reports = {f"r{n:04d}": f"EXAM: {n}.PLAN: Rest {n}." for n in range(1001, 0, -1)}

    assert len(read(tmp_path, reports)) == 1001
    medhelms = read(tmp_path, reports, {"helm_compat": "true"})
    assert [i.id for i in medhelms] == [f"r{n:04d}" for n in range(1, 1001)]


def test_the_jury_is_the_main_metric_and_rouge_l_the_second() -> None:
    assert [m.name for m in create("mtsamples_replicate").metrics] == [JURY_SCORE, ROUGE_L]


def test_every_published_report_is_checksummed_so_a_missing_one_is_named(tmp_path: Path) -> None:
    bench = create("mtsamples_replicate")
    assert len(bench.data_files) == 1269

    with pytest.raises(DatasetMissingError, match=r"mtsamples_replicate/mtsamples_processed/.*\.txt is missing"):
        bench.load(DataRoot(tmp_path))


@pytest.fixture(scope="module")
def published() -> list[Instance]:
    return create("mtsamples_replicate").load(DataRoot(SHARED_DATASETS))


@needs_published
def test_540_of_the_1269_published_reports_have_a_reference(published: list[Instance]) -> None:
    assert len(list((PUBLISHED / "mtsamples_processed").glob("*.txt"))) == 1269
    assert len(published) == 540  # 729 reports have no PLAN, SUMMARY or FINDINGS line and are skipped
    assert len({i.id for i in published}) == 540
    assert Counter(i.extra["section"] for i in published) == {"PLAN": 339, "FINDINGS": 185, "SUMMARY": 16}
    assert all(i.input.strip() and i.references[0].text.strip() for i in published)
    assert "OB-GYN Consultation - 4" in {i.id for i in published}  # MedHELM loses it to an error


@needs_published
def test_no_reference_is_left_in_the_published_inputs(published: list[Instance]) -> None:
    assert not [i.id for i in published if "PLAN:" in i.input]
    leaking = {i.id for i in published if i.references[0].text in i.input}
    # Only where the report's own Description header repeats the sentence.
    assert leaking == {"Gastrointestinal Bleed - Discharge Summary", "Hip Fracture - Rehab Consult"}
    for instance in published:
        if instance.id not in leaking:
            assert instance.references[0].text not in instance.input


@needs_published
def test_the_published_prompt_follows_medhelms_layout(published: list[Instance]) -> None:
    bench = create("mtsamples_replicate")
    instance = next(i for i in published if i.id == "A 5-month-old boy with cough")

    prompt = bench.render(instance)

    assert instance.references[0].text.startswith("Plan was to admit to bronchiolitis pathway")
    assert instance.input.startswith("Medical Specialty:Consult - History and Phy.\nSample Name:\xa0A 5-month-old")
    assert instance.input.endswith("DIAGNOSES:  Respiratory syncytial virus bronchiolitis with right otitis externa.")
    assert prompt.text == f"{INSTRUCTIONS}\n\n{instance.input}\nAnswer:"
    assert prompt.max_tokens == 512
    assert prompt.stop == ()
    assert bench.score(instance, instance.references[0].text)[0].value == 1.0


@needs_published
def test_with_helm_compat_the_published_reports_give_medhelms_427() -> None:
    instances = create("mtsamples_replicate", {"helm_compat": "true"}).load(DataRoot(SHARED_DATASETS))

    assert len(instances) == 427
    assert "OB-GYN Consultation - 4" not in {i.id for i in instances}
    # The leak: the reference line still in the input (169 cut-off SUMMARY/FINDINGS lines, and one report whose
    # Description repeats its plan).
    assert sum(1 for i in instances if i.references[0].text in i.input) == 170
