"""Instructions one `medhelm-local run` executes, counted by valgrind (callgrind), which a loaded machine does not move.

The workload is bench/throughput.py's CPU probe: 100 synthetic MedQA instances against a fake server with no
latency, so the count is mostly what a run does besides its requests: start-up, planning, opening the store
and the audit log, scoring, aggregates, closing. A warm-up run first (as the timing benches do), then the
counted one. Slow (a run takes ~100 s under valgrind); needs `valgrind` (Debian package). Prints, last:
    run_instructions N
Run: PYTHONPATH=$PWD .venv/bin/python bench/run_instructions.py [--instances 100] [--keep FILE]
Comparing two commits: run it in each tree (PYTHONPATH=<tree>); the callgrind file (--keep) lists where they
differ (`callgrind_annotate FILE`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import harness
import throughput


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="write callgrind's output file here")
    args = parser.parse_args()
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-instructions-") as tmp:
        work = Path(tmp)
        harness.prepare(work)
        harness.synthetic_medqa(work / "src" / "medqa_usmle_4opt", max(args.instances, 100))
        harness.import_folder(work, work / "src" / "medqa_usmle_4opt")
        throughput.run_once(work, 0.0, "warm-up", limit=args.instances)
        out = args.keep or work / "callgrind.out"
        wrapper = work / "counted-cli"
        # Hash seed fixed: set and dict orders, and so the instructions, are the same in every count.
        wrapper.write_text(f"#!/bin/sh\nexec env PYTHONHASHSEED=0 {valgrind} --tool=callgrind --callgrind-out-file="
                           f"{out} {sys.executable} {harness.CLI} \"$@\"\n")
        wrapper.chmod(0o700)
        harness.CLI = wrapper
        throughput.run_once(work, 0.0, "counted", limit=args.instances)
        totals = subprocess.run(["callgrind_annotate", str(out)], capture_output=True, text=True,
                                env={**os.environ, "LC_ALL": "C"}).stdout
        line = next((text for text in totals.splitlines() if "PROGRAM TOTALS" in text), None)
        if line is None:
            raise SystemExit(f"callgrind_annotate printed no total for {out}")
        count = int(line.split()[0].replace(",", ""))
        print(f"one run of {args.instances} instances: {count:,} instructions (callgrind, {out.name})")
        print(f"run_instructions {count}")


if __name__ == "__main__":
    main()
