"""What the store writer's commit cadence costs when answers trickle in, as they do from a real server.

Hands 2,000 answers (a completion and two scores each, as a multiple-choice run writes them) to a
StoreWriter on a new encrypted store at a steady rate (default 200 a second, about what the vLLM CPU
server gives the tiny model at 8 in flight on an idle machine), with the old 50 ms window and the new 1 s
window, alternating which goes first. Prints per window the commits made and the process CPU seconds
spent (writer thread included), medians over the trials:
    window_s 0.05 commits N cpu_s X
    window_s 1.0 commits N cpu_s Y
    cadence_cpu_ratio Y/X

Run: PYTHONPATH=. .venv/bin/python bench/writer_cadence.py [--rate 200] [--trials 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from medhelm_local.store.database import open_store
from medhelm_local.store.keys import write_new_kek
from medhelm_local.store.writer import StoreWriter, row_of

N = 2000


def _group(n: int) -> list[tuple[str, tuple[object, ...]]]:
    completion = row_of("completions", run_id="r", instance_id=f"i{n:05d}", ok=True, text="B", finish_reason="stop",
                        prompt_tokens=400, completion_tokens=1, latency_s=0.05, attempts=1)
    scores = [row_of("scores", run_id="r", instance_id=f"i{n:05d}", metric=m, value=1.0, extracted="B",
                     detail_json=json.dumps({"read": "B"})) for m in ("exact_match", "helm_exact_match")]
    return [("completions", completion), *(("scores", s) for s in scores)]


def trial(work: Path, window: float, rate: float, name: str) -> tuple[int, float]:
    """Commits and CPU seconds to write N answers handed over `rate` a second."""
    kek = write_new_kek(work / f"kek-{name}")
    handle = open_store(work / f"{name}.duckdb", kek, create=True, streaming=True)
    groups = [_group(n) for n in range(N)]
    try:
        cpu = time.process_time()
        writer = StoreWriter(handle, flush_interval=window)
        start = time.perf_counter()
        for n, group in enumerate(groups):
            pause = start + n / rate - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            writer.put_group(group)
        writer.close()
        return writer.commits, time.process_time() - cpu
    finally:
        handle.close()


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    results: dict[float, list[tuple[int, float]]] = {0.05: [], 1.0: []}
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-cadence-") as tmp:
        for t in range(args.trials):
            order = (0.05, 1.0) if t % 2 == 0 else (1.0, 0.05)
            for window in order:
                results[window].append(trial(Path(tmp), window, args.rate, f"t{t}-{window}"))
    cpu = {}
    for window, found in results.items():
        cpu[window] = statistics.median(c for _, c in found)
        print(f"window_s {window} commits {statistics.median(n for n, _ in found):.0f} cpu_s {cpu[window]:.2f}")
    print(f"cadence_cpu_ratio {cpu[1.0] / cpu[0.05]:.3f}")


if __name__ == "__main__":
    main()
