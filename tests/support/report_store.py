"""Suite stores for report tests and bench/report.py, written directly through the store API.

Runs are invented: each instance's score is drawn from the run's accuracy (seeded), some requests fail,
some metrics fail to score, and judges' ratings (with explanations) can be added, as the jury will
write them. Nothing here calls a model.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medhelm_local.results.aggregates import compute_aggregates, record_summaries
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek
from medhelm_local.store.queries import RunRecord, record_runs
from medhelm_local.store.writer import insert_rows, row_of

BENCHMARKS: dict[str, dict[str, Any]] = {
    "pubmed_qa": {"display_name": "PubMedQA", "task_type": "multiple_choice",
                  "subcategory": "Conducting Literature Research", "metrics": ["exact_match", "helm_exact_match"]},
    "medcalc_bench": {"display_name": "MedCalc-Bench", "task_type": "calculation",
                      "subcategory": "Supporting Diagnostic Decisions",
                      "metrics": ["medcalc_bench_official", "helm_medcalc_bench_accuracy"]},
    "med_qa": {"display_name": "MedQA", "task_type": "multiple_choice",
               "subcategory": "Providing Clinical Knowledge Support", "metrics": ["exact_match", "helm_exact_match"]},
    "medication_qa": {"display_name": "MedicationQA", "task_type": "generation",
                      "subcategory": "Providing Patient Education Resources", "metrics": ["rouge_l"]},
    "head_qa": {"display_name": "HeadQA", "task_type": "multiple_choice",
                "subcategory": "Providing Clinical Knowledge Support", "metrics": ["exact_match", "helm_exact_match"]},
    "medbullets": {"display_name": "Medbullets", "task_type": "multiple_choice",
                   "subcategory": "Providing Clinical Knowledge Support",
                   "metrics": ["exact_match", "helm_exact_match"]},
    "medhallu": {"display_name": "MedHallu", "task_type": "classification",
                 "subcategory": "Ensuring Clinical Research Quality", "metrics": ["exact_match", "helm_exact_match"]},
    "medec": {"display_name": "Medec", "task_type": "generation", "subcategory": "Planning Treatments",
              "metrics": ["medec_error_flag_accuracy", "helm_medec_error_flag_accuracy"]},
    "ehr_sql": {"display_name": "EHRSQL", "task_type": "generation", "subcategory": "Analyzing Clinical Research Data",
                "metrics": ["ehr_sql_sql_exact_match"]},
    "aci_bench": {"display_name": "ACI-Bench", "task_type": "generation", "subcategory": "Documenting Patient Visits",
                  "metrics": ["rouge_l"]},
    "mtsamples_replicate": {"display_name": "MTSamples", "task_type": "generation",
                            "subcategory": "Planning Treatments", "metrics": ["rouge_l"]},
    "mtsamples_procedures": {"display_name": "MTSamples Procedures", "task_type": "generation",
                             "subcategory": "Recording Procedures", "metrics": ["rouge_l"]},
}


@dataclass
class Rating:
    """One judge's rating of one instance (or its failure)."""

    judge: str
    scores: dict[str, int] | None  # criterion -> 1-5; None: the judge failed
    explanation: str = "clear and complete"
    error_type: str | None = None


@dataclass
class FakeRun:
    """A run to write: a model on a benchmark with per-instance values."""

    model: str
    benchmark: str
    n: int
    accuracy: float = 0.5
    failed: int = 0  # the last `failed` instances' requests fail (timeout)
    unscored: int = 0  # then this many answers the main metric cannot score
    seed: int = 1
    values: Sequence[float] | None = None  # explicit main-metric values (instead of drawing them)
    args: dict[str, str] = field(default_factory=dict)
    ratings: Callable[[int], list[Rating]] | None = None
    access: str = "public"
    prompt: Callable[[int], str] | None = None
    extra_metrics: dict[str, Callable[[int], float]] = field(default_factory=dict)
    main_metric: str | None = None
    only_main: bool = False  # one score row per instance (bench/report.py counts score rows)
    served: str | None = None  # the model build the server named in each answer (completions.served_model)
    slices: Callable[[int], dict[str, str]] | None = None  # each instance's slice values (instances.slices_json)

    @property
    def metrics(self) -> list[str]:
        declared = list(BENCHMARKS[self.benchmark]["metrics"])[:1 if self.only_main else None]
        if self.main_metric:
            declared = [self.main_metric] + [m for m in declared if m != self.main_metric]
        return declared + [m for m in self.extra_metrics if m not in declared]

    def run_entry(self) -> str:
        args = "".join(f"{k}={v}," for k, v in sorted(self.args.items()))
        return f"{self.benchmark}:{args}model={self.model},model_deployment=dep"

    def run_id(self, suite: str) -> str:
        suffix = "-".join(f"{k}{v}" for k, v in sorted(self.args.items()))
        return f"{self.benchmark}-{self.model.replace('/', '_')}{'-' + suffix if suffix else ''}-{suite}"


def write_store(path: Path, kek: Kek, suite: str, runs: Sequence[FakeRun], aggregate: bool = True) -> list[str]:
    """Write `runs` into a new suite store at `path`; return their run ids."""
    handle = open_store(path, kek, create=True)
    ids = []
    try:
        for run in runs:
            ids.append(_write_run(handle.con, suite, run, aggregate))
    finally:
        handle.close()
    return ids


def _write_run(con: Any, suite: str, run: FakeRun, aggregate: bool) -> str:
    run_id = run.run_id(suite)
    bench = BENCHMARKS[run.benchmark]
    metrics = run.metrics
    record_runs(con, [RunRecord(
        run_id=run_id, suite=suite, run_entry=run.run_entry(), scenario=run.benchmark, scenario_args=run.args,
        model=run.model, deployment="dep", main_metric=metrics[0], access=run.access,
        settings={"max_eval_instances": run.n},
        benchmark={"name": run.benchmark, "display_name": bench["display_name"], "task_type": bench["task_type"],
                   "subcategory": bench["subcategory"], "category": None, "access": run.access, "metrics": metrics})])
    rng = random.Random(run.seed)
    tables: dict[str, list[tuple[Any, ...]]] = {"instances": [], "requests": [], "completions": [], "scores": [],
                                                "ratings": []}
    for i in range(run.n):
        iid = f"q{i:06d}"
        prompt = run.prompt(i) if run.prompt else f"Question {i}: is the answer yes, no or maybe?"
        tables["instances"].append(row_of("instances", run_id=run_id, instance_id=iid, ordinal=i, split="test",
                                          input=prompt, references_json=json.dumps([{"text": f"answer {i}",
                                                                                     "correct": True}]),
                                          extra_json="{}",
                                          slices_json=json.dumps(run.slices(i)) if run.slices else None))
        tables["requests"].append(row_of("requests", run_id=run_id, instance_id=iid, prompt=prompt,
                                         params_json="{}"))
        if i >= run.n - run.failed:
            tables["completions"].append(row_of("completions", run_id=run_id, instance_id=iid, ok=False,
                                                attempts=3, error_type="timeout",
                                                error_message="no answer within 60 s"))
            continue
        tables["completions"].append(row_of("completions", run_id=run_id, instance_id=iid, ok=True,
                                            text=f"model answer {i}", finish_reason="stop", prompt_tokens=20,
                                            completion_tokens=3, latency_s=0.2, attempts=1,
                                            served_model=run.served))
        unscored = i >= run.n - run.failed - run.unscored
        value = run.values[i] if run.values is not None else float(rng.random() < run.accuracy)
        tables["scores"].append(row_of("scores", run_id=run_id, instance_id=iid, metric=metrics[0],
                                       value=None if unscored else value, extracted=None if unscored else "A",
                                       error="scoring_error: ValueError" if unscored else None))
        for metric in metrics[1:]:
            extra = run.extra_metrics.get(metric)
            tables["scores"].append(row_of("scores", run_id=run_id, instance_id=iid, metric=metric,
                                           value=extra(i) if extra else value, extracted="A"))
        for rating in run.ratings(i) if run.ratings else []:
            ok = rating.scores is not None
            tables["ratings"].append(row_of(
                "ratings", run_id=run_id, instance_id=iid, jury="medhelm", judge=rating.judge, rubric="generic",
                ok=ok, ratings_json=json.dumps({c: {"score": s, "explanation": rating.explanation}
                                                for c, s in rating.scores.items()}) if ok else None,
                mean=sum(rating.scores.values()) / len(rating.scores) if rating.scores else None,
                error_type=rating.error_type, error_message="the judge's reply did not parse" if not ok else None,
                attempts=1))
    con.execute("BEGIN")
    for table, rows in tables.items():
        if rows:
            insert_rows(con, table, rows)
    con.execute("COMMIT")
    if aggregate:
        record_summaries(con, {run_id: compute_aggregates(con, run_id)})
    return run_id
