"""MedicationQA: the published workbook read with the standard library, MedHELM's prompt, jury then ROUGE-L."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from conftest import SHARED_DATASETS

from medhelm_local.errors import DatasetCorruptError
from medhelm_local.metrics.jury import JURY_SCORE
from medhelm_local.metrics.rouge import ROUGE_L
from medhelm_local.records import Instance, Reference, TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset
from medhelm_local.taxonomy import load_taxonomy

PUBLISHED = SHARED_DATASETS / "medication_qa"
needs_published = pytest.mark.skipif(
    not PUBLISHED.is_dir(),
    reason=f"published MedicationQA not on this machine ({PUBLISHED}); no licence is stated, so no fixture ships",
)
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def write_workbook(folder: Path, rows: list[list[str | None]], inline: bool = False) -> Path:
    """A minimal .xlsx (shared strings, or inline strings) holding the given rows; None is an empty cell."""
    strings: list[str] = []
    sheet_rows = []
    for r, row in enumerate(rows, start=1):
        cells = []
        for c, text in enumerate(row):
            if text is None:
                continue
            ref = f"{'ABCDEF'[c]}{r}"
            if inline:
                cells.append(f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>')
            else:
                strings.append(text)
                cells.append(f'<c r="{ref}" t="s"><v>{len(strings) - 1}</v></c>')
        sheet_rows.append(f'<row r="{r}">{"".join(cells)}</row>')
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "MedInfo2019-QA-Medications.xlsx"
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("xl/worksheets/sheet1.xml",
                      f'<worksheet xmlns="{MAIN}"><sheetData>{"".join(sheet_rows)}</sheetData></worksheet>')
        if not inline:
            # One string as rich text runs, as spreadsheet programs write formatted cells.
            items = [f"<si><t>{s}</t></si>" if s != "two parts" else "<si><r><t>two </t></r><r><t>parts</t></r></si>"
                     for s in strings]
            book.writestr("xl/sharedStrings.xml", f'<sst xmlns="{MAIN}">{"".join(items)}</sst>')
    return path


HEADER: list[str | None] = ["Question", "Focus (Drug)", "Question Type", "Answer", "Section Title", "URL"]


def load_workbook(tmp_path: Path, rows: list[list[str | None]], inline: bool = False) -> list[Instance]:
    write_workbook(tmp_path / "src" / "medication_qa", rows, inline)
    import_dataset(tmp_path / "src" / "medication_qa", tmp_path / "data")
    return create("medication_qa").load(DataRoot(tmp_path / "data"))


@pytest.mark.parametrize("inline", [False, True])
def test_rows_without_an_answer_are_dropped_and_ids_are_sheet_rows(tmp_path: Path, inline: bool) -> None:
    instances = load_workbook(tmp_path, [
        HEADER,
        ["can i take ibuprofen with lisinopril", "ibuprofen", "Interaction", "two parts", None, "https://x"],
        ["what is metformin for", "metformin", "Information", None, "Section", "https://y"],
        ["how much aspirin", "aspirin", "Dose", "81 mg daily", "Dosage", "https://z"],
        ["is warfarin safe", "warfarin", "Safety", "n/a", "Section", "https://w"],
        ["what is NA in my labs", "sodium", "Information", "NA ", "Section", "https://v"],
    ], inline)

    # "n/a" is no answer to pandas (so to MedHELM); "NA " with its space is text to pandas.
    assert [i.id for i in instances] == ["row-0002", "row-0004", "row-0006"]
    assert instances[0].input == "can i take ibuprofen with lisinopril"
    assert instances[0].references == (Reference("two parts"),)
    assert instances[1].extra["question_type"] == "Dose"


def test_a_sheet_without_an_answer_column_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetCorruptError, match="lacks the column"):
        load_workbook(tmp_path, [["Question", "Reply"], ["q", "a"]])


def test_a_file_that_is_not_a_workbook_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "src" / "medication_qa"
    source.mkdir(parents=True)
    (source / "MedInfo2019-QA-Medications.xlsx").write_text("Question,Answer\n")
    import_dataset(source, tmp_path / "data")

    with pytest.raises(DatasetCorruptError, match="cannot be read"):
        create("medication_qa").load(DataRoot(tmp_path / "data"))


def test_the_jury_score_is_never_faked() -> None:
    bench = create("medication_qa")
    placed = load_taxonomy().placement("medication_qa")
    assert placed is not None
    jury = next(b.main_metric for b in placed.benchmarks if b.name == "medication_qa")

    scores = bench.score(Instance("row-0002", "q", (Reference("take it with food"),)), "take it with food")

    assert jury == "medication_qa_accuracy"
    assert bench.main_metric == JURY_SCORE  # rated by the jury (annotate stage), not by a scorer
    assert [s.metric for s in scores] == [ROUGE_L]
    assert bench.task_type is TaskType.GENERATION


@pytest.fixture(scope="module")
def published() -> list[Instance]:
    return create("medication_qa").load(DataRoot(SHARED_DATASETS))


@needs_published
def test_the_published_workbook_gives_689_instances(published: list[Instance]) -> None:
    assert len(published) == 689  # 690 rows have an answer; one of them is "n/a", which MedHELM drops
    assert len({i.id for i in published}) == 689
    assert published[0].id == "row-0002" and published[-1].id == "row-0691"
    assert all(i.input.strip() for i in published)
    assert all(len(i.references) == 1 and i.references[0].text.strip() for i in published)


@needs_published
def test_the_published_prompt_follows_medhelms_layout(published: list[Instance]) -> None:
    bench = create("medication_qa")
    instance = published[0]

    prompt = bench.render(instance)

    assert prompt.text == ("Please answer the following consumer health question.\n\n"
                           "Question: how does rivatigmine and otc sleep medicine interact\nAnswer:")
    assert prompt.max_tokens == 512
    assert prompt.stop == ()
    assert prompt.temperature == 0.0


@needs_published
def test_a_published_answer_scores_one_against_itself(published: list[Instance]) -> None:
    bench = create("medication_qa")

    for instance in published[:20]:
        assert bench.score(instance, instance.references[0].text)[0].value == 1.0
        assert bench.score(instance, "")[0].value == 0.0
