"""Time `medhelm-local report` on a large suite, and the viewer's run page on a 10,000-instance run.

Builds one encrypted suite store with 10 models x 10 benchmarks x 10,000 instances (1,000,000 score
rows, one per instance; plus the instances, requests and completions they belong to, 2 % of requests
failed), written directly through the store API (no model). Then, each as its own process, measured
alone (os.wait4): `report --format json` and the HTML report (every page, every instance page). Then
`serve` on the same store: the run page of one 10,000-instance run and its first page of instances
over HTTP on 127.0.0.1 (the page carries its first 100 instances; the browser then fetches only our own
stylesheet and script), and another page of instances, each timed from the request to the last byte.
The HTML report holds its default 1,000 instances of each run (100,000 instance views); one more
invocation writes every instance (1,000,000) for comparison. Prints the medians of REPEAT
invocations, and, last:
    report_s X rss_mb Y
X = the slower of the JSON and HTML reports (median wall seconds), Y = its peak RSS.
Targets: X < 5, Y < 500; the run page under 1 s.
--slices gives every instance two slice values (age band from the prompt's age, and sex), so that every run is
aggregated per slice value and every benchmark gets a slice plot (the report "with slices on", issue 33).
Run: .venv/bin/python bench/report.py [--repeat 3] [--slices]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from harness import CLI, Measured, prepare, run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.report_store import FakeRun, write_store

from medhelm_local.store.keys import Kek

MODELS, INSTANCES = 10, 10_000
BENCHMARKS = ("pubmed_qa", "medcalc_bench", "med_qa", "head_qa", "medbullets", "medhallu", "medec", "ehr_sql",
              "aci_bench", "medication_qa")
PROMPT = "A {age}-year-old presents with case {i}. Findings are noted and a question follows about the next step."


def _slices(i: int) -> dict[str, str]:
    age = 20 + i % 60
    return {"age_band": "18-39" if age < 40 else "40-64" if age < 65 else "65+", "sex": "FM"[i % 2]}


def build_store(work: Path, sliced: bool = False) -> Path:
    """The 1,000,000-score suite store (every instance with slice values when `sliced`)."""
    kek = Kek(bytes.fromhex((work / "kek").read_text().strip()), "bench")
    runs = [FakeRun(f"local/model-{m:02d}", bench, INSTANCES, accuracy=0.3 + 0.05 * m, failed=INSTANCES // 50,
                    seed=m * 100 + b, only_main=True, prompt=lambda i: PROMPT.format(age=20 + i % 60, i=i),
                    slices=_slices if sliced else None)
            for m in range(MODELS) for b, bench in enumerate(BENCHMARKS)]
    path = work / "results" / "bench.duckdb"
    started = time.perf_counter()
    write_store(path, kek, "bench", runs)
    print(f"store: {len(runs)} runs, {len(runs) * INSTANCES:,} score rows, {path.stat().st_size / 1e6:.0f} MB, "
          f"written in {time.perf_counter() - started:.0f} s")
    return path


def time_report(work: Path, store: Path, fmt: str, repeat: int) -> list[Measured]:
    """`report` in `fmt`, `repeat` times, each a fresh process."""
    found = []
    for i in range(repeat):
        out = work / f"out-{fmt}-{i}" if fmt == "html" else work / f"report-{i}.{fmt}"
        measured = run_cli(work, ["report", "--store", str(store), "--format", fmt, "--out", str(out)])
        found.append(measured)
        print(f"  report --format {fmt}: {measured.wall:.2f} s, {measured.cpu:.2f} s CPU, "
              f"peak RSS {measured.rss_mb:.0f} MB")
    return found


def _get(url: str, token: str) -> tuple[float, int]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        size = len(response.read())
    return time.perf_counter() - started, size


def time_viewer(work: Path, store: Path, repeat: int) -> tuple[float, float]:
    """Median seconds for the run page of a 10,000-instance run (which carries its first 100 instances), and
    for another page of its instances (what the browser asks for when paging)."""
    env = {**os.environ, "MEDHELM_KEK_FILE": str(work / "kek")}
    proc = subprocess.Popen([str(CLI), "serve", "--store", str(store), "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        found = None
        while found is None:
            line = proc.stdout.readline() if proc.stdout else ""
            if not line:
                raise SystemExit(f"serve did not start: {proc.stderr.read() if proc.stderr else ''}")
            found = re.search(r"(http://\S+)\?token=(\S+)", line)
        base, token = found.group(1), found.group(2)
        run = "pubmed_qa-local_model-05-bench"
        _get(f"{base}runs/{run}", token)  # the first request builds the report (cached afterwards)
        pages, paging = [], []
        for _ in range(max(repeat, 5)):
            page_s, page_bytes = _get(f"{base}runs/{run}", token)
            data_s, data_bytes = _get(f"{base}runs/{run}/instances?page=37", token)
            pages.append(page_s)
            paging.append(data_s)
            print(f"  viewer run page {page_s:.3f} s ({page_bytes / 1e3:.0f} kB, with 100 instances); "
                  f"page 37 of its instances {data_s:.3f} s ({data_bytes / 1e3:.0f} kB)")
        return statistics.median(pages), statistics.median(paging)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    """Build, measure, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--slices", action="store_true", help="slice values on every instance")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-report-") as tmp:
        work = Path(tmp)
        prepare(work)
        store = build_store(work, args.slices)
        medians = {}
        for fmt in ("json", "html"):
            runs = time_report(work, store, fmt, args.repeat)
            medians[fmt] = (statistics.median(m.wall for m in runs), statistics.median(m.rss_mb for m in runs))
            print(f"report --format {fmt}: median {medians[fmt][0]:.2f} s, peak RSS {medians[fmt][1]:.0f} MB")
        html_mb = sum(f.stat().st_size for f in (work / "out-html-0").rglob("*") if f.is_file()) / 1e6
        print(f"HTML report: {html_mb:.0f} MB in {sum(1 for _ in (work / 'out-html-0').rglob('*'))} files")
        every = run_cli(work, ["report", "--store", str(store), "--out", str(work / "out-all"), "--instances", "all"])
        print(f"HTML report with every instance (--instances all, once): {every.wall:.2f} s, "
              f"peak RSS {every.rss_mb:.0f} MB")
        page, paging = time_viewer(work, store, args.repeat)
        print(f"viewer: run page of a {INSTANCES:,}-instance run (with its first 100 instances) median {page:.3f} s; "
              f"another page of instances median {paging:.3f} s")
        slowest = max(medians.values())
        print(f"report_s {slowest[0]:.2f} rss_mb {slowest[1]:.0f}")


if __name__ == "__main__":
    main()
