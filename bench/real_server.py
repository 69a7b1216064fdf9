"""The harness against a real inference server: one `medhelm-local run` against a minimal client, paired.

Starts the vLLM CPU server (and/or the llama.cpp server) on the project's tiny model, imports PubMedQA and
MedQA (the published files: ../shared/datasets, or --datasets), then for each pair runs, in alternating order:
 - `medhelm-local run` of PubMedQA's 1,000 instances and 1,000 of MedQA's (the seeded sample `-m 1000`
   takes; MedQA's test split has 1,273) at 8 requests in flight, into a new encrypted store;
 - bench/minimal_client.py: the same 2,000 request bodies (read back from the first run's store) sent by a
   plain asyncio loop over aiohttp at 8 in flight, nothing parsed beyond JSON, nothing stored.
Prints, per engine, last:
    real_server_ratio X cpu_run_s Y cpu_client_s Z
X = median over pairs of (minimal client's wall / the run's wall: the whole process, start-up to exit);
on llama.cpp, whose server answers one request at a time, 100 of each (--llama-n) and 3 pairs by default;
Y, Z = median CPU seconds (user + system) of the run's process and of the client's. Target: X >= 0.9 on vLLM.
The server's own CPU competes with both on a small host, which is why every millisecond of harness CPU shows.

Run (it takes minutes; under the shared lock on a shared machine):
    PYTHONPATH=. flock /tmp/medhelm-heavy.lock .venv/bin/python bench/real_server.py [--engine vllm] [--pairs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import REPO, import_folder, prepare, run_cli, write_config

sys.path.insert(0, str(REPO / "deploy" / "local_vllm"))
sys.path.insert(0, str(REPO / "deploy" / "local_llama"))
import llama_server
import vllm_server

from medhelm_local.client.api import ChatApi
from medhelm_local.records import Prompt
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek

DATASETS = REPO.parent / "shared" / "datasets"
CLIENT_PYTHON = REPO / ".cache" / "vllm-venv" / "bin" / "python"  # has aiohttp (vLLM depends on it)
MODEL = "tiny-llama"


def _config(work: Path, name: str, port: int, in_flight: int, engine: str) -> Path:
    config = write_config(work, name, {"server": (port, in_flight)})
    # The deployment's table is the file's last: these keys belong to it.
    with config.open("a") as fh:
        fh.write(f'model = "{MODEL}"\nengine = "{engine}"\ntimeout_s = 600\n')
    return config


def _bodies(work: Path, suite: str, engine: str, out: Path) -> int:
    """The request bodies the run sent, rebuilt from its store exactly as its client builds them."""
    kek = Kek(bytes.fromhex((work / "kek").read_text().strip()), str(work / "kek"))
    handle = open_store(work / "results" / f"{suite}.duckdb", kek, read_only=True)
    try:
        rows = handle.con.execute("SELECT instance_id, prompt, params_json FROM requests").fetchall()
    finally:
        handle.close()
    api = ChatApi()
    with out.open("w") as fh:
        for instance_id, text, params_json in rows:
            params = json.loads(params_json)
            prompt = Prompt(instance_id, text, max_tokens=params["max_tokens"], temperature=params["temperature"],
                            stop=tuple(params["stop"]), logprobs=params["logprobs"], system=params["system"])
            fh.write(json.dumps(api.payload(prompt, MODEL, engine)) + "\n")
    return len(rows)


def _client(url: str, bodies: Path, in_flight: int) -> tuple[float, float]:
    """Wall and CPU seconds of the minimal client, as its own process (os.wait4, as the run is measured)."""
    started = time.perf_counter()
    proc = subprocess.Popen([str(CLIENT_PYTHON), str(REPO / "bench" / "minimal_client.py"), "--url", url,
                             "--bodies", str(bodies), "--in-flight", str(in_flight)], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("the minimal client failed")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def measure(engine: str, base_url: str, port: int, work: Path, pairs: int, n: int, in_flight: int) -> None:
    """Paired, alternating runs and client passes against one server; prints each pair and the medians."""
    config = _config(work, engine.replace(".", ""), port, in_flight, engine)
    entries = [f"{b}:model=local/{MODEL},model_deployment=server" for b in ("pubmed_qa", "med_qa")]

    def run(suite: str) -> tuple[float, float]:
        measured = run_cli(work, ["-c", str(config), "run", *entries, "--suite", suite, "-m", str(n),
                                  "--concurrency", str(in_flight), "-q"])
        return measured.wall, measured.cpu

    tag = engine.replace(".", "")
    run(f"{tag}-warm")  # the server's first requests (and caches) are not what is compared
    bodies = work / f"bodies-{tag}.jsonl"
    count = _bodies(work, f"{tag}-warm", engine, bodies)
    print(f"{engine}: {count} requests a pass, {in_flight} in flight", flush=True)
    ratios, run_cpu, client_cpu = [], [], []
    for pair in range(pairs):
        if pair % 2 == 0:
            run_wall, r_cpu = run(f"{tag}-{pair}")
            client_wall, c_cpu = _client(base_url, bodies, in_flight)
        else:
            client_wall, c_cpu = _client(base_url, bodies, in_flight)
            run_wall, r_cpu = run(f"{tag}-{pair}")
        ratios.append(client_wall / run_wall)
        run_cpu.append(r_cpu)
        client_cpu.append(c_cpu)
        print(f"  pair {pair}: run {run_wall:.2f} s ({r_cpu:.2f} s CPU), minimal client {client_wall:.2f} s "
              f"({c_cpu:.2f} s CPU), ratio {ratios[-1]:.3f}", flush=True)
    print(f"{engine}: real_server_ratio {statistics.median(ratios):.3f} cpu_run_s {statistics.median(run_cpu):.2f} "
          f"cpu_client_s {statistics.median(client_cpu):.2f}", flush=True)


def main() -> int:
    """Set up, measure each engine, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("vllm", "llama.cpp", "both"), default="both")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("-n", type=int, default=1000, help="instances of each benchmark")
    parser.add_argument("--llama-n", type=int, default=100, help="instances of each benchmark on llama.cpp, whose "
                        "server answers one request at a time (~0.25 s each for PubMedQA here)")
    parser.add_argument("--llama-pairs", type=int, default=3)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    args = parser.parse_args()
    for folder in ("pubmedqa", "medqa_usmle_4opt"):
        if not (args.datasets / folder).is_dir():
            raise SystemExit(f"no {folder} under {args.datasets}: stage the published files there (`data stage`)")
    with tempfile.TemporaryDirectory(prefix="medhelm-bench-real-") as tmp:
        work = Path(tmp)
        prepare(work)
        for folder in ("pubmedqa", "medqa_usmle_4opt"):
            import_folder(work, args.datasets / folder)
        if args.engine in ("vllm", "both"):
            with vllm_server.VllmServer(model_dir=REPO / ".cache" / "tiny-model") as server:
                measure("vllm", server.base_url, int(server.port or 0), work, args.pairs, args.n, args.in_flight)
        if args.engine in ("llama.cpp", "both"):
            with llama_server.LlamaServer() as server:
                measure("llama.cpp", server.base_url, int(server.port or 0), work, args.llama_pairs, args.llama_n,
                        args.in_flight)
    return 0


if __name__ == "__main__":
    sys.exit(main())
