"""Shared fixtures: an isolated environment, keys, data roots, and real servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from medhelm_local.scenarios import registry
from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.database import StoreHandle, open_store
from medhelm_local.store.keys import Kek, write_new_kek

REPO = Path(__file__).resolve().parents[1]
DEMO_DATASETS = REPO / "deploy" / "demo" / "datasets"
SHARED_DATASETS = REPO.parent / "shared" / "datasets"
FAKE_SERVER = REPO / "tests" / "support" / "fake_openai.py"
CLI = Path(sys.executable).parent / "medhelm-local"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No MEDHELM_* settings, proxies or user config from the machine leak into a test."""
    isolate(tmp_path_factory, monkeypatch)


def isolate(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `isolated_env` does, for a module-scoped fixture too (it runs before the autouse fixture does)."""
    for name in list(os.environ):
        if name.startswith("MEDHELM_") or name.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("MEDHELM_SECRETS_DIR", str(home / "no-secrets"))
    # Benchmark cards a library call registered (the settings' benchmark_cards) stay in the process, as they
    # would in a notebook; a test starts with none, whichever tests ran before it.
    monkeypatch.setattr(registry, "_USER", {})


@pytest.fixture
def kek_file(tmp_path: Path) -> Path:
    """A fresh key-encryption key file."""
    path = tmp_path / "kek"
    write_new_kek(path)
    return path


@pytest.fixture
def kek(kek_file: Path) -> Kek:
    """The key in `kek_file`."""
    return Kek(bytes.fromhex(kek_file.read_text().strip()), str(kek_file))


@pytest.fixture
def run_store(tmp_path: Path, kek: Kek) -> Iterator[Callable[..., StoreHandle]]:
    """Opens a new encrypted store as a run does (for streaming writes; a `memory_limit` may be given); every
    store it opened is closed after the test."""
    opened: list[StoreHandle] = []

    def open_one(memory_limit: str | None = None) -> StoreHandle:
        opened.append(open_store(tmp_path / "s.duckdb", kek, create=True, streaming=True, memory_limit=memory_limit))
        return opened[-1]

    yield open_one
    for handle in opened:
        handle.close()


@pytest.fixture
def data_root(tmp_path: Path) -> Path:
    """A data root holding the committed 50-item subsets, imported as a user would."""
    root = tmp_path / "data"
    for folder in sorted(p for p in DEMO_DATASETS.iterdir() if p.is_dir()):
        import_dataset(folder, root)
    return root


GATED_FIXTURES = REPO / "tests" / "data" / "gated"
UNPINNED_FIXTURES = ("med_dialog", "medmcqa")


@pytest.fixture
def gated_root(tmp_path: Path) -> Path:
    """A data root holding the synthetic gated datasets and the public sets without shipped checksums, imported
    as a site would (`data import FOLDER` records their checksums)."""
    root = tmp_path / "gated-data"
    for folder in sorted(p for p in GATED_FIXTURES.iterdir() if p.is_dir()):
        import_dataset(folder, root)
    for name in UNPINNED_FIXTURES:
        import_dataset(REPO / "tests" / "data" / "datasets" / name, root)
    return root


@dataclass
class FakeServer:
    """A running fault-injecting fake OpenAI server."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=5) as resp:
            data: dict[str, Any] = json.load(resp)
            return data


def start_fake_server(port_file: Path, delay: float = 0.0, fault_rate: float = 0.0, faults: str | None = None,
                      hang: float = 30.0, seed: int = 1, context: int | None = None, judge: str = "good",
                      unsure: bool = False, answer: str | None = None, reasoning: str = "none",
                      build: str | None = None) -> FakeServer:
    """Start tests/support/fake_openai.py with these delay/fault options; its port is written to `port_file`."""
    args = [sys.executable, str(FAKE_SERVER), "--port-file", str(port_file), "--delay", str(delay),
            "--fault-rate", str(fault_rate), "--hang", str(hang), "--seed", str(seed), "--judge", judge]
    if faults:
        args += ["--faults", faults]
    if context is not None:
        args += ["--context", str(context)]
    if unsure:
        args.append("--unsure")
    if answer is not None:
        args += ["--answer", answer]
    if reasoning != "none":
        args += ["--reasoning", reasoning]
    if build is not None:
        args += ["--build", build]
    proc = subprocess.Popen(args)
    deadline = time.monotonic() + 10
    while not port_file.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("fake server did not start")
        time.sleep(0.02)
    return FakeServer(int(port_file.read_text()), proc)


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[Callable[..., FakeServer]]:
    """Factory: start a fake server with the given delay/fault options; all are stopped afterwards."""
    started: list[FakeServer] = []

    def start(*args: Any, **options: Any) -> FakeServer:
        started.append(start_fake_server(tmp_path / f"fake-port-{len(started)}", *args, **options))
        return started[-1]

    yield start
    for server in started:
        server.process.terminate()
        server.process.wait(timeout=10)


SHIPPED_POLICIES = REPO / "policies"


def write_policy_dir(dest: Path, allow: list[tuple[str, int]], judges: set[tuple[str, int]] | None = None) -> Path:
    """A copy of the shipped policies whose egress.yaml allows exactly `allow` (those in `judges` with purpose
    judge), as a hospital would edit it."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("export.yaml", "retention.yaml", "roles.yaml"):
        shutil.copy(SHIPPED_POLICIES / name, dest / name)
    lines = ["default: deny", "allow:" if allow else "allow: []"]
    for host, port in allow:
        purpose = "judge" if (host, port) in (judges or set()) else "inference"
        lines += [f"  - host: {host}", f"    port: {port}", f"    purpose: {purpose}", "    why: test model server"]
    (dest / "egress.yaml").write_text("\n".join(lines) + "\n")
    return dest


def write_config(path: Path, data_root: Path, output_dir: Path, deployments: dict[str, dict[str, Any]],
                 allow_deployments: bool = True, judges: tuple[str, ...] = (), extra: str = "") -> Path:
    """A TOML config file as a user would write it.

    With `allow_deployments`, a policy folder beside it (`<name>.policies/`) lists every deployment's
    host:port in egress.yaml, as a hospital does for its model servers (the `judges` deployments' with
    purpose judge), and the config points to it. `extra` is more TOML (top-level keys first, e.g. jury).
    """
    lines = [f'data_root = "{data_root}"', f'output_dir = "{output_dir}"']
    if allow_deployments:
        pairs = sorted({_host_port(fields["base_url"]) for fields in deployments.values() if "base_url" in fields})
        judged = {_host_port(deployments[name]["base_url"]) for name in judges}
        policies = write_policy_dir(path.with_name(path.stem + ".policies"), pairs, judged)
        lines.append(f'policy_dir = "{policies}"')
    for name, fields in deployments.items():
        lines.append(f"\n[deployments.{name}]")
        for key, value in fields.items():
            lines.append(f"{key} = {json.dumps(value)}")
    top, _, tables = extra.strip().partition("\n[")
    if top.startswith("["):
        top, tables = "", extra.strip()[1:]
    lines[2:2] = [line for line in top.splitlines() if line.strip()]
    if tables:
        lines.append("\n[" + tables)
    path.write_text("\n".join(lines) + "\n")
    return path


def _host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def dev_audit_log() -> Path:
    """Where a development set-up (no installation file, as in these tests) keeps its audit log: the user's data
    folder, which `isolated_env` makes one per test."""
    return Path(os.environ["XDG_DATA_HOME"]) / "medhelm-local" / "audit.duckdb"


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the installed `medhelm-local` command as a user would, capturing its output."""
    full_env = {**os.environ, **(env or {}), "COLUMNS": "200"}
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, env=full_env, timeout=timeout)


sys.path.insert(0, str(REPO / "deploy" / "local_vllm"))
import vllm_server  # noqa: E402  (the project's vLLM launcher: standard library only)

TINY_MODEL = REPO / ".cache" / "tiny-model"


@pytest.fixture(scope="session")
def vllm() -> Iterator[vllm_server.VllmServer]:
    """One real vLLM server (CPU build) serving the project's tiny model on 127.0.0.1, for the session."""
    if not (REPO / ".cache" / "vllm-venv" / "bin" / "python").exists() or not TINY_MODEL.exists():
        pytest.fail("the vLLM test server is not built: run `make test` "
                    "(it runs deploy/local_vllm/vllm_server.py ensure)")
    server = vllm_server.VllmServer(model_dir=TINY_MODEL)
    server.start()
    yield server
    server.stop()


sys.path.insert(0, str(REPO / "deploy" / "local_llama"))
import llama_server  # noqa: E402  (the project's llama.cpp launcher: standard library only)


@pytest.fixture(scope="session")
def llamacpp() -> Iterator[llama_server.LlamaServer]:
    """One real llama.cpp server (llama-cpp-python, the engine Ollama wraps) serving the tiny model as GGUF."""
    if not (llama_server.DEFAULT_VENV / "bin" / "python").exists() or not llama_server.DEFAULT_GGUF.exists():
        pytest.fail("the llama.cpp test server is not built: run `make test` "
                    "(it runs deploy/local_llama/llama_server.py ensure)")
    server = llama_server.LlamaServer()
    server.start()
    yield server
    server.stop()


from support.appliance import appliance, bundle_files  # noqa: E402, F401  (fixtures for export and audit tests)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    """A headless Chromium (Selenium) with its own profile, quit after the test; skips where none is installed."""
    from support.report_viewer import chromium

    driver = chromium(tmp_path / "profile")
    try:
        yield driver
    finally:
        driver.quit()
