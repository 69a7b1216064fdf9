"""Start and stop a real llama.cpp OpenAI-compatible server (llama-cpp-python) on the tiny model; set up its venv.

llama.cpp is the engine Ollama wraps; its Python server is the second real engine of the tests (vLLM's CPU
build is the first). Importable (tests: ``sys.path.insert(0, "deploy/local_llama"); import llama_server``)
and a CLI:

    python3 deploy/local_llama/llama_server.py ensure [--model-dir .cache/tiny-model]
    python3 deploy/local_llama/llama_server.py start --port-file F --pid-file P [--log L]
    python3 deploy/local_llama/llama_server.py stop --pid-file P

`ensure` builds the llama-cpp-python wheel once (an sdist compiled with the machine's cmake and g++,
minutes) into .cache/llama-wheels, installs it with its `server` extra and the `gguf` writer into
.cache/llama-venv, and writes the tiny model as GGUF (.cache/tiny-gguf). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "local_vllm"))
from server_process import ServerProcess, add_start_stop, start_in_background, stop_by_pid_file  # shared

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache"
DEFAULT_VENV = CACHE / "llama-venv"
WHEEL_DIR = CACHE / "llama-wheels"
DEFAULT_MODEL_DIR = CACHE / "tiny-model"
DEFAULT_GGUF = CACHE / "tiny-gguf" / "tiny-llama.gguf"
GGUF_SCRIPT = Path(__file__).resolve().parent / "build_gguf.py"
VLLM_SCRIPT = Path(__file__).resolve().parents[1] / "local_vllm" / "vllm_server.py"

LLAMA_VERSION = "0.3.36"
# The server extra's dependencies and the GGUF writer, pinned: the same bytes every time.
PINNED = (
    "gguf==0.19.0", "numpy==2.4.6", "fastapi==0.165.0", "uvicorn==0.54.0", "starlette==1.10.0",
    "sse-starlette==3.7.0", "starlette-context==0.3.6", "pydantic==2.14.4", "pydantic-settings==2.16.3",
    "PyYAML==6.0.4", "Jinja2==3.1.6", "diskcache==5.6.3", "typing_extensions==4.16.0",
)
SETUP_STAMP = ".medhelm-llama-setup.json"
INFERENCE_PATHS = ("/v1/chat/completions", "/v1/completions")
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
              "DO_NOT_TRACK": "1"}


def cached_wheel() -> Path | None:
    """The llama-cpp-python wheel built before, if any."""
    found = sorted(WHEEL_DIR.glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    return found[-1] if found else None


def build_wheel(python: str = sys.executable) -> Path:
    """Compile llama-cpp-python's sdist into a wheel in .cache/llama-wheels (once; minutes on two cores)."""
    wheel = cached_wheel()
    if wheel is not None:
        return wheel
    WHEEL_DIR.mkdir(parents=True, exist_ok=True)
    print(f"building llama-cpp-python {LLAMA_VERSION} (compiles llama.cpp: several minutes) ...", flush=True)
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
    subprocess.run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-binary", "llama-cpp-python",
                    "-w", str(WHEEL_DIR), f"llama-cpp-python=={LLAMA_VERSION}"], check=True, env=env)
    wheel = cached_wheel()
    if wheel is None:
        raise RuntimeError(f"pip wheel left no llama-cpp-python wheel in {WHEEL_DIR}")
    return wheel


def ensure_venv(venv: Path = DEFAULT_VENV, python: str = sys.executable) -> None:
    """Create the llama.cpp venv from the cached wheel (built first if absent) unless its stamp says it is done."""
    vpy = str(venv / "bin" / "python")
    stamp = venv / SETUP_STAMP
    wheel = cached_wheel()
    wanted = json.dumps({"wheel": wheel.name if wheel else None, "pinned": list(PINNED)}, sort_keys=True)
    if wheel is not None and stamp.is_file() and stamp.read_text() == wanted and Path(vpy).exists():
        print(f"llama.cpp environment ready: {venv}")
        return
    if not Path(vpy).exists():
        print(f"+ {python} -m venv {venv}", flush=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    wheel = build_wheel(vpy)  # the venv's own pip: no pip needed in the interpreter that runs make
    step = [vpy, "-m", "pip", "install", "--quiet", f"{wheel}[server]", *PINNED]
    print("+ " + " ".join(step), flush=True)
    subprocess.run(step, check=True)
    stamp.write_text(json.dumps({"wheel": wheel.name, "pinned": list(PINNED)}, sort_keys=True))
    print(f"llama.cpp environment ready: {venv}")


def ensure_gguf(model_dir: Path = DEFAULT_MODEL_DIR, out: Path = DEFAULT_GGUF, venv: Path = DEFAULT_VENV) -> None:
    """Build the tiny model if missing (through the vLLM environment's builder), then write it as GGUF."""
    if not (model_dir / "model.safetensors").is_file():
        subprocess.run([sys.executable, str(VLLM_SCRIPT), "ensure", "--model-dir", str(model_dir)], check=True)
    subprocess.run([str(venv / "bin" / "python"), str(GGUF_SCRIPT), "--model-dir", str(model_dir),
                    "--out", str(out)], check=True)


@dataclass
class LlamaServer(ServerProcess):
    """A llama.cpp OpenAI-compatible server process on 127.0.0.1; a context manager or start()/stop()."""

    ENGINE = "llama.cpp"
    LOG_PREFIX = "llama-server"
    CMDLINE_MARK = b"llama_cpp.server"
    POLL_S = 0.3
    START_TIMEOUT_S = 120.0
    STOP_GRACE_S = 10.0

    gguf: Path = DEFAULT_GGUF
    port: int | None = None
    served_model_name: str = "tiny-llama"
    venv: Path = DEFAULT_VENV
    log_path: Path | None = None
    n_ctx: int = 8192
    threads: int = 1
    stop_at_exit: bool = True
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    def command(self) -> list[str]:
        """The server command line."""
        return [
            str(self.venv / "bin" / "python"), "-m", "llama_cpp.server",
            "--model", str(Path(self.gguf).resolve()),
            "--model_alias", self.served_model_name,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
            "--verbose", "False",
        ]

    def environment(self) -> dict[str, str]:
        """The server's environment additions: offline, no telemetry."""
        return SERVER_ENV

    def request_count(self, paths: tuple[str, ...] = INFERENCE_PATHS) -> int:
        """Requests to the inference endpoints since this start, any status, read from the server's access log
        (the server has no metrics endpoint)."""
        text = self.log_text()
        return sum(text.count(f'"POST {path} HTTP/') for path in paths)

    def log_text(self) -> str:
        """What the server logged since this start."""
        if self.log_path is None or not Path(self.log_path).is_file():
            return ""
        with open(self.log_path, "rb") as log:
            log.seek(self._log_start)
            return log.read().decode("utf-8", "replace")


def main(argv: list[str] | None = None) -> int:
    """The CLI: ensure, start or stop."""
    parser = argparse.ArgumentParser(description="Local llama.cpp server for medhelm-local tests and benches.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_ensure = sub.add_parser("ensure", help="build the wheel once, create the venv, write the tiny GGUF")
    p_ensure.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    p_ensure.add_argument("--model-dir", type=Path, default=DEFAULT_MODEL_DIR)
    p_ensure.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    p_start = add_start_stop(sub, DEFAULT_VENV)
    p_start.add_argument("--gguf", type=Path, default=DEFAULT_GGUF, help="the GGUF model file to serve")
    args = parser.parse_args(argv)
    if args.cmd == "ensure":
        ensure_venv(args.venv)
        ensure_gguf(args.model_dir, args.gguf, args.venv)
        return 0
    if args.cmd == "start":
        return start_in_background(LlamaServer(args.gguf, port=args.port, venv=args.venv, log_path=args.log,
                                               served_model_name=args.served_model_name, stop_at_exit=False), args)
    return stop_by_pid_file(args.pid_file, LlamaServer.ENGINE, LlamaServer.CMDLINE_MARK)


if __name__ == "__main__":
    sys.exit(main())
