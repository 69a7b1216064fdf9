"""Fill in HELM's verdict on every parity vector by running HELM's own metric classes (not a copy of them).

Needs a separate virtual environment with crfm-helm installed (the version is recorded in each
vector as `helm_version`); never part of the appliance or of `make test`:

    python3 -m venv /tmp/helmref && /tmp/helmref/bin/pip install --no-deps crfm-helm==0.5.16 \\
        dacite numpy pyyaml filelock zstandard tqdm pyhocon colorlog sqlitedict retrying mako cattrs requests
    /tmp/helmref/bin/python tests/metrics/parity/derive_helm.py

For EHRSQL it builds the invented database (tests/support/eicu_db.py) and lets HELM's
EhrSqlAnnotator run both queries on it, then HELM's EhrSqlMetric score them.
"""

from __future__ import annotations

import json
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # tests/, for support.eicu_db

import helm.benchmark.annotation.ehr_sql_annotator as ehr_sql_annotator  # noqa: E402
from helm.benchmark.adaptation.request_state import RequestState  # noqa: E402
from helm.benchmark.metrics.ehr_sql_metrics import EhrSqlMetric  # noqa: E402
from helm.benchmark.metrics.medcalc_bench_metrics import MedCalcBenchMetric  # noqa: E402
from helm.benchmark.metrics.medec_metrics import MedecMetric  # noqa: E402
from helm.benchmark.scenarios.scenario import CORRECT_TAG, Input, Instance, Output, Reference  # noqa: E402
from helm.common.request import GeneratedOutput, Request, RequestResult  # noqa: E402
from support.eicu_db import build  # noqa: E402

HELM_VERSION = version("crfm-helm")


def _state(reference: str, answer: str, extra: dict[str, Any], annotations: dict[str, Any] | None = None,
           ) -> RequestState:
    instance = Instance(Input(text="..."), [Reference(Output(text=reference), tags=[CORRECT_TAG])],
                        extra_data=extra)
    result = RequestResult(success=True, embedding=[], completions=[GeneratedOutput(answer, 0.0, [])], cached=False)
    return RequestState(instance, None, None, 0, None, Request(), result, 0, False, annotations=annotations)


def _stats(metric: Any, state: RequestState) -> dict[str, float]:
    return {stat.name.name: stat.sum for stat in metric.evaluate_generation(None, state, None, "")}


def _rewrite(name: str, fill: Any) -> None:
    path = HERE / f"{name}.jsonl"
    vectors = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    for vector in vectors:
        vector.update(fill(vector), helm_version=HELM_VERSION)
    path.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in vectors), "utf-8")
    print(f"{name}: {len(vectors)} vectors scored by crfm-helm {HELM_VERSION}")


def medcalc(vector: dict[str, Any]) -> dict[str, float]:
    extra = {"category": vector["category"], "lower_limit": vector["lower"], "upper_limit": vector["upper"]}
    stats = _stats(MedCalcBenchMetric(), _state(vector["truth"], vector["answer"], extra))
    return {"helm_medcalc_bench_accuracy": next(iter(stats.values()))}


def medec(vector: dict[str, Any]) -> dict[str, float]:
    stats = _stats(MedecMetric(), _state(vector["reference"], vector["answer"], {}))
    return {"helm_medec_error_flag_accuracy": stats["medec_error_flag_accuracy"],
            "helm_medec_error_sentence_accuracy": stats["medec_error_sentence_accuracy"]}


def ehr_sql(vector: dict[str, Any]) -> dict[str, float]:
    extra = {"db_path": "eicu.sqlite", "value": vector["value"], "is_impossible": vector["is_impossible"]}
    state = _state(vector["gold"], vector["answer"], extra)
    annotations = {"ehr_sql": ehr_sql_annotator.EhrSqlAnnotator().annotate(state)}
    stats = _stats(EhrSqlMetric(), _state(vector["gold"], vector["answer"], extra, annotations))
    return {"helm_ehr_sql_execution_accuracy": stats["ehr_sql_execution_accuracy"],
            "helm_ehr_sql_query_validity": stats["ehr_sql_query_validity"]}


def main() -> None:
    _rewrite("medcalc_bench", medcalc)
    _rewrite("medec", medec)
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "scenarios" / "ehr_sql"
        folder.mkdir(parents=True)
        vectors = [json.loads(line) for line in (HERE / "ehr_sql.jsonl").read_text("utf-8").splitlines()]
        build(folder / "eicu.sqlite", [v["value"] for v in vectors])
        ehr_sql_annotator.get_benchmark_output_path = lambda: root  # type: ignore[attr-defined]
        _rewrite("ehr_sql", ehr_sql)


if __name__ == "__main__":
    main()
