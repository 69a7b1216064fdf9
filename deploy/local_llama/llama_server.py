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
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "local_vllm"))
from vllm_server import free_port, stop_process_group, tail  # the shared process helpers

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE = REPO_ROOT / ".cache"
DEFAULT_VENV = CACHE / "llama-venv"
WHEEL_DIR = CACHE / "llama-wheels"
DEFAULT_MODEL_DIR = CACHE / "tiny-model"
DEFAULT_GGUF = CACHE / "tiny-gguf" / "tiny-llama.gguf"
DEFAULT_LOG_DIR = CACHE / "logs"
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
class LlamaServer:
    """A llama.cpp OpenAI-compatible server process on 127.0.0.1; a context manager or start()/stop()."""

    gguf: Path = DEFAULT_GGUF
    port: int | None = None
    served_model_name: str = "tiny-llama"
    venv: Path = DEFAULT_VENV
    log_path: Path | None = None
    n_ctx: int = 8192
    threads: int = 1
    stop_at_exit: bool = True
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _log_start: int = field(default=0, init=False, repr=False)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, e.g. http://127.0.0.1:8000/v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        """The server's pid (its process group id too), or None when not started."""
        return self.process.pid if self.process else None

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

    def start(self, timeout: float = 120) -> None:
        """Start the server and wait until GET /v1/models answers; RuntimeError with the log tail on failure."""
        if self.process and self.process.poll() is None:
            return
        if not (self.venv / "bin" / "python").exists():
            raise RuntimeError(f"no llama.cpp environment at {self.venv}: run `python3 {__file__} ensure` first")
        pick_port = self.port is None
        for attempt in range(3 if pick_port else 1):
            if pick_port:
                self.port = free_port()
            try:
                self._launch_and_wait(timeout)
                return
            except RuntimeError as exc:
                if attempt == 2 or not pick_port or "address already in use" not in str(exc).lower():
                    raise

    def _launch_and_wait(self, timeout: float) -> None:
        if self.log_path is None:
            DEFAULT_LOG_DIR.mkdir(parents=True, exist_ok=True)
            self.log_path = DEFAULT_LOG_DIR / f"llama-server-{self.port}.log"
        log_path = Path(self.log_path)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            self._log_start = log.tell()
            log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(self.command())}\n".encode())
            log.flush()
            # Its own session: stop() kills the whole group, and Ctrl-C in the terminal does not reach it.
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=subprocess.STDOUT, env={**os.environ, **SERVER_ENV},
                                            cwd=REPO_ROOT, start_new_session=True)
        if self.stop_at_exit:
            import atexit

            atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code, self.process = self.process.returncode, None
                raise RuntimeError(f"llama.cpp server exited with code {code} before it was ready; log {log_path}:"
                                   f"\n{tail(log_path)}")
            if self._ready():
                return
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama.cpp server not ready after {timeout:.0f} s; log {log_path}:\n{tail(log_path)}")

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

    def _ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                return bool(resp.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self, grace: float = 10) -> None:
        """Stop the whole process group: SIGTERM, then SIGKILL after `grace` seconds."""
        if self.process is None:
            return
        stop_process_group(self.process.pid, grace, self.process)
        self.process = None

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """The CLI: ensure, start or stop."""
    parser = argparse.ArgumentParser(description="Local llama.cpp server for medhelm-local tests and benches.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_ensure = sub.add_parser("ensure", help="build the wheel once, create the venv, write the tiny GGUF")
    p_ensure.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    p_ensure.add_argument("--model-dir", type=Path, default=DEFAULT_MODEL_DIR)
    p_ensure.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    p_start = sub.add_parser("start", help="start a server in the background and wait until it is ready")
    p_start.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    p_start.add_argument("--port-file", type=Path, required=True)
    p_start.add_argument("--pid-file", type=Path, required=True)
    p_start.add_argument("--log", type=Path)
    p_start.add_argument("--port", type=int)
    p_start.add_argument("--served-model-name", default="tiny-llama")
    p_start.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    p_stop = sub.add_parser("stop", help="stop the server whose pid is in --pid-file")
    p_stop.add_argument("--pid-file", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.cmd == "ensure":
        ensure_venv(args.venv)
        ensure_gguf(args.model_dir, args.gguf, args.venv)
        return 0
    if args.cmd == "start":
        server = LlamaServer(args.gguf, port=args.port, served_model_name=args.served_model_name, venv=args.venv,
                             log_path=args.log, stop_at_exit=False)
        try:
            server.start()
        except RuntimeError as exc:
            print(exc, file=sys.stderr)
            return 1
        args.port_file.write_text(f"{server.port}\n")
        args.pid_file.write_text(f"{server.pid}\n")
        print(f"llama.cpp server ready at {server.base_url} (pid {server.pid}, log {server.log_path})")
        return 0
    if not args.pid_file.is_file():
        print(f"no pid file {args.pid_file}; nothing to stop")
        return 0
    pid = int(args.pid_file.read_text().strip())
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists() and b"llama_cpp.server" not in cmdline.read_bytes():
        print(f"pid {pid} is not a llama.cpp server; removing stale pid file")
        args.pid_file.unlink(missing_ok=True)
        return 0
    stop_process_group(pid)
    args.pid_file.unlink(missing_ok=True)
    print(f"llama.cpp server {pid} stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
