"""What a run read, and whether it is a published release: the verdict the export gate relies on."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import DEMO_DATASETS

from medhelm_local.scenarios import DataRoot, create
from medhelm_local.scenarios.data_read import DATA_ROOT, DataRead, release_verdict
from medhelm_local.scenarios.datafiles import sha256_file
from medhelm_local.scenarios.dataset_sources import dataset_source

PUBLISHED = dataset_source("pubmedqa").checksums["ori_pqal.json"]
SUBSET = sha256_file(DEMO_DATASETS / "pubmedqa" / "ori_pqal.json")


def test_the_published_file_and_the_pinned_subset_are_public_and_nothing_else() -> None:
    assert release_verdict("pubmedqa", {"ori_pqal.json": PUBLISHED}) == (
        True, f"every file it read is pubmedqa as published ({dataset_source('pubmedqa').provenance})")
    public, why = release_verdict("pubmedqa", {"ori_pqal.json": SUBSET})
    assert public and "as a subset medhelm-local pins" in why
    public, why = release_verdict("pubmedqa", {"ori_pqal.json": "0" * 64})
    assert not public and why.startswith("pubmedqa/ori_pqal.json is not the published file")
    # A pinned checksum counts only for the file it pins.
    assert not release_verdict("pubmedqa", {"test_ground_truth.json": PUBLISHED})[0]
    assert not release_verdict("pubmedqa", {})[0]


def test_unpinned_datasets_and_a_cards_own_file_are_never_public() -> None:
    public, why = release_verdict("med_dialog", {"healthcaremagic/test.json": "a" * 64})
    assert not public and "med_dialog has no published checksums" in why
    public, why = release_verdict("", {"ward_notes.csv": "b" * 64})
    assert not public and "not a dataset whose published files medhelm-local pins" in why


def test_a_benchmark_reports_what_it_read_from_the_data_root(data_root: Path) -> None:
    read, instances = create("pubmed_qa").reading(DataRoot(data_root))

    assert read.origin == DATA_ROOT and read.folder == "pubmedqa"
    assert dict(read.files) == {"ori_pqal.json": SUBSET} and read.published
    assert len(list(instances)) == 50


def test_a_stored_record_that_is_not_one_reads_as_none() -> None:
    read = DataRead("pubmedqa", DATA_ROOT, {"ori_pqal.json": SUBSET}, True, "why")
    assert DataRead.from_json(json.loads(json.dumps(read.to_json()))) == read
    for damaged in (None, "x", [], {"files": "x", "folder": "", "origin": ""}, {"files": {"a": 1}, "folder": "",
                                                                                  "origin": ""}):
        assert DataRead.from_json(damaged) is None
