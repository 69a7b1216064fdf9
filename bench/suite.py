"""A suite on several endpoints at once: `medhelm-local run` of 3 models x 2 benchmarks x 640 instances.

Three fake servers (200 ms latency, 64 requests in flight each), one per model; two benchmarks
(synthetic MedQA and MedBullets in their published layouts), all six run entries given to one
`run` as a YAML suite. The floor: each endpoint must answer 2 x 640 requests, 64 at a time, so
2 x ceil(640 / 64) x 0.2 s = 4.0 s, with the three endpoints working in parallel. Prints, last:
    suite_ratio X
X = wall time of the whole `medhelm-local run` process / floor. Target <= 1.2.
Each trial also says where its time went (before the first request reached a server, the requests,
after the last reply) and, on three new fake servers, how long a bare client (kept connections, no
data, nothing scored or stored: `harness.bare_client`) takes for the same requests: the floor this
machine and the fake servers allow any client.
Run: .venv/bin/python bench/suite.py [--trials 3]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
from pathlib import Path

from harness import (
    FakeServer,
    bare_client,
    import_folder,
    prepare,
    requests_span,
    run_against,
    start_server,
    synthetic_medbullets,
    synthetic_medqa,
    write_config,
)

MODELS, PER_BENCHMARK, IN_FLIGHT, LATENCY = 3, 640, 64, 0.2
BENCHMARKS = ("med_qa", "medbullets")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=3)
    trials = parser.parse_args().trials
    floor = len(BENCHMARKS) * math.ceil(PER_BENCHMARK / IN_FLIGHT) * LATENCY
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-suite-") as tmp:
        work = Path(tmp)
        prepare(work)
        synthetic_medqa(work / "src" / "medqa_usmle_4opt", PER_BENCHMARK)
        synthetic_medbullets(work / "src" / "medbullets", PER_BENCHMARK)
        for folder in ("medqa_usmle_4opt", "medbullets"):
            import_folder(work, work / "src" / folder)
        ratios: list[float] = []
        parts: dict[str, list[float]] = {"before the first request": [], "requests": [], "after the last reply": [],
                                         "a bare client's requests": []}
        for trial in range(trials):
            servers = [start_server(work, LATENCY, f"m{i}-{trial}") for i in range(MODELS)]

            def command(trial: int = trial, servers: list[FakeServer] = servers) -> list[str]:
                config = write_config(work, f"t{trial}", {f"gpu{i}": (s.port, IN_FLIGHT)
                                                          for i, s in enumerate(servers)})
                suite = work / f"suite-{trial}.yaml"
                models = "".join(f"  - {{model: local/model-{i}, deployment: gpu{i}}}\n" for i in range(MODELS))
                suite.write_text(f"suite: bench-{trial}\nmodels:\n{models}benchmarks: [{', '.join(BENCHMARKS)}]\n"
                                 f"max_eval_instances: {PER_BENCHMARK}\n")
                return ["-c", str(config), "run", "--suite-file", str(suite), "--quiet"]

            measured = run_against(work, {f"gpu{i}": s for i, s in enumerate(servers)}, command,
                                   len(BENCHMARKS) * PER_BENCHMARK)
            ratios.append(measured.wall / floor)
            before, requests, after = measured.phases
            parts["before the first request"].append(before)
            parts["requests"].append(requests)
            parts["after the last reply"].append(after)
            bare = [start_server(work, LATENCY, f"bare{i}-{trial}") for i in range(MODELS)]
            try:
                bare_client([s.port for s in bare], len(BENCHMARKS) * PER_BENCHMARK, IN_FLIGHT)
                start, end = requests_span(s.stats() for s in bare)
            finally:
                for server in bare:
                    server.stop()
            parts["a bare client's requests"].append(end - start)
            print(f"trial {trial}: {measured.wall:.3f} s for {MODELS} models x {len(BENCHMARKS)} benchmarks x "
                  f"{PER_BENCHMARK} instances (floor {floor:.1f} s): {ratios[-1]:.3f} x floor, "
                  f"{measured.cpu:.2f} s CPU, peak RSS {measured.rss_mb:.0f} MB; before the first request "
                  f"{before:.3f} s, requests {requests:.3f} s, after the last reply {after:.3f} s; "
                  f"a bare client's requests {end - start:.3f} s")
        print("medians: " + ", ".join(f"{part} {statistics.median(values):.3f} s" for part, values in parts.items()))
        print(f"best {min(ratios):.3f}, median {statistics.median(ratios):.3f}")
        print(f"suite_ratio {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
