"""Throughput of `medhelm-local run` against the fake server, as ratios to the physical floor.

1,000 multiple-choice instances, 200 ms server latency, 64 requests in flight. The floor is
ceil(1000 / 64) x 0.2 s = 3.2 s: no harness can finish sooner. Prints, last:
    ratio_end_to_end X ratio_requests Y cpu_ms_per_instance Z
 - end to end: wall time of the whole `medhelm-local run` process (start to exit, encrypted store on);
 - requests: first request to last reply, as the server saw them;
 - CPU: the run process's user+system CPU per instance with 0 ms latency, as the marginal cost
   (CPU of a 1,000-instance run minus a 100-instance run, over 900), which is what a per-question
   figure means; the whole-process figure (start-up included, over 1,000) is printed above it.
Targets: <= 1.25, <= 1.05, < 1 ms.  Run: .venv/bin/python bench/throughput.py
The runs use --quiet (scripts' mode); one default-mode run (progress bar and table) is shown too.
"""

from __future__ import annotations

import math
import statistics
import tempfile
from pathlib import Path

from harness import children_cpu, import_folder, prepare, run_against, start_server, synthetic_medqa, write_config

N, IN_FLIGHT, LATENCY = 1000, 64, 0.2


def run_once(work: Path, delay: float, suite: str, limit: int = N, quiet: bool = True,
             phases: list[tuple[float, float]] | None = None) -> tuple[float, float, float]:
    """Wall seconds, server request span, and CPU seconds of one `medhelm-local run`; with `phases`, also
    appends (seconds before the server saw the first request, seconds after its last reply)."""
    server = start_server(work, delay, suite)
    before = children_cpu()

    def command() -> list[str]:
        config = write_config(work, suite, {"fake": (server.port, IN_FLIGHT)})
        return (["-c", str(config), "run", "med_qa:model=bench/fake,model_deployment=fake", "--suite", suite,
                 "--concurrency", str(IN_FLIGHT), "-m", str(limit)] + (["-q"] if quiet else []))

    measured = run_against(work, {"fake": server}, command, limit, quiet_output=quiet)
    first, span, after = measured.phases
    if phases is not None:
        phases.append((first, after))
    return measured.wall, span, measured.cpu if measured.cpu else children_cpu() - before


def main() -> None:
    """Measure and print."""
    floor = math.ceil(N / IN_FLIGHT) * LATENCY
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-") as tmp:
        work = Path(tmp)
        prepare(work)
        synthetic_medqa(work / "src" / "medqa_usmle_4opt", N)
        import_folder(work, work / "src" / "medqa_usmle_4opt")
        walls: list[float] = []
        spans: list[float] = []
        phases: list[tuple[float, float]] = []
        for trial in range(3):
            wall, span, _ = run_once(work, LATENCY, f"latency-{trial}", phases=phases)
            walls.append(wall)
            spans.append(span)
            print(f"trial {trial}: end to end {wall:.3f} s, requests {span:.3f} s (floor {floor:.1f} s); "
                  f"{phases[-1][0]:.3f} s before the first request, {phases[-1][1]:.3f} s after the last reply")
        default_wall = run_once(work, LATENCY, "default-mode", quiet=False)[0]
        print(f"default mode (progress bar, results table): end to end {default_wall:.3f} s "
              f"({default_wall / floor:.3f} x floor)")
        full = min(run_once(work, 0.0, f"cpu-{trial}")[2] for trial in range(3))
        small = min(run_once(work, 0.0, f"cpu-small-{trial}", limit=100)[2] for trial in range(3))
        marginal_ms = (full - small) / (N - 100) * 1000
        print(f"CPU at 0 ms latency: {full:.3f} s for {N} instances, {small:.3f} s for 100 "
              f"(whole process {full / N * 1000:.3f} ms per instance, start-up included)")
        print(f"median of the trials: end to end {statistics.median(walls) / floor:.3f}, requests "
              f"{statistics.median(spans) / floor:.3f} (the last line gives the best of them)")
        print(f"ratio_end_to_end {min(walls) / floor:.3f} ratio_requests {min(spans) / floor:.3f} "
              f"cpu_ms_per_instance {marginal_ms:.3f}")


if __name__ == "__main__":
    main()
