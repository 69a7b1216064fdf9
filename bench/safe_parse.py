"""What reading files within limits costs (medhelm_local/safe_parse.py, yaml_lines.py), against bare parsing.

YAML: every built-in card, the shipped policies and rules.yaml, loaded as the program loads them (size cap,
event scan for nesting and aliases, composed once, every key's line) against libyaml's bare safe load of the
same text. JSON: a HELM-format stats.json of 5,000 statistics (~2 MB), read as `report --helm-runs` reads it
(nesting scan, finite numbers) against json.loads. Prints the best of TRIALS for each, then the ratios:
    yaml_ms X bare_ms Y ratio Z
    json_ms X bare_ms Y ratio Z
Run: .venv/bin/python bench/safe_parse.py
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from medhelm_local.safe_parse import YAML_LOADER, load_json
from medhelm_local.yaml_lines import load_located

REPO = Path(__file__).resolve().parents[1]
TRIALS = 15


def best_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(TRIALS):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return 1000 * min(times)


def main() -> None:
    files = sorted((REPO / "medhelm_local" / "scenarios" / "benchmarks").glob("*/card.yaml"))
    files += [*sorted((REPO / "policies").glob("*.yaml")), REPO / "redaction" / "rules.yaml"]
    checked = best_ms(lambda: [load_located(f, "file") for f in files])
    bare = best_ms(lambda: [yaml.load(f.read_text("utf-8"), Loader=YAML_LOADER) for f in files])
    print(f"yaml_ms {checked:.1f} bare_ms {bare:.1f} ratio {checked / bare:.2f} ({len(files)} files)")
    stats = [{"name": {"name": f"metric_{i}", "split": "test"}, "count": 1000, "sum": 512.5, "mean": 0.5125,
              "variance": 0.2498, "min": 0.0, "max": 1.0} for i in range(5000)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stats.json"
        path.write_text(json.dumps(stats, indent=2))
        checked = best_ms(lambda: load_json(path, "HELM stats.json"))
        bare = best_ms(lambda: json.loads(path.read_text("utf-8")))
        print(f"json_ms {checked:.1f} bare_ms {bare:.1f} ratio {checked / bare:.2f} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
