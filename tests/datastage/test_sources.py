"""The one place the package records where each public dataset is published and under what licence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, REPO
from support.staging import SHARED_DATASETS, published_mirror

from medhelm_local.data import NONE_STATED, benchmark_source, dataset_source, dataset_sources, gated_datasets
from medhelm_local.errors import UnknownScenarioError
from medhelm_local.scenarios import DataRoot, get, names
from medhelm_local.scenarios.datafiles import import_dataset, published_checksums, sha256_file
from medhelm_local.scenarios.dataset_sources import published_source, unpinned_datasets
from medhelm_local.taxonomy import load_taxonomy

# Folders whose publisher states no licence (SOURCE.txt of each, ../shared/datasets).
UNLICENSED = {"medbullets", "medication_qa", "mediqa2019", "mtsamples_procedures", "mtsamples_replicate",
              "race_based_med"}


def test_every_public_benchmark_has_a_recorded_source() -> None:
    folders = {get(n).card.data.folder for n in names() if get(n).access == "public"}

    assert folders == set(dataset_sources()) | {u.folder for u in unpinned_datasets()}


def test_public_sets_without_shipped_checksums_name_each_file_and_where_it_is_published() -> None:
    unpinned = {u.folder: u for u in unpinned_datasets()}

    assert set(unpinned) == {"med_dialog", "medmcqa", "medxpert_qa_text", "health_bench", "health_bench_professional"}
    for folder, source in unpinned.items():
        card = get(source.benchmark).card
        assert card.data.folder == folder and card.access == "public"
        assert [name for name, _ in source.files] == sorted(card.data.files or [])
        assert all(url.startswith("https://") for _, url in source.files)
        assert folder not in dataset_sources(), "a pinned source must not also be listed as unpinned"


@pytest.mark.parametrize("folder", sorted(dataset_sources()))
def test_each_source_names_repository_commit_urls_and_licence(folder: str) -> None:
    source = dataset_source(folder)

    owner_repo = re.fullmatch(r"https://github\.com/([\w.-]+/[\w.-]+)", source.repository)
    assert owner_repo, source.repository
    assert re.fullmatch(r"[0-9a-f]{40}", source.commit)
    assert source.base_url == f"https://raw.githubusercontent.com/{owner_repo.group(1)}/{source.commit}/" \
                              f"{source.base_path}"
    assert source.licence and source.licence_statement
    assert (source.licence == NONE_STATED) == (folder in UNLICENSED)
    assert source.files and all(f.bytes > 0 and re.fullmatch(r"[0-9a-f]{64}", f.sha256) for f in source.files)
    for f in source.files:
        assert f.path == source.base_path + f.name
        assert f.url.startswith(source.base_url) and " " not in f.url and "#" not in f.url
    assert source.checksums == published_checksums(folder)
    assert published_source(folder) == source  # read from its own manifest, in the folder of the card reading it:
    [reader] = [name for name in names() if get(name).card.data.folder == folder]
    assert (REPO / "medhelm_local" / "scenarios" / "benchmarks" / reader / "manifest.json").is_file()


def test_names_that_are_not_urls_are_escaped() -> None:
    report = next(f for f in dataset_source("mtsamples_procedures").files if "&" in f.name and " " in f.name)

    assert report.url.endswith(report.name.replace(" ", "%20").replace("&", "%26"))


def test_every_gated_benchmark_in_medhelm_says_where_to_obtain_it() -> None:
    gated_in_taxonomy = {b.name for sub in load_taxonomy().subcategories.values() for b in sub.benchmarks
                         if b.access == "gated"}
    listed = {g.benchmark for g in gated_datasets()}

    assert gated_in_taxonomy <= listed
    assert all(g.obtain_at.startswith("https://") and g.needs for g in gated_datasets())


def test_a_benchmark_finds_its_source_by_name_or_alias() -> None:
    assert benchmark_source("medhelm_med_qa") == benchmark_source("med_qa") == dataset_source("medqa_usmle_4opt")


def test_an_unknown_folder_lists_the_known_ones() -> None:
    with pytest.raises(UnknownScenarioError, match="use one of: aci_bench"):
        dataset_source("nope")


@pytest.mark.skipif(not published_mirror(), reason=f"published datasets not on this machine ({SHARED_DATASETS})")
@pytest.mark.parametrize("folder", sorted(dataset_sources()))
def test_the_recorded_sizes_and_checksums_are_the_published_files(folder: str) -> None:
    for f in dataset_source(folder).files:
        path = SHARED_DATASETS / folder / f.name
        assert path.stat().st_size == f.bytes
        assert sha256_file(path) == f.sha256


def _subsets() -> list[tuple[str, str]]:
    return [(folder, s.name) for folder, source in dataset_sources().items() for s in source.subsets]


@pytest.mark.parametrize(("folder", "name"), _subsets())
def test_each_pinned_subset_is_the_file_the_demo_and_the_tests_use(folder: str, name: str) -> None:
    [subset] = [s for s in dataset_source(folder).subsets if s.name == name]

    assert sha256_file(DEMO_DATASETS / folder / name) == subset.sha256
    assert subset.sha256 != dataset_source(folder).checksums[name] and subset.items > 0 and subset.note


@pytest.mark.skipif(not published_mirror(), reason=f"published datasets not on this machine ({SHARED_DATASETS})")
@pytest.mark.parametrize(("folder", "name"), _subsets())
def test_each_pinned_subset_is_a_cut_of_the_published_file_item_for_item(folder: str, name: str,
                                                                          tmp_path: Path) -> None:
    [subset] = [s for s in dataset_source(folder).subsets if s.name == name]
    import_dataset(DEMO_DATASETS / folder, tmp_path)
    bench = next(get(n) for n in names() if get(n).card.data.folder == folder).create()

    def items(root: Path) -> list[tuple[object, ...]]:  # without ids: some readers number items by position
        return [(i.split, i.input, i.references, tuple(sorted(i.extra.items()))) for i in bench.load(DataRoot(root))]

    published = set(items(SHARED_DATASETS))
    cut = items(tmp_path)
    assert len(cut) == subset.items and all(item in published for item in cut)
