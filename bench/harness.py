"""What the bench scripts share: synthetic data in published layouts, fake servers, a config and policy
naming them, and running `medhelm-local` as a separate process. Not shipped; standard library only."""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "medhelm-local"


def synthetic_medqa(folder: Path, n: int, seed: int = 7, words: int = 20) -> None:
    """n USMLE-style questions in MedQA's published JSONL layout (synthetic: no licence question)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "phrases_no_exclude_test.jsonl").open("w") as fh:
        for i in range(n):
            options = {k: f"option {k} for case {i} " + " ".join(rng.choice(["acute", "chronic", "renal", "hepatic"])
                                                              for _ in range(4)) for k in "ABCD"}
            answer = rng.choice("ABCD")
            question = f"A {rng.randint(20, 80)}-year-old presents with case {i}. " + "Findings are noted. " * words
            fh.write(json.dumps({"question": question, "answer": options[answer], "options": options,
                                 "meta_info": "step1", "answer_idx": answer}) + "\n")


def synthetic_medbullets(folder: Path, n: int, seed: int = 11) -> None:
    """n five-option scenarios in MedBullets' published CSV layout (synthetic)."""
    import csv

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "medbullets_op5.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["question", "opa", "opb", "opc", "opd", "ope", "answer_idx", "answer", "explanation"])
        for i in range(n):
            options = [f"choice {k} of scenario {i}" for k in "abcde"]
            answer = rng.choice("ABCDE")
            writer.writerow([f"Scenario {i}: a patient presents. " + "Vitals are stable. " * 15, *options, answer,
                             options["ABCDE".index(answer)], ""])


@dataclass
class FakeServer:
    """A fake OpenAI-compatible server in its own process (for speed measurement only)."""

    process: subprocess.Popen[bytes]
    port: int

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as resp:
            data: dict[str, Any] = json.load(resp)
            return data

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def start_server(work: Path, delay: float, name: str) -> FakeServer:
    """Start tests/support/fake_openai.py with a fixed latency."""
    port_file = work / f"port-{name}"
    port_file.unlink(missing_ok=True)
    proc = subprocess.Popen([sys.executable, str(REPO / "tests/support/fake_openai.py"), "--port-file",
                             str(port_file), "--delay", str(delay)])
    while not port_file.exists():
        time.sleep(0.01)
    return FakeServer(proc, int(port_file.read_text()))


def write_config(work: Path, name: str, deployments: dict[str, tuple[int, int]], judges: Sequence[str] = (),
                 top: Sequence[str] = ()) -> Path:
    """A config file and policy folder for deployments {name: (port, max_concurrency)} on 127.0.0.1; `judges`
    are listed with purpose judge (and named as their server's model); `top` adds top-level settings lines."""
    policies = work / f"policies-{name}"
    policies.mkdir(exist_ok=True)
    for file in ("export.yaml", "retention.yaml", "roles.yaml"):
        shutil.copy(REPO / "policies" / file, policies / file)
    allow = "".join(f"  - host: 127.0.0.1\n    port: {port}\n    purpose: {'judge' if dep in judges else 'inference'}\n"
                    "    why: a bench fake server\n" for dep, (port, _) in deployments.items())
    (policies / "egress.yaml").write_text(f"default: deny\nallow:\n{allow}")
    config = work / f"config-{name}.toml"
    lines = [f'data_root = "{work / "data"}"', f'output_dir = "{work / "results"}"', f'policy_dir = "{policies}"',
             *top]
    for dep, (port, limit) in deployments.items():
        lines += [f"[deployments.{dep}]", f'base_url = "http://127.0.0.1:{port}/v1"', f"max_concurrency = {limit}"]
        lines += [f'model = "{dep}"'] if dep in judges else []
    config.write_text("\n".join(lines) + "\n")
    return config


def prepare(work: Path) -> None:
    """The package compiled, as an install leaves it, and a key for the stores.

    Where PYTHONDONTWRITEBYTECODE is set, a module changed since its .pyc was written is compiled again at
    every start: the bench would time the compiler, which no installed program runs (`make bytecode`)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "medhelm_local")], check=True,
                   capture_output=True)
    subprocess.run([str(CLI), "keys", "init", "--out", str(work / "kek")], check=True, capture_output=True)


def import_folder(work: Path, folder: Path) -> None:
    """`data import` a synthetic dataset folder into the bench's data root."""
    subprocess.run([str(CLI), "data", "import", str(folder), "--data-root", str(work / "data"), "--replace"],
                   check=True, capture_output=True)


@dataclass(frozen=True)
class Measured:
    """One `medhelm-local` process: wall seconds, CPU seconds and peak RSS in MB; against fake servers, also
    when (after the process started, in seconds) the first request reached one and the last reply left one."""

    wall: float
    cpu: float
    rss_mb: float
    started_at: float = 0.0  # time.time() at launch
    first_request_s: float | None = None
    last_reply_s: float | None = None

    @property
    def phases(self) -> tuple[float, float, float]:
        """Seconds before the first request reached a server, of requests, and after the last reply
        (`run_against` measures them)."""
        if self.first_request_s is None or self.last_reply_s is None:
            raise ValueError("phases are measured by run_against, against fake servers")
        return self.first_request_s, self.last_reply_s - self.first_request_s, self.wall - self.last_reply_s


def run_cli(work: Path, args: Sequence[str], quiet_output: bool = True) -> Measured:
    """Run the installed command as a separate process and measure it alone (os.wait4)."""
    # XDG_DATA_HOME: a development set-up keeps its audit log in the user's data folder; the bench keeps its own.
    env = {**os.environ, "MEDHELM_KEK_FILE": str(work / "kek"), "XDG_DATA_HOME": str(work)}
    started_at, started = time.time(), time.perf_counter()
    out = subprocess.DEVNULL if quiet_output else None
    proc = subprocess.Popen([str(CLI), *args], env=env, stdout=out, stderr=subprocess.PIPE if quiet_output else None)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"medhelm-local {' '.join(args)} failed ({proc.returncode}): {err[-2000:]}")
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, started_at)


def run_against(work: Path, servers: dict[str, FakeServer], args: Callable[[], Sequence[str]],
                expected: int, quiet_output: bool = True) -> Measured:
    """Run the command (its arguments made once the servers are up) against fake servers, stop them, and stop
    the bench unless each saw `expected` requests."""
    try:
        measured = run_cli(work, args(), quiet_output)
        stats = {name: server.stats() for name, server in servers.items()}
    finally:
        for server in servers.values():
            server.stop()
    counts = {name: seen["requests"] for name, seen in stats.items()}
    if set(counts.values()) != {expected}:
        raise SystemExit(f"expected {expected} requests per server, saw {counts}")
    first, last = requests_span(stats.values())
    return replace(measured, first_request_s=first - measured.started_at, last_reply_s=last - measured.started_at)


def requests_span(stats: Iterable[dict[str, Any]]) -> tuple[float, float]:
    """When the first request reached any of the servers and the last reply left one (time.time())."""
    seen = list(stats)
    return min(s["first_request_at"] for s in seen), max(s["last_reply_at"] for s in seen)


def bare_client(ports: Sequence[int], per_server: int, in_flight: int, prompt_words: int = 120) -> None:
    """The least a client can do on the fake servers: `in_flight` kept connections per server, each sending
    a fixed chat request and reading the reply, no data read, nothing scored or stored. What it takes from
    the first request to the last reply is the floor this machine and these servers allow any client."""
    question = "A patient presents. " * (prompt_words // 3) + "\nA. x\nB. y\nC. z\nD. w"
    body = json.dumps({"model": "bare", "max_tokens": 1, "temperature": 0,
                       "messages": [{"role": "user", "content": question}]}).encode()

    async def connection(port: int, requests: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json"
                   f"\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        for _ in range(requests):
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            json.loads(await reader.readexactly(length))
        writer.close()

    async def everything() -> None:
        rounds = -(-per_server // in_flight)
        await asyncio.gather(*(connection(port, rounds) for port in ports for _ in range(in_flight)))

    asyncio.run(everything())


def children_cpu() -> float:
    """CPU seconds of every waited child so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
