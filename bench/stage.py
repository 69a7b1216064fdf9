"""Time and size of staging every public dataset from a local mirror, and of importing the bundle.

The mirror is tests/support/mirror_server.py serving ../shared/datasets (the published files) on
127.0.0.1 in its own process, so what is timed is `medhelm-local data stage` itself: planning,
HTTP, sha256 of every file, the bundle manifest. A real staging host adds the time the public
internet takes for the same 30 MB. Prints, per run and then as the median of RUNS runs:
    stage_s X import_s Y bundle_bytes Z files N
Run: .venv/bin/python bench/stage.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).parent / "medhelm-local"
MIRROR = REPO.parent / "shared" / "datasets"
RUNS = 5


def staging_policy(dest: Path, port: int) -> None:
    """The shipped policies, with an egress.yaml that lists the local mirror for staging."""
    dest.mkdir()
    for name in ("export.yaml", "retention.yaml", "roles.yaml"):
        shutil.copy(REPO / "policies" / name, dest / name)
    (dest / "egress.yaml").write_text(f"default: deny\nallow:\n  - host: 127.0.0.1\n    port: {port}\n"
                                      "    purpose: staging\n    why: the local mirror this bench starts\n")


def timed(args: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    done = subprocess.run([str(CLI), *args], env=env, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[:2])} failed:\n{done.stderr}")
    return elapsed


def main() -> None:
    if not MIRROR.is_dir():
        sys.exit(f"the published datasets are not on this machine ({MIRROR})")
    work = Path(tempfile.mkdtemp(prefix="medhelm-stage-bench-"))
    port_file = work / "port"
    server = subprocess.Popen([sys.executable, str(REPO / "tests/support/mirror_server.py"),
                               "--root", str(MIRROR), "--port-file", str(port_file)])
    try:
        while not port_file.exists():
            time.sleep(0.01)
        port = int(port_file.read_text())
        staging_policy(work / "policies", port)
        (work / "kek").write_text(os.urandom(32).hex() + "\n")
        (work / "kek").chmod(0o600)  # a key file others may read is refused
        env = {**os.environ, "MEDHELM_POLICY_DIR": str(work / "policies"), "MEDHELM_KEK_FILE": str(work / "kek"),
               "XDG_DATA_HOME": str(work)}  # a development set-up's audit log is the user's own: here, the bench's
        rows = []
        for i in range(RUNS):
            bundle, root = work / f"bundle-{i}", work / f"data-{i}"
            stage_s = timed(["data", "stage", "--to", str(bundle), "--yes", "--source-url",
                             f"http://127.0.0.1:{port}"], env)
            import_s = timed(["data", "import", str(bundle), "--allow-unsigned", "--data-root", str(root)], env)
            files = [p for p in bundle.rglob("*") if p.is_file()]
            size = sum(p.stat().st_size for p in files)
            rows.append((stage_s, import_s, size, len(files)))
            print(f"run {i + 1}: stage_s {stage_s:.2f} import_s {import_s:.2f} bundle_bytes {size} files {len(files)}")
            shutil.rmtree(bundle)
            shutil.rmtree(root)
        print(f"median of {RUNS}: stage_s {statistics.median(r[0] for r in rows):.2f} "
              f"import_s {statistics.median(r[1] for r in rows):.2f} bundle_bytes {rows[0][2]} files {rows[0][3]}")
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
