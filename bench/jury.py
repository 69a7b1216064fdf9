"""Judging overlapped with generation: one `medhelm-local run` generates and judges 1,000 answers.

A hospital's own open-ended benchmark (a card and a CSV, main metric jury_score), 1,000 instances;
the model under evaluation and three judges are fake servers at 200 ms, 64 requests in flight per
endpoint. Generation and judging happen in the same `run`: each answer is queued to the three
judges as soon as it is stored. The floor is generation, then the judges in parallel on their own
endpoints: ceil(1000 / 64) x 0.2 s x 2 = 6.4 s. Prints, last:
    jury_ratio X
X = wall time of the whole `medhelm-local run` process / floor (the median of the trials). Target <= 1.3.
Run: .venv/bin/python bench/jury.py [--trials 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

from harness import REPO, FakeServer, prepare, run_against, start_server, write_config

sys.path.insert(0, str(REPO / "tests" / "support"))
from jury import write_generation_card

N, IN_FLIGHT, LATENCY, JUDGES = 1000, 64, 0.2, 3


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    trials = parser.parse_args().trials
    floor = math.ceil(N / IN_FLIGHT) * LATENCY * 2
    ratios = []
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-jury-") as tmp:
        work = Path(tmp)
        prepare(work)
        cards = work / "cards"
        write_generation_card(cards, N)
        for trial in range(trials):
            servers = {name: start_server(work, LATENCY, f"{name}-{trial}")
                       for name in ("model", *(f"judge{i}" for i in range(JUDGES)))}

            def command(trial: int = trial, servers: dict[str, FakeServer] = servers) -> list[str]:
                judges = [f"judge{i}" for i in range(JUDGES)]
                config = write_config(work, f"t{trial}", {n: (s.port, IN_FLIGHT) for n, s in servers.items()},
                                      judges=judges, top=[f'benchmark_cards = ["{cards}"]', 'jury = "bench"',
                                                          "[juries.bench]", f"judges = {judges!r}".replace("'", '"')])
                return ["-c", str(config), "run", "ward_notes:model=bench/model,model_deployment=model", "--suite",
                        f"jury-{trial}", "--quiet"]

            measured = run_against(work, servers, command, N)
            ratios.append(measured.wall / floor)
            print(f"trial {trial}: {measured.wall:.3f} s for {N} answers judged by {JUDGES} judges (floor "
                  f"{floor:.1f} s): {ratios[-1]:.3f} x floor, {measured.cpu:.2f} s CPU, "
                  f"peak RSS {measured.rss_mb:.0f} MB")
    print(f"best {min(ratios):.3f}, median {statistics.median(ratios):.3f}")
    print(f"jury_ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
