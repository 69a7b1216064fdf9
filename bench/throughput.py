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

import json
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "medhelm-local"
N, IN_FLIGHT, LATENCY = 1000, 64, 0.2


def synthetic_medqa(folder: Path, n: int) -> None:
    """n USMLE-style questions in MedQA's published JSONL layout (synthetic: no licence question)."""
    rng = random.Random(7)
    folder.mkdir(parents=True)
    with (folder / "phrases_no_exclude_test.jsonl").open("w") as fh:
        for i in range(n):
            options = {k: f"option {k} for case {i} " + " ".join(rng.choice(["acute", "chronic", "renal", "hepatic"])
                                                              for _ in range(4)) for k in "ABCD"}
            answer = rng.choice("ABCD")
            question = f"A {rng.randint(20, 80)}-year-old presents with case {i}. " + "Findings are noted. " * 20
            fh.write(json.dumps({"question": question, "answer": options[answer], "options": options,
                                 "meta_info": "step1", "answer_idx": answer}) + "\n")


def start_server(work: Path, delay: float, name: str) -> tuple[subprocess.Popen[bytes], int]:
    port_file = work / f"port-{name}"
    proc = subprocess.Popen([sys.executable, str(REPO / "tests/support/fake_openai.py"), "--port-file",
                             str(port_file), "--delay", str(delay)])
    while not port_file.exists():
        time.sleep(0.01)
    return proc, int(port_file.read_text())


def run_once(work: Path, delay: float, suite: str, limit: int = N, quiet: bool = True) -> tuple[float, float, float]:
    """Wall seconds, server request span, and CPU seconds of one `medhelm-local run`."""
    server, port = start_server(work, delay, suite)
    try:
        config = work / f"config-{suite}.toml"
        policies = work / f"policies-{suite}"
        policies.mkdir(exist_ok=True)
        for name in ("export.yaml", "retention.yaml", "roles.yaml"):
            shutil.copy(REPO / "policies" / name, policies / name)
        (policies / "egress.yaml").write_text(f"default: deny\nallow:\n  - host: 127.0.0.1\n    port: {port}\n"
                                              "    purpose: inference\n    why: the fake server this bench starts\n")
        config.write_text(f'data_root = "{work / "data"}"\noutput_dir = "{work / "results"}"\n'
                          f'policy_dir = "{policies}"\naudit_store = "{work / "audit.duckdb"}"\n'
                          f'[deployments.fake]\nbase_url = "http://127.0.0.1:{port}/v1"\n'
                          f"max_concurrency = {IN_FLIGHT}\n")
        env = {**os.environ, "MEDHELM_KEK_FILE": str(work / "kek")}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([str(CLI), "-c", str(config), "run", "med_qa:model=bench/fake,model_deployment=fake",
                        "--suite", suite, "--concurrency", str(IN_FLIGHT), "-m", str(limit)]
                       + (["-q"] if quiet else []), env=env, check=True, capture_output=not quiet)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats") as resp:
            stats = json.load(resp)
        if stats["requests"] != limit:
            raise SystemExit(f"expected {limit} requests, the server saw {stats['requests']}")
        span = stats["last_reply_at"] - stats["first_request_at"]
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return wall, span, cpu
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    """Measure and print."""
    floor = math.ceil(N / IN_FLIGHT) * LATENCY
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-") as tmp:
        work = Path(tmp)
        subprocess.run([str(CLI), "keys", "init", "--out", str(work / "kek")], check=True, capture_output=True)
        synthetic_medqa(work / "src" / "medqa_usmle_4opt", N)
        subprocess.run([str(CLI), "data", "import", str(work / "src" / "medqa_usmle_4opt"), "--data-root",
                        str(work / "data")], check=True, capture_output=True)
        walls, spans = [], []
        for trial in range(3):
            wall, span, _ = run_once(work, LATENCY, f"latency-{trial}")
            walls.append(wall)
            spans.append(span)
            print(f"trial {trial}: end to end {wall:.3f} s, requests {span:.3f} s (floor {floor:.1f} s)")
        default_wall = run_once(work, LATENCY, "default-mode", quiet=False)[0]
        print(f"default mode (progress bar, results table): end to end {default_wall:.3f} s "
              f"({default_wall / floor:.3f} x floor)")
        full = min(run_once(work, 0.0, f"cpu-{trial}")[2] for trial in range(3))
        small = min(run_once(work, 0.0, f"cpu-small-{trial}", limit=100)[2] for trial in range(3))
        marginal_ms = (full - small) / (N - 100) * 1000
        print(f"CPU at 0 ms latency: {full:.3f} s for {N} instances, {small:.3f} s for 100 "
              f"(whole process {full / N * 1000:.3f} ms per instance, start-up included)")
        print(f"ratio_end_to_end {min(walls) / floor:.3f} ratio_requests {min(spans) / floor:.3f} "
              f"cpu_ms_per_instance {marginal_ms:.3f}")


if __name__ == "__main__":
    main()
