"""The built-in benchmarks, one folder each, named for the benchmark's run-entry name (as lm-eval keeps a task):

    benchmarks/pubmed_qa/
        card.yaml       everything about the benchmark that is data: prompt, metrics, taxonomy (scenarios/card.py)
        reader.py       the reader hook, where the published files need Python to become instances
                        (scenarios/readers.py registers it; a card that needs none has no reader.py)
        manifest.json   a public dataset: where it is published, its licence, each file's sha256
        gated.json      gated data: where to obtain it and what that needs (listed, never fetched)
        unpinned.json   a public dataset whose checksums are not pinned yet: each file's published URL
        README.md       the source, licence, task and metric, for a person reading the repository

`scenarios/dataset_sources.py` reads the manifests, `scenarios/registry.py` the cards. A hospital's own
cards are files or folders named by the `benchmark_cards` setting, read the same way (docs/benchmark-cards.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

CARD, MANIFEST, GATED, UNPINNED = "card.yaml", "manifest.json", "gated.json", "unpinned.json"


def root() -> Path:
    """The folder that holds one folder per built-in benchmark."""
    return Path(str(resources.files(__name__)))


def benchmark_file(benchmark: str, name: str) -> Path:
    """One file of a built-in benchmark's folder (it may not exist)."""
    return root() / benchmark / name


def every(name: str) -> Iterator[Path]:
    """That file of every built-in benchmark that has one, in benchmark-name order."""
    for folder in sorted(root().iterdir()):
        if (folder / name).is_file():
            yield folder / name
