"""A whole evaluation inside a network namespace whose firewall allows only the model endpoint.

Two namespaces joined by a veth pair: "server" runs the fake OpenAI server on the endpoint
address, plus decoys on another port and another address; "client" has nftables dropping every
packet except to the endpoint. `medhelm-local run` inside the client must complete, and every
other connection from there must fail. This is what the NetworkPolicy (layer c) does in a cluster,
and the part that native code cannot bypass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI, DEMO_DATASETS, FAKE_SERVER, write_config, write_policy_dir

from medhelm_local.scenarios.datafiles import import_dataset

pytestmark = pytest.mark.netns

TAG = f"{os.getpid() % 100000}"
NET = f"10.231.{os.getpid() % 200 + 20}"
ENDPOINT, DECOY_ADDRESS, CLIENT = f"{NET}.1", f"{NET}.5", f"{NET}.2"
PORT, DECOY_PORT = 8000, 8001

# The fake server binds 127.0.0.1; this shim makes it bind the address given instead.
_BOUND_FAKE = """
import asyncio, runpy, sys
address, port, port_file, script = sys.argv[1:5]
real = asyncio.start_server
async def bound(cb, host=None, port=None, **kw):
    return await real(cb, address, port, **kw)
asyncio.start_server = bound
sys.argv = [script, "--port", port, "--port-file", port_file]
runpy.run_path(script, run_name="__main__")
"""
_PROBE = """
import json, sys, urllib.request
out = {}
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "probe"}], "max_tokens": 1}).encode()
for name, url in json.loads(sys.argv[1]).items():
    try:
        request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=3).read()
        out[name] = "ok"
    except OSError as exc:
        out[name] = f"failed: {exc}"
print(json.dumps(out))
"""
_STATS = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create network namespaces (CI runs as root)"
    missing = [tool for tool in ("ip", "nft") if shutil.which(tool) is None]
    if missing:
        return f"needs {' and '.join(missing)}: apt-get install -y iproute2 nftables"
    return None


def _sh(*args: str) -> str:
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def _ruleset() -> str:
    return f"""
table inet medhelm_test {{
  chain output {{
    type filter hook output priority 0; policy drop;
    ct state established,related accept
    ip daddr {ENDPOINT} tcp dport {PORT} accept
  }}
  chain input {{
    type filter hook input priority 0; policy drop;
    ct state established,related accept
  }}
}}
"""


@pytest.fixture
def namespaces(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """(client, server) namespaces on one veth link; the client's firewall allows only ENDPOINT:PORT."""
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    client, server = f"mhl-c{TAG}", f"mhl-s{TAG}"
    try:
        _sh("ip", "netns", "add", client)
        _sh("ip", "netns", "add", server)
        _sh("ip", "link", "add", f"mhlc{TAG}", "netns", client, "type", "veth", "peer", "name", f"mhls{TAG}",
            "netns", server)
        _sh("ip", "-n", client, "addr", "add", f"{CLIENT}/24", "dev", f"mhlc{TAG}")
        _sh("ip", "-n", server, "addr", "add", f"{ENDPOINT}/24", "dev", f"mhls{TAG}")
        _sh("ip", "-n", server, "addr", "add", f"{DECOY_ADDRESS}/24", "dev", f"mhls{TAG}")
        for ns, dev in ((client, f"mhlc{TAG}"), (server, f"mhls{TAG}")):
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
            _sh("ip", "-n", ns, "link", "set", dev, "up")
        rules = tmp_path / "client.nft"
        rules.write_text(_ruleset())
        _sh("ip", "netns", "exec", client, "nft", "-f", str(rules))
        yield client, server
    finally:
        for ns in (client, server):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=60)


def _start_fake(server_ns: str, address: str, port: int, tmp_path: Path) -> subprocess.Popen[bytes]:
    port_file = tmp_path / f"port-{address}-{port}"
    proc = subprocess.Popen(["ip", "netns", "exec", server_ns, sys.executable, "-c", _BOUND_FAKE, address, str(port),
                             str(port_file), str(FAKE_SERVER)])
    deadline = time.monotonic() + 15
    while not port_file.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError(f"fake server on {address}:{port} did not start")
        time.sleep(0.05)
    return proc


def _requests(server_ns: str, address: str, port: int) -> int:
    stats = _sh("ip", "netns", "exec", server_ns, sys.executable, "-c", _STATS, f"http://{address}:{port}/stats")
    count: int = json.loads(stats)["requests"]
    return count


def test_a_run_completes_inside_the_namespace_and_nothing_else_gets_out(
        namespaces: tuple[str, str], tmp_path: Path, kek_file: Path) -> None:
    client, server = namespaces
    servers = [_start_fake(server, address, port, tmp_path)
               for address, port in ((ENDPOINT, PORT), (ENDPOINT, DECOY_PORT), (DECOY_ADDRESS, PORT))]
    try:
        data = tmp_path / "data"
        import_dataset(DEMO_DATASETS / "pubmedqa", data)
        config = write_config(tmp_path / "config.toml", data, tmp_path / "results",
                              {"fake": {"base_url": f"http://{ENDPOINT}:{PORT}/v1", "timeout_s": 10.0}})
        env = {**os.environ, "MEDHELM_KEK_FILE": str(kek_file), "COLUMNS": "200",
               "MEDHELM_POLICY_DIR": str(write_policy_dir(tmp_path / "policies", [(ENDPOINT, PORT)]))}
        ran = subprocess.run(["ip", "netns", "exec", client, str(CLI), "-c", str(config), "run",
                              "pubmed_qa:model=local/fake,model_deployment=fake", "-m", "5", "--suite", "netns",
                              "--json"], capture_output=True, text=True, timeout=300, env=env)
        assert ran.returncode == 0, ran.stderr
        summary = json.loads(ran.stdout)["runs"][0]["run"]
        assert (summary["n_instances"], summary["n_failed"]) == (5, 0)

        # A completion request to each: the fake servers count every one they receive.
        urls = {"endpoint": f"http://{ENDPOINT}:{PORT}/v1/chat/completions",
                "other_port": f"http://{ENDPOINT}:{DECOY_PORT}/v1/chat/completions",
                "other_address": f"http://{DECOY_ADDRESS}:{PORT}/v1/chat/completions",
                "outside": "http://192.0.2.1:80/v1/chat/completions"}
        probed = json.loads(_sh("ip", "netns", "exec", client, sys.executable, "-c", _PROBE, json.dumps(urls)))
        assert probed["endpoint"] == "ok"  # the probe itself works
        for name in ("other_port", "other_address", "outside"):
            assert probed[name].startswith("failed"), f"{name}: {probed[name]}"
        assert _requests(server, ENDPOINT, PORT) == 5 + 1  # the run's five, and the probe's one
        assert _requests(server, ENDPOINT, DECOY_PORT) == 0
        assert _requests(server, DECOY_ADDRESS, PORT) == 0
    finally:
        for proc in servers:
            proc.terminate()
            proc.wait(timeout=10)
