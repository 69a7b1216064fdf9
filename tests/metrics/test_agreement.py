"""Agreement statistics against references: Krippendorff's published example, and pingouin's ICC."""

from __future__ import annotations

import json
import math
import random
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

from medhelm_local.metrics.agreement import icc, ordinal_alpha, pairwise_icc

PINGOUIN = REPO / ".cache" / "pingouin-venv" / "bin" / "python"
NAN = None

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 observers x 12 units, missing
# values allowed. His worked results: nominal 0.743, ordinal 0.815, interval 0.849.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_ordinal_alpha_matches_krippendorffs_worked_example() -> None:
    assert ordinal_alpha(KRIPPENDORFF_EXAMPLE) == pytest.approx(0.815, abs=5e-4)


def test_alpha_is_undefined_not_zero_when_judges_never_differ_or_cannot_be_paired() -> None:
    assert ordinal_alpha([[3, 3, 3], [3, 3, 3]]) is None  # one value: no variation to agree on
    assert ordinal_alpha([[1, None, 2], [None, 4, None]]) is None  # no unit rated by both
    assert ordinal_alpha([[1, 2, 3]]) is None  # one judge


def test_perfect_agreement_and_systematic_disagreement() -> None:
    assert ordinal_alpha([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]) == pytest.approx(1.0)
    assert ordinal_alpha([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]) < 0  # type: ignore[operator]


def _pingouin(matrix: list[list[float]]) -> dict[str, float]:
    """pingouin's single-rater ICCs of a targets x raters matrix (in its own environment: `make pingouin`):
    ICC(A,1), absolute agreement (Shrout-Fleiss ICC(2,1)), and ICC(C,1), consistency (ICC(3,1))."""
    if not PINGOUIN.exists():
        pytest.fail("pingouin's environment is not built: run `make pingouin` (or `make test`)")
    script = ("import json, sys, pandas as pd, pingouin as pg\n"
              "m = json.load(sys.stdin)\n"
              "rows = [(t, r, v) for t, row in enumerate(m) for r, v in enumerate(row)]\n"
              "df = pd.DataFrame(rows, columns=['target', 'rater', 'score'])\n"
              "out = pg.intraclass_corr(df, targets='target', raters='rater', ratings='score').set_index('Type')\n"
              "print(json.dumps({k: float(out.loc[k, 'ICC']) for k in ('ICC(A,1)', 'ICC(C,1)')}))\n")
    done = subprocess.run([str(PINGOUIN), "-c", script], input=json.dumps(matrix), capture_output=True, text=True,
                          check=True, timeout=120)
    found: dict[str, float] = json.loads(done.stdout)
    return found


def _ratings(n: int, raters: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    truth = [rng.randint(1, 5) for _ in range(n)]
    return [[float(min(5, max(1, t + rng.choice((-1, 0, 0, 1)) + (r == 0)))) for r in range(raters)] for t in truth]


@pytest.mark.parametrize(("n", "raters", "seed"), [(30, 2, 1), (40, 3, 2), (12, 4, 3)])
def test_icc_matches_pingouin(n: int, raters: int, seed: int) -> None:
    matrix = _ratings(n, raters, seed)
    reference = _pingouin(matrix)

    assert icc(matrix, "ICC(2,1)") == pytest.approx(reference["ICC(A,1)"], abs=1e-9)
    assert icc(matrix, "ICC(3,1)") == pytest.approx(reference["ICC(C,1)"], abs=1e-9)


def test_pairwise_icc_of_two_raters_is_their_icc_and_skips_units_one_did_not_rate() -> None:
    matrix = _ratings(25, 2, 7)
    a, b = [row[0] for row in matrix], [row[1] for row in matrix]
    reference = _pingouin(matrix)

    value, low, high, used = pairwise_icc({"a": [*a, 3.0], "b": [*b, None]}, [("a", "b")], "ICC(3,1)")

    assert value == pytest.approx(reference["ICC(C,1)"], abs=1e-9)
    assert used == 25
    assert low <= value <= high


def test_the_bootstrap_interval_is_seeded_and_narrows_with_more_instances() -> None:
    small = _ratings(20, 2, 5)
    large = _ratings(400, 2, 5)
    cols = lambda m: {"a": [r[0] for r in m], "b": [r[1] for r in m]}  # noqa: E731

    first = pairwise_icc(cols(small), [("a", "b")])
    assert pairwise_icc(cols(small), [("a", "b")]) == first
    wide = first[2] - first[1]
    narrow = pairwise_icc(cols(large), [("a", "b")])
    assert narrow[2] - narrow[1] < wide


def test_too_few_instances_give_no_number_rather_than_a_made_up_one() -> None:
    value, low, _, used = pairwise_icc({"a": [4.0], "b": [5.0]}, [("a", "b")])
    assert math.isnan(value) and math.isnan(low) and used == 1


def test_pingouin_environment_is_pinned_in_the_makefile() -> None:
    assert "pingouin==0.7.0" in (Path(REPO) / "Makefile").read_text()
