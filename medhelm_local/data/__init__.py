"""Public benchmark data: where it is published, staging it on a connected host, importing the bundle.

    dataset_sources() / dataset_source(folder) -> DatasetSource   published location, licence, files
    benchmark_source(name) -> DatasetSource | None                 the same, for a benchmark (`benchmarks show`)
    gated_datasets() -> GatedDataset...                            where to obtain gated data (never fetched)
    plan_stage(names) -> StagePlan; stage(plan, to, ...)           `data stage`: fetch, verify, write a bundle
    import_bundle(bundle, data_root, audit, ...)                   `data import BUNDLE`: verify, copy, audit

Staging and importing load the HTTP client and the signing code, so they are imported on first use:
loading a benchmark (which reads `dataset_sources`) pays for neither.
"""

from __future__ import annotations

from typing import Any

from medhelm_local.lazy import lazy_attribute
from medhelm_local.scenarios.dataset_sources import (
    NONE_STATED,
    DatasetSource,
    GatedDataset,
    PublishedFile,
    benchmark_source,
    dataset_source,
    dataset_sources,
    gated_datasets,
)

_LAZY = {"BundleImport": "bundle_import", "import_bundle": "bundle_import", "is_data_bundle": "bundle_import",
         "StagePlan": "stage", "StageResult": "stage", "plan_stage": "stage", "require_hosts": "stage",
         "stage": "stage", "staging_allowlist": "stage"}


def __getattr__(name: str) -> Any:
    return lazy_attribute(__name__, _LAZY, name)


__all__ = [
    "NONE_STATED",
    "BundleImport",
    "DatasetSource",
    "GatedDataset",
    "PublishedFile",
    "StagePlan",
    "StageResult",
    "benchmark_source",
    "dataset_source",
    "dataset_sources",
    "gated_datasets",
    "import_bundle",
    "is_data_bundle",
    "plan_stage",
    "require_hosts",
    "stage",
    "staging_allowlist",
]
