"""Every prompt this project builds is byte-identical to HELM 0.5.16's (tests/data/helm_parity, tools/helm_parity).

On the published datasets (../shared/datasets, or the folder HELM_PARITY_DATASETS names) each
benchmark is checked id by id against HELM's digests; where they are absent, on the demo subsets
cut from them (deploy/demo/datasets) each prompt must be one of HELM's; a benchmark with neither is
skipped with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import DEMO_DATASETS, SHARED_DATASETS
from support.helm_parity import (
    FIXTURE,
    FIXTURES,
    PUBLISHED,
    REGENERATE,
    SUBSET,
    WITHOUT_DIGESTS,
    Golden,
    compare,
    goldens,
)

from medhelm_local.scenarios import DataRoot, get, import_dataset, names

PUBLISHED_ROOT = Path(os.environ.get("HELM_PARITY_DATASETS") or SHARED_DATASETS)
GOLDENS = goldens()
CHECKS = [(golden, check) for golden in GOLDENS for check in golden.checks]


def _data(golden: Golden, tmp_path: Path) -> tuple[DataRoot, str]:
    """The published files the digests were made from, else a demo subset of them, else a skip (or, for a
    benchmark checked on the project's synthetic fixture, that fixture)."""
    if golden.root == FIXTURE:
        assert golden.same_files(FIXTURES), f"{FIXTURES / golden.folder} changed: regenerate the digests ({REGENERATE})"
        import_dataset(FIXTURES / golden.folder, tmp_path / "data")
        return DataRoot(tmp_path / "data"), PUBLISHED
    if golden.same_files(PUBLISHED_ROOT):
        return DataRoot(PUBLISHED_ROOT), PUBLISHED
    if (PUBLISHED_ROOT / golden.folder).is_dir():
        pytest.fail(f"{PUBLISHED_ROOT / golden.folder} holds other files than HELM's prompts were made from: "
                    f"regenerate the digests ({REGENERATE})")
    demo = DEMO_DATASETS / golden.folder
    if demo.is_dir():
        import_dataset(demo, tmp_path / "data")
        return DataRoot(tmp_path / "data"), SUBSET
    pytest.skip(f"no copy of {golden.folder} here ({PUBLISHED_ROOT} or {DEMO_DATASETS}): nothing to compare")


@pytest.mark.parametrize(("golden", "check"), CHECKS,
                         ids=[golden.benchmark + "".join(f":{k}={v}" for k, v in check["args"].items())
                              for golden, check in CHECKS])
def test_every_prompt_is_identical_to_helms(golden: Golden, check: dict, tmp_path: Path) -> None:
    data, mode = _data(golden, tmp_path)

    outcome = compare(golden, check["args"], check["covers"], data, mode)

    assert not outcome.request, f"{outcome.entry}: request parameters differ from HELM's: {outcome.request}"
    assert not outcome.extra, f"{outcome.entry}: {len(outcome.extra)} instance(s) HELM does not make, e.g. " \
                              f"{outcome.extra[:3]}"
    assert not outcome.differing, f"{outcome.entry}: {len(outcome.differing)} of {outcome.here} prompts differ " \
                                  f"from HELM's, e.g. {outcome.differing[:3]}"
    if check["covers"] == "all" and mode == PUBLISHED:
        assert not outcome.missing, f"{outcome.entry}: {len(outcome.missing)} of HELM's instances are not built " \
                                    f"here, e.g. {outcome.missing[:3]}"
        assert outcome.identical == outcome.helm
    assert outcome.ok and outcome.here > 0


def test_every_public_benchmark_has_digests_or_a_reason() -> None:
    public = {name for name in names() if get(name).access == "public" and get(name).builtin}
    with_digests = {golden.benchmark for golden in GOLDENS}

    assert public == with_digests | set(WITHOUT_DIGESTS), "add the benchmark to tools/helm_parity/benchmarks.py"
    assert not with_digests & set(WITHOUT_DIGESTS)
    # Synthetic files only where no copy of the published ones is here.
    assert {g.benchmark for g in GOLDENS if g.root == FIXTURE} == {"med_dialog", "med_mcqa"}
    assert all(golden.helm == "crfm-helm 0.5.16" for golden in GOLDENS)


def test_a_benchmark_marked_not_comparable_is_checked_in_its_helm_compatible_form() -> None:
    for golden in GOLDENS:
        card = get(golden.benchmark).card
        full = [check["args"] for check in golden.checks if check["covers"] == "all"]
        assert full, f"{golden.benchmark}: no run entry is checked against all of HELM's instances"
        if card.not_comparable is not None:
            assert any(card.comparability(args) is None for args in full), golden.benchmark


def test_a_changed_prompt_is_caught(tmp_path: Path) -> None:
    golden = next(g for g in GOLDENS if g.benchmark == "pubmed_qa")
    tampered = Golden(golden.benchmark, golden.helm, golden.checks, golden.root, golden.folder, golden.source_files,
                      {**golden.request, "max_tokens": 2},
                      {key: ("0" * 64 if n == 0 else digest) for n, (key, digest) in enumerate(golden.prompts.items())})
    data, mode = _data(golden, tmp_path)

    outcome = compare(tampered, {}, "all", data, mode)

    assert not outcome.ok
    assert outcome.request == ["max_tokens 1 (HELM 2)"]
    assert outcome.differing or mode == SUBSET
