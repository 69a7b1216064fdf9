"""The prompts MedHELM's maintained fork (PyPI `medhelm`) builds for the benchmarks it added, with its own code.

Not shipped, not in `make test`. Run in HELM's environment with the fork's wheel unpacked first on the path:

    .venv/bin/python -m pip download medhelm==0.8.0 --no-deps -d /tmp/medhelm-fork
    unzip -q /tmp/medhelm-fork/medhelm-0.8.0-py3-none-any.whl -d /tmp/medhelm-fork/whl
    .cache/helm-venv/bin/python tools/helm_parity/fork_prompts.py --fork /tmp/medhelm-fork/whl \\
        --datasets ../shared/datasets --out .cache/helm-parity/fork-prompts.json
    .venv/bin/python tools/helm_parity/fork_compare.py --datasets ../shared/datasets \\
        --prompts .cache/helm-parity/fork-prompts.json

Only the downloads are replaced: `sct_bench` reads the local sct_cleaned_full.csv; `medxpert_qa_text`'s
Hugging Face load returns the authors' 244-question sample written in the Hub's layout (options an
object, label a letter: the only differences between the two, per the authors' notebook).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import types
from pathlib import Path
from typing import Any


def _stand_ins(fork: Path) -> None:
    sys.path.insert(0, str(fork))
    pil = types.ModuleType("PIL")  # imported by the client module, never used for prompts
    pil.Image = types.ModuleType("PIL.Image")  # type: ignore[attr-defined]
    pil.Image.Image = object  # type: ignore[attr-defined]
    sys.modules.update({"PIL": pil, "PIL.Image": pil.Image})  # type: ignore[attr-defined]
    gpu = types.ModuleType("helm.common.gpu_utils")  # run specs import torch only to name a device
    gpu.get_torch_device_name = lambda: "cpu"  # type: ignore[attr-defined]
    sys.modules["helm.common.gpu_utils"] = gpu
    datasets = types.ModuleType("datasets")
    datasets.DatasetDict = dict  # type: ignore[attr-defined]
    datasets.load_dataset = None  # type: ignore[attr-defined]  (each scenario's own is replaced below)
    sys.modules.setdefault("datasets", datasets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fork", type=Path, required=True, help="the unpacked medhelm wheel")
    parser.add_argument("--datasets", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    _stand_ins(args.fork)
    import helm

    if not str(helm.__file__).startswith(str(args.fork)):
        raise SystemExit(f"helm is imported from {helm.__file__}, not from the fork")
    import helm.benchmark.run_specs.medhelm_run_specs  # registers the run specs (imported for that alone)
    from helm.benchmark.adaptation.adapters import adapter as adapter_module
    from helm.benchmark.adaptation.adapters.adapter_factory import AdapterFactory
    from helm.benchmark.run_spec import get_run_spec_function
    from helm.benchmark.scenarios.scenario import create_scenario, with_instance_ids

    class Unbounded:
        def fits_within_context_window(self, text: str, expected_completion_token_length: int = 0) -> bool:
            return True

        def truncate_from_right(self, text: str, expected_completion_token_length: int = 0) -> str:
            return text

    adapter_module.WindowServiceFactory.get_window_service = staticmethod(lambda *a: Unbounded())
    sample = args.datasets / "medxpert_qa_text" / "medxpertqa_sampled_text_input.jsonl"
    rows = [json.loads(line) for line in sample.read_text("utf-8").splitlines() if line.strip()]
    hub = [{"id": r["id"], "question": r["question"], "options": {o["letter"]: o["content"] for o in r["options"]},
            "label": r["label"][0], **{k: r[k] for k in ("medical_task", "body_system", "question_type")}}
           for r in rows]

    def sct(module: Any) -> None:
        module.ensure_file_downloaded = lambda source_url, target_path, **kw: shutil.copy(
            args.datasets / "sct_bench" / "sct_cleaned_full.csv", target_path)

    def medxpert(module: Any) -> None:
        module.load_dataset = lambda *a, **kw: {"test": hub}

    found: dict[str, list[dict[str, Any]]] = {}
    for name, patch in (("sct_bench", sct), ("medxpert_qa_text", medxpert)):
        spec = get_run_spec_function(name)()
        scenario = create_scenario(spec.scenario_spec)
        patch(sys.modules[type(scenario).__module__])
        with tempfile.TemporaryDirectory() as output:
            instances = scenario.get_instances(output)
        if any(i.id is None for i in instances):
            instances = with_instance_ids(instances)
        states = AdapterFactory.get_adapter(spec.adapter_spec, None).adapt(instances, parallelism=1)
        found[name] = [{"helm_id": s.instance.id, "prompt": s.request.prompt, "max_tokens": s.request.max_tokens,
                        "stop": list(s.request.stop_sequences), "temperature": s.request.temperature}
                       for s in states]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(found))
    print({name: len(rows) for name, rows in found.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
