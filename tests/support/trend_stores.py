"""Three monthly suite stores of the same two models on PubMedQA, for the trend tests: one model improves in the last
month, the other's server swaps its model build in the second month while its score stays put."""

from __future__ import annotations

import random
from pathlib import Path

from medhelm_local.store.keys import Kek
from support.report_store import FakeRun, write_store

N = 40
SUITES = ("jan", "feb", "mar")


def _values(ones: set[int]) -> list[float]:
    return [1.0 if i in ones else 0.0 for i in range(N)]


# steady: 20 of 40 right in jan and feb (the same instances), then 36 in mar (the same 20 and 16 more): +0.4.
STEADY = {"jan": set(range(20)), "feb": set(range(20)), "mar": set(range(36))}
# swapped: 20 of 40 every month, but the server's build changed in feb; in mar 2 instances turn right, 2 wrong.
SWAPPED = {"jan": set(range(20)), "feb": set(range(20)), "mar": set(range(2, 22))}
BUILDS = {"jan": "swap-v1", "feb": "swap-v2", "mar": "swap-v2"}


# With a second benchmark (for a picture): MedicationQA's ROUGE-L per month, drawn around these means.
ROUGE = {"local/steady": {"jan": 0.30, "feb": 0.31, "mar": 0.33}, "local/swapped": {"jan": 0.28, "feb": 0.22,
                                                                                  "mar": 0.23}}


def write_suites(folder: Path, kek: Kek, second_benchmark: bool = False) -> list[Path]:
    """Three monthly suite stores (jan, feb, mar) of two models on PubMedQA (and MedicationQA)."""
    paths = []
    for month, suite in enumerate(SUITES):
        path = folder / f"{suite}.duckdb"
        runs = [FakeRun("local/steady", "pubmed_qa", N, values=_values(STEADY[suite]), seed=1, served="steady-v1"),
                FakeRun("local/swapped", "pubmed_qa", N, values=_values(SWAPPED[suite]), seed=2,
                        served=BUILDS[suite])]
        if second_benchmark:
            draw = random.Random(month)
            runs += [FakeRun(model, "medication_qa", 60, seed=10 * month + m, served=served,
                             values=[max(0.0, min(1.0, draw.gauss(means[suite], 0.12))) for _ in range(60)])
                     for m, (model, means, served) in enumerate(
                         (("local/steady", ROUGE["local/steady"], "steady-v1"),
                          ("local/swapped", ROUGE["local/swapped"], BUILDS[suite])))]
        write_store(path, kek, suite, runs)
        paths.append(path)
    return paths
