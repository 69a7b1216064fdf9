"""Parity of every scorer with the reference it claims: pairs checked and disagreements, per metric.

Reads the vectors in tests/metrics/parity (real benchmark rows with answer shapes, each scored by
the reference: HELM's own metric classes, or MedCalc-Bench's official rule as written down in the
README there) and scores them with this project's metrics. A metric that claims a reference must
show 0 disagreements; a documented improvement shows its disagreements by case, each with why.
Run: .venv/bin/python bench/parity.py [--examples N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.parity import EXPLAINED, outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=0, help="show N disagreeing pairs per metric")
    args = parser.parse_args()
    failing = 0
    print(f"{'metric':38} {'follows':34} {'pairs':>6} {'disagree':>8}")
    for outcome in outcomes():
        claim = outcome.claim
        kind = f"{claim.reference} (claimed)" if claim.claims else f"improves on {claim.reference}"
        print(f"{claim.metric:38} {kind[:34]:34} {outcome.checked:6d} {len(outcome.disagreements):8d}")
        if claim.claims:
            failing += len(outcome.disagreements)
        for case, count in sorted(outcome.by_case().items(), key=lambda item: -item[1]):
            why = EXPLAINED.get(claim.metric, {}).get(case, "NOT EXPLAINED")
            failing += why == "NOT EXPLAINED"
            print(f"    {count:5d}  {case}: {why}")
        for vector, got in outcome.disagreements[:args.examples]:
            print(f"           {vector['answer'][:60]!r}: reference {vector[claim.reference]}, here {got}")
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
