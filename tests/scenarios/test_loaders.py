"""Benchmarks load from checksummed local files, render MedHELM prompts, and refuse bad data clearly."""

from __future__ import annotations

import csv
import json
import os
import resource
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, SHARED_DATASETS

from medhelm_local.errors import (
    DataImportError,
    DatasetCorruptError,
    DatasetMissingError,
    RunEntryError,
    UnknownScenarioError,
)
from medhelm_local.records import TaskType
from medhelm_local.scenarios import DataRoot, create, import_dataset, names
from medhelm_local.scenarios.datafiles import MANIFEST, published_checksums, sha256_file
from medhelm_local.scenarios.prompting import LETTERS

BENCHMARKS = ["pubmed_qa", "medcalc_bench", "med_qa"]
FOLDER = {"pubmed_qa": "pubmedqa", "medcalc_bench": "medcalc_bench", "med_qa": "medqa_usmle_4opt"}
FILE = {"pubmed_qa": "ori_pqal.json", "medcalc_bench": "test_data.csv", "med_qa": "phrases_no_exclude_test.jsonl"}
PUBLISHED_COUNTS = {"pubmed_qa": 1000, "medcalc_bench": 1047, "med_qa": 1273}


def editable_copy(tmp_path: Path, benchmark: str) -> Path:
    """A writable copy of a demo dataset folder, under the folder name the benchmark expects."""
    dest = tmp_path / "edited" / FOLDER[benchmark]
    shutil.copytree(DEMO_DATASETS / FOLDER[benchmark], dest)
    for path in dest.iterdir():
        path.chmod(0o644)
    return dest


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_demo_subset_loads_fifty_instances_with_unique_ids(data_root: Path, benchmark: str) -> None:
    instances = create(benchmark).load(DataRoot(data_root))

    assert len(instances) == 50
    assert len({i.id for i in instances}) == 50
    assert all(i.input.strip() for i in instances)


@pytest.mark.parametrize("benchmark", ["pubmed_qa", "med_qa"])
def test_multiple_choice_items_have_exactly_one_correct_option(data_root: Path, benchmark: str) -> None:
    bench = create(benchmark)
    assert bench.task_type is TaskType.MULTIPLE_CHOICE

    for instance in bench.load(DataRoot(data_root)):
        assert len(instance.correct_references) == 1, instance.id
        assert all(ref.text.strip() for ref in instance.references), instance.id


def test_pubmedqa_options_are_yes_no_maybe_in_that_order(data_root: Path) -> None:
    instances = create("pubmed_qa").load(DataRoot(data_root))

    for instance in instances:
        assert [r.text for r in instance.references] == ["yes", "no", "maybe"]
    answers = {i.correct_references[0].text for i in instances}
    assert answers <= {"yes", "no", "maybe"}
    assert len(answers) >= 2  # the subset is not all one label


def test_medqa_has_four_options(data_root: Path) -> None:
    for instance in create("med_qa").load(DataRoot(data_root)):
        assert len(instance.references) == 4


def test_medcalc_items_carry_their_limits_and_output_type(data_root: Path) -> None:
    instances = create("medcalc_bench").load(DataRoot(data_root))

    for instance in instances:
        assert len(instance.references) == 1
        assert instance.extra["output_type"] in {"decimal", "integer", "date"}
        assert instance.extra["lower_limit"] and instance.extra["upper_limit"]
        assert instance.input.startswith("Patient note: ")
        assert "\n\nQuestion: " in instance.input


def test_a_loaded_medcalc_item_scores_its_own_ground_truth_as_correct(data_root: Path) -> None:
    bench = create("medcalc_bench")

    for instance in bench.load(DataRoot(data_root)):
        scores = {s.metric: s.value for s in bench.score(instance, instance.references[0].text)}
        assert scores[bench.main_metric] == 1.0, instance.id


@pytest.mark.parametrize("benchmark", ["pubmed_qa", "med_qa"])
def test_a_loaded_multiple_choice_item_scores_its_correct_letter(data_root: Path, benchmark: str) -> None:
    bench = create(benchmark)

    for instance in bench.load(DataRoot(data_root))[:10]:
        letter = LETTERS[instance.references.index(instance.correct_references[0])]
        wrong = next(LETTERS[i] for i, r in enumerate(instance.references) if not r.correct)
        assert {s.metric: s.value for s in bench.score(instance, letter)}[bench.main_metric] == 1.0
        assert {s.metric: s.value for s in bench.score(instance, wrong)}[bench.main_metric] == 0.0


# MedHELM's answer cues: HELM's default for PubMedQA, its own for MedQA (get_medhelm_med_qa_spec).
CUES = {"pubmed_qa": "Answer:",
        "med_qa": "Respond only with 'A', 'B', 'C' or 'D'. Do not add any other text, punctuation, or symbols.:"}


@pytest.mark.parametrize("benchmark", ["pubmed_qa", "med_qa"])
def test_multiple_choice_prompts_follow_medhelms_layout(data_root: Path, benchmark: str) -> None:
    bench = create(benchmark)
    instance = bench.load(DataRoot(data_root))[0]

    prompt = bench.render(instance)

    instructions, _, body = prompt.text.partition("\n\n")
    assert instructions and "\n" not in instructions
    assert body.startswith("Question: ")
    option_lines = [f"{LETTERS[i]}. {ref.text}" for i, ref in enumerate(instance.references)]
    assert prompt.text.endswith("\n" + "\n".join(option_lines) + "\n" + CUES[benchmark])
    assert prompt.instance_id == instance.id
    assert prompt.max_tokens == 1
    assert prompt.temperature == 0.0


def test_the_pubmedqa_prompt_lists_yes_no_maybe(data_root: Path) -> None:
    bench = create("pubmed_qa")

    text = bench.render(bench.load(DataRoot(data_root))[0]).text

    assert text.startswith("Answer A for yes, B for no or C for maybe.")
    assert text.endswith("\nA. yes\nB. no\nC. maybe\nAnswer:")


def test_the_medcalc_prompt_asks_for_the_quantity_only(data_root: Path) -> None:
    bench = create("medcalc_bench")
    instance = bench.load(DataRoot(data_root))[0]

    prompt = bench.render(instance)

    instructions, _, body = prompt.text.partition("\n\n")
    assert instructions.startswith("Given a patient note and a clinical question")
    assert body.startswith("Patient note: ")
    assert instance.input in prompt.text
    assert prompt.text.endswith("\n\nAnswer only the requested quantity without units. No explanation needed:")
    assert prompt.max_tokens == 10


@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason=f"published datasets not on this machine ({SHARED_DATASETS})")
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_the_published_files_load_with_their_published_counts(benchmark: str) -> None:
    folder = SHARED_DATASETS / FOLDER[benchmark]
    assert not (folder / MANIFEST).exists()  # so the shipped published checksums are what is checked
    assert sha256_file(folder / FILE[benchmark]) == published_checksums(FOLDER[benchmark])[FILE[benchmark]]  # type: ignore[index]

    instances = create(benchmark).load(DataRoot(SHARED_DATASETS))

    assert len(instances) == PUBLISHED_COUNTS[benchmark]
    assert len({i.id for i in instances}) == PUBLISHED_COUNTS[benchmark]


@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason=f"published datasets not on this machine ({SHARED_DATASETS})")
def test_importing_a_published_folder_records_that_it_matches(tmp_path: Path) -> None:
    report = import_dataset(SHARED_DATASETS / "pubmedqa", tmp_path / "data")

    assert report.matches_published is True
    assert json.loads((tmp_path / "data" / "pubmedqa" / MANIFEST).read_text())["matches_published"] is True


def test_an_imported_demo_subset_is_not_reported_as_published(tmp_path: Path) -> None:
    report = import_dataset(DEMO_DATASETS / "pubmedqa", tmp_path / "data")

    assert report.matches_published is False


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_a_missing_file_names_it_and_where_it_is_published(data_root: Path, benchmark: str) -> None:
    (data_root / FOLDER[benchmark] / FILE[benchmark]).unlink()
    bench = create(benchmark)

    with pytest.raises(DatasetMissingError) as caught:
        bench.load(DataRoot(data_root))

    message = str(caught.value)
    assert f"{FOLDER[benchmark]}/{FILE[benchmark]} is missing" in message
    assert (bench.card.provenance or "") in message
    assert "data import" in message


def test_an_empty_data_root_reports_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetMissingError, match=r"pubmedqa/ori_pqal.json"):
        create("pubmed_qa").load(DataRoot(tmp_path / "empty"))


def test_a_truncated_file_fails_its_checksum(data_root: Path) -> None:
    path = data_root / "medcalc_bench" / "test_data.csv"
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size // 2)

    with pytest.raises(DatasetCorruptError) as caught:
        create("medcalc_bench").load(DataRoot(data_root))

    assert "sha256 differs" in str(caught.value)
    assert str(path) in str(caught.value)


def test_one_changed_byte_fails_the_checksum(data_root: Path) -> None:
    path = data_root / "medqa_usmle_4opt" / "phrases_no_exclude_test.jsonl"
    raw = bytearray(path.read_bytes())
    raw[100] = ord("X") if raw[100] != ord("X") else ord("Y")
    path.write_bytes(bytes(raw))

    with pytest.raises(DatasetCorruptError, match="sha256 differs"):
        create("med_qa").load(DataRoot(data_root))


def test_a_changed_file_loads_again_once_reimported(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "pubmed_qa")
    path = source / "ori_pqal.json"
    text = path.read_text("utf-8")
    path.write_text(text.replace("Programmed", "programmed", 1), "utf-8")
    shutil.copyfile(path, data_root / "pubmedqa" / "ori_pqal.json")
    with pytest.raises(DatasetCorruptError):
        create("pubmed_qa").load(DataRoot(data_root))

    import_dataset(source, data_root, replace=True)

    assert len(create("pubmed_qa").load(DataRoot(data_root))) == 50


def test_a_folder_can_be_reimported_in_place(data_root: Path) -> None:
    path = data_root / "pubmedqa" / "ori_pqal.json"
    path.write_text(path.read_text("utf-8").replace("Programmed", "programmed", 1), "utf-8")

    import_dataset(data_root / "pubmedqa", data_root, replace=True)

    assert len(create("pubmed_qa").load(DataRoot(data_root))) == 50


def test_a_csv_without_a_required_column_is_refused_naming_it(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "medcalc_bench")
    path = source / "test_data.csv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=[c for c in rows[0] if c != "Upper Limit"])
        writer.writeheader()
        writer.writerows({k: v for k, v in row.items() if k != "Upper Limit"} for row in rows)
    import_dataset(source, data_root, replace=True)

    with pytest.raises(DatasetCorruptError) as caught:
        create("medcalc_bench").load(DataRoot(data_root))

    assert "Upper Limit" in str(caught.value)
    assert "published layout" in str(caught.value)


def test_an_empty_dataset_is_refused(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "pubmed_qa")
    (source / "ori_pqal.json").write_text("{}", "utf-8")
    import_dataset(source, data_root, replace=True)

    with pytest.raises(DatasetCorruptError, match="holds no instances"):
        create("pubmed_qa").load(DataRoot(data_root))


def test_a_label_outside_yes_no_maybe_is_refused(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "pubmed_qa")
    data = json.loads((source / "ori_pqal.json").read_text("utf-8"))
    first = next(iter(data))
    data[first]["final_decision"] = "perhaps"
    (source / "ori_pqal.json").write_text(json.dumps(data), "utf-8")
    import_dataset(source, data_root, replace=True)

    with pytest.raises(DatasetCorruptError, match=f"PMID {first}"):
        create("pubmed_qa").load(DataRoot(data_root))


def test_a_file_that_is_not_json_is_refused(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "med_qa")
    (source / "phrases_no_exclude_test.jsonl").write_text('{"question": "x", \n', "utf-8")
    import_dataset(source, data_root, replace=True)

    with pytest.raises(DatasetCorruptError, match="published layout"):
        create("med_qa").load(DataRoot(data_root))


def test_a_damaged_manifest_is_reported(data_root: Path) -> None:
    (data_root / "pubmedqa" / MANIFEST).write_text("not json")

    with pytest.raises(DatasetCorruptError, match=r"MANIFEST.json is damaged"):
        create("pubmed_qa").load(DataRoot(data_root))


def test_an_unknown_benchmark_lists_the_known_ones() -> None:
    with pytest.raises(UnknownScenarioError) as caught:
        create("pubmedqa")

    message = str(caught.value)
    assert "'pubmedqa'" in message
    for name in BENCHMARKS:
        assert name in message
    assert set(BENCHMARKS) <= set(names())


def test_an_unknown_run_entry_argument_is_refused() -> None:
    with pytest.raises(RunEntryError) as caught:
        create("med_qa", {"subject": "cardiology"})

    assert "subject" in str(caught.value)
    assert "What to do:" in str(caught.value)


def test_import_records_the_sha256_of_every_file(tmp_path: Path) -> None:
    source = DEMO_DATASETS / "medcalc_bench"

    report = import_dataset(source, tmp_path / "data")

    manifest = json.loads((tmp_path / "data" / "medcalc_bench" / MANIFEST).read_text())
    expected = {p.name: sha256_file(p) for p in source.iterdir() if p.is_file()}
    assert manifest["files"] == expected
    assert report.files == expected
    assert report.destination == tmp_path / "data" / "medcalc_bench"
    for name in expected:
        assert (report.destination / name).read_bytes() == (source / name).read_bytes()


def test_import_can_rename_the_folder(tmp_path: Path) -> None:
    source = tmp_path / "downloads" / "pubmedqa-master"
    shutil.copytree(DEMO_DATASETS / "pubmedqa", source)

    import_dataset(source, tmp_path / "data", name="pubmedqa")

    assert len(create("pubmed_qa").load(DataRoot(tmp_path / "data"))) == 50


def test_import_refuses_an_existing_folder_without_replace(data_root: Path) -> None:
    before = (data_root / "pubmedqa" / MANIFEST).read_text()

    with pytest.raises(DataImportError) as caught:
        import_dataset(DEMO_DATASETS / "pubmedqa", data_root)

    assert "already in the data root" in str(caught.value)
    assert "--replace" in str(caught.value)
    assert (data_root / "pubmedqa" / MANIFEST).read_text() == before


def test_import_refuses_a_source_that_is_not_a_folder(tmp_path: Path) -> None:
    source = DEMO_DATASETS / "pubmedqa" / "ori_pqal.json"

    with pytest.raises(DataImportError, match="not a folder"):
        import_dataset(source, tmp_path / "data")
    with pytest.raises(DataImportError, match="not a folder"):
        import_dataset(tmp_path / "absent", tmp_path / "data")


def test_import_refuses_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "pubmedqa").mkdir()

    with pytest.raises(DataImportError, match="no files"):
        import_dataset(tmp_path / "pubmedqa", tmp_path / "data")
    assert not (tmp_path / "data" / "pubmedqa").exists()


@contextmanager
def a_copy_that_fails(folder: Path) -> Iterator[None]:
    """While the block runs, copying `folder` fails part-way: a file it cannot read, or (as root, who
    reads anything) a file larger than the process may write (RLIMIT_FSIZE, SIGXFSZ ignored)."""
    if os.geteuid() != 0:
        blocked = folder / "zz-blocked.json"
        blocked.write_text("{}")
        blocked.chmod(0o000)
        yield
        return
    (folder / "zz-large.bin").write_bytes(b"x" * 400_000)
    previous_signal = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    previous_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, previous_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, previous_limit)
        signal.signal(signal.SIGXFSZ, previous_signal)


def test_an_interrupted_import_leaves_no_half_folder(tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "pubmed_qa")
    root = tmp_path / "data"

    with a_copy_that_fails(source), pytest.raises(DataImportError, match="copying failed"):
        import_dataset(source, root)

    assert not root.exists()  # the data root it made for the copy is gone with it: as it was before


def test_an_interrupted_reimport_keeps_the_previous_copy(data_root: Path, tmp_path: Path) -> None:
    source = editable_copy(tmp_path, "pubmed_qa")
    (source / "ori_pqal.json").write_text("{}", "utf-8")
    before = sorted(os.listdir(data_root))

    with a_copy_that_fails(source), pytest.raises(DataImportError):
        import_dataset(source, data_root, replace=True)

    assert sorted(os.listdir(data_root)) == before
    assert len(create("pubmed_qa").load(DataRoot(data_root))) == 50


def test_med_qa_pools_dev_and_test_as_medhelm_does_when_the_dev_file_is_imported(tmp_path: Path) -> None:
    source = tmp_path / "src" / "medqa_usmle_4opt"
    source.mkdir(parents=True)
    lines = (DEMO_DATASETS / "medqa_usmle_4opt" / "phrases_no_exclude_test.jsonl").read_text("utf-8").splitlines()
    (source / "phrases_no_exclude_test.jsonl").write_text("\n".join(lines[:3]) + "\n", "utf-8")
    (source / "phrases_no_exclude_dev.jsonl").write_text("\n".join(lines[3:5]) + "\n", "utf-8")
    import_dataset(source, tmp_path / "data")
    data = DataRoot(tmp_path / "data")

    pooled = create("med_qa", {"split": "dev+test"}).load(data)

    assert [i.id for i in pooled] == ["dev-00001", "dev-00002", "test-00001", "test-00002", "test-00003"]
    assert [i.split for i in pooled] == ["dev", "dev", "test", "test", "test"]
    assert [i.id for i in create("med_qa").load(data)] == ["test-00001", "test-00002", "test-00003"]
    assert [i.id for i in create("med_qa", {"split": "dev"}).load(data)] == ["dev-00001", "dev-00002"]


def test_med_qa_dev_without_its_file_says_how_to_bring_it_in(data_root: Path) -> None:
    with pytest.raises(DatasetMissingError) as caught:
        create("med_qa", {"split": "dev+test"}).load(DataRoot(data_root))

    assert "phrases_no_exclude_dev.jsonl is missing" in str(caught.value)
    assert "data import" in str(caught.value)
