"""Memory of `medhelm-local run` as the benchmark grows: peak RSS at 1,000 and at 100,000 instances.

Synthetic MedQA questions (its published JSONL layout), the fake server at 0 ms latency, 64
requests in flight, one `run` process each; peak RSS of that process alone (os.wait4). Instances
are read, prompted, sent and written in bounded batches, so memory should not grow with their
number. Prints, last:
    rss_ratio X rss_mb_100k Y
X = peak RSS at 100,000 / peak RSS at 1,000. Targets: X <= 1.3, Y <= 350.
Run: .venv/bin/python bench/memory.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from harness import import_folder, prepare, run_cli, start_server, synthetic_medqa, write_config

SMALL, LARGE, IN_FLIGHT = 1_000, 100_000, 64


def measure(work: Path, n: int) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of one run over n instances."""
    folder = work / f"src-{n}" / "medqa_usmle_4opt"
    synthetic_medqa(folder, n)
    import_folder(work, folder)
    server = start_server(work, 0.0, f"n{n}")
    try:
        config = write_config(work, f"n{n}", {"fake": (server.port, IN_FLIGHT)})
        measured = run_cli(work, ["-c", str(config), "run", "med_qa:model=bench/fake,model_deployment=fake",
                                  "--suite", f"memory-{n}", "--quiet"])
        if server.stats()["requests"] != n:
            raise SystemExit(f"expected {n} requests, the server saw {server.stats()['requests']}")
    finally:
        server.stop()
    print(f"{n:>7} instances: peak RSS {measured.rss_mb:.0f} MB, {measured.wall:.1f} s, {measured.cpu:.1f} s CPU")
    return measured.rss_mb, measured.wall


def main() -> None:
    """Measure and print."""
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-memory-") as tmp:
        work = Path(tmp)
        prepare(work)
        small, _ = measure(work, SMALL)
        large, _ = measure(work, LARGE)
        print(f"rss_ratio {large / small:.2f} rss_mb_100k {large:.0f}")


if __name__ == "__main__":
    main()
