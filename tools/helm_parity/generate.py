# ruff: noqa: I001  (the stand-ins in local_sources must be installed before HELM is imported)
"""Write HELM's exact request for every instance of every public benchmark, and the golden digests.

Runs in the venv `install.sh` builds (crfm-helm 0.5.16 and the few modules its scenario and adapter
code imports); never part of the appliance, of `make test` or of CI:

    tools/helm_parity/install.sh
    .cache/helm-venv/bin/python tools/helm_parity/generate.py [--datasets ../shared/datasets] [NAME ...]

For each benchmark: HELM's run-spec function gives the scenario and the adapter spec; the scenario
reads the local copy of the published files (only its download steps are replaced, see
local_sources.py); HELM's runner steps (ids, then the adapter) turn the instances into requests.
Writes `.cache/helm-parity/<name>.jsonl` (every request in full, to read) and
`tests/data/helm_parity/<name>.json` (sha256 of each prompt by this project's instance id, the
request parameters, and the sha256 of the files they came from), which tests/scenarios/
test_helm_parity.py checks this project's prompts against.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import local_sources  # noqa: E402,F401  (installs the stand-ins before HELM is imported)
from benchmarks import FIXTURE, NOT_HERE, PARITY, Parity  # noqa: E402
from local_sources import LocalSources  # noqa: E402

import helm.benchmark.run_specs.medhelm_run_specs  # noqa: E402,F401  (registers MedHELM's run specs)
from helm.benchmark.adaptation.adapters import adapter as adapter_module  # noqa: E402
from helm.benchmark.adaptation.adapters.adapter_factory import AdapterFactory  # noqa: E402
from helm.benchmark.run_spec import get_run_spec_function  # noqa: E402
from helm.benchmark.scenarios.scenario import Instance, create_scenario, with_instance_ids  # noqa: E402

DIGESTS = REPO / "tests" / "data" / "helm_parity"
FIXTURES = REPO / "tests" / "data" / "datasets"  # synthetic files in a published layout, for benchmarks without a copy
REQUESTS = REPO / ".cache" / "helm-parity"
# The request fields that reach a model (HELM's Request, less the model's name and HELM's bookkeeping).
REQUEST_FIELDS = ("temperature", "num_completions", "top_k_per_token", "max_tokens", "stop_sequences",
                  "echo_prompt", "top_p", "presence_penalty", "frequency_penalty", "messages")


class UnboundedWindow:
    """A context window every prompt fits: MedHELM's models take far longer prompts than any here, and a
    model's own limit is that model's business (this project cuts a record only with `truncate`)."""

    def fits_within_context_window(self, text: str, expected_completion_token_length: int = 0) -> bool:
        return True

    def truncate_from_right(self, text: str, expected_completion_token_length: int = 0) -> str:
        return text


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _patch_scenario(module: Any, parity: Parity, sources: LocalSources) -> None:
    """Replace the scenario module's download steps (and only those) with local loaders."""
    if hasattr(module, "ensure_file_downloaded"):
        module.ensure_file_downloaded = sources.ensure_file_downloaded
    if parity.hugging_face is not None:
        module.load_dataset = parity.hugging_face(sources)
    if parity.listing is not None:
        subfolder, limit = parity.listing
        names = sorted(p.name for p in (sources.root / subfolder).iterdir() if p.is_file())
        module.requests = sources.requests_stub(lambda: names[:limit] if limit else names, subfolder)
        # Tag each instance with the file it came from (extra_data only: the prompt is untouched), so it
        # can be keyed by file name as this project keys it.
        current: dict[str, str] = {}
        scenario_class = next(v for v in vars(module).values()
                              if isinstance(v, type) and hasattr(v, "download_file"))
        original = scenario_class.download_file

        def download_file(self: Any, file_name: str, output_dir: str) -> str:
            current["name"] = file_name
            return original(self, file_name, output_dir)

        scenario_class.download_file = download_file
        module.Instance = lambda **kw: Instance(**{**kw, "extra_data": {"parity_source": current["name"]}})


def helm_requests(parity: Parity, datasets: Path) -> tuple[list[dict[str, Any]], LocalSources]:
    """HELM's requests for one benchmark keyed by this project's ids, and what it was given to read."""
    run_spec = get_run_spec_function(parity.run_spec)(**parity.run_spec_args)
    scenario = create_scenario(run_spec.scenario_spec)
    sources = LocalSources(datasets, parity.folder, parity.downloads)
    _patch_scenario(sys.modules[type(scenario).__module__], parity, sources)
    with tempfile.TemporaryDirectory() as output:
        instances = scenario.get_instances(output)
    if any(instance.id is None for instance in instances):
        instances = with_instance_ids(instances)
    keys = dict(zip((i.id for i in instances if i.split in ("valid", "test")), parity.keys(instances, sources),
                    strict=True))
    adapter_spec = run_spec.adapter_spec
    adapter_module.WindowServiceFactory.get_window_service = staticmethod(lambda *a: UnboundedWindow())
    states = AdapterFactory.get_adapter(adapter_spec, None).adapt(instances, parallelism=1)
    rows = []
    for state in states:
        request = state.request
        row = {"id": keys[state.instance.id], "helm_id": state.instance.id, "split": state.instance.split,
               "prompt": request.prompt}
        row.update({name: getattr(request, name) for name in REQUEST_FIELDS})
        rows.append(row)
    return rows, sources


def write(parity: Parity, datasets: Path) -> str:
    """Generate and write one benchmark's requests and digests; a one-line summary."""
    rows, sources = helm_requests(parity, datasets)
    if len({row["id"] for row in rows}) != len(rows):
        raise RuntimeError(f"{parity.name}: two HELM instances got the same key")
    params = [{name: row[name] for name in REQUEST_FIELDS} for row in rows]
    if any(p != params[0] for p in params):
        raise RuntimeError(f"{parity.name}: request parameters differ between instances")
    REQUESTS.mkdir(parents=True, exist_ok=True)
    with (REQUESTS / f"{parity.file_name}.jsonl").open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    digest = {
        "benchmark": parity.name,
        "helm": f"crfm-helm {version('crfm-helm')}",
        "run_spec": parity.run_spec,
        "checks": [dataclasses.asdict(check) for check in parity.checks],
        "source_root": parity.root,
        "source_folder": parity.folder,
        "source_files": {name: _sha256((sources.root / name).read_bytes()) for name in sorted(set(sources.read))},
        "not_read": sources.placeholders,
        "request": params[0],
        "instances": len(rows),
        "prompts": {row["id"]: _sha256(row["prompt"].encode("utf-8")) for row in rows},
    }
    DIGESTS.mkdir(parents=True, exist_ok=True)
    (DIGESTS / f"{parity.file_name}.json").write_text(json.dumps(digest, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return f"{parity.file_name}: {len(rows)} requests from HELM's {parity.run_spec} ({parity.root} files)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets",
                        help="the folder of published datasets (each in its own folder)")
    parser.add_argument("names", nargs="*", help="benchmarks (default: all)")
    args = parser.parse_args()
    chosen = [p for p in PARITY if not args.names or p.name in args.names]
    for parity in chosen:
        root = FIXTURES if parity.root == FIXTURE else args.datasets
        if not (root / parity.folder).is_dir():
            print(f"{parity.file_name}: skipped, {root / parity.folder} is absent")
            continue
        print(write(parity, root), flush=True)
    for name, why in NOT_HERE.items():
        if not args.names or name in args.names:
            print(f"{name}: not compared, {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
