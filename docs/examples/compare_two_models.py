"""Compare two models on PubMedQA, instance by instance: a notebook, written as a script.

Each `# %%` cell runs as it stands in Jupyter (or VS Code's interactive window). Only the documented
API (`import medhelm_local`, docs/python-api.md) and pyarrow are used. From a shell:

    python docs/examples/compare_two_models.py --config config.toml \
        --model-a local/model-a=deployment-a --model-b local/model-b=deployment-b -n 50

`config.toml` names the two deployments (their base_url on the egress allowlist) and the KEK, as for
`medhelm-local run`. It prints one JSON object: each model's mean over the paired instances, the mean
paired difference (B - A) with a 95 % bootstrap interval, and how often B won, tied or lost.
"""

# %% Settings and what to compare
from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

import medhelm_local as mh

BENCHMARK, METRIC = "pubmed_qa", "exact_match"


def _entry(model_at: str) -> tuple[str, str]:
    """`MODEL=DEPLOYMENT` -> (model, its run entry)."""
    model, _, deployment = model_at.partition("=")
    return model, f"{BENCHMARK}:model={model},model_deployment={deployment or model.split('/')[-1]}"


# %% Evaluate both models into one suite store (run again: it resumes, nothing is asked twice)
def evaluate_both(settings: mh.Settings, model_a: str, model_b: str, suite: str, n: int) -> mh.SuiteRun:
    """Both models' runs, planned and run together by one scheduler."""
    return mh.evaluate([_entry(model_a)[1], _entry(model_b)[1]], config=settings, suite=suite, max_eval_instances=n)


# %% Load the per-instance scores as an Arrow table and pair the two models on their instances
def paired_scores(results: mh.SuiteResults, model_a: str, model_b: str) -> pa.Table:
    """instance_id, a, b: each instance both models were scored on (an unscored answer pairs with nothing)."""
    scores = results.scores(metric=METRIC)
    scores = scores.filter(pc.and_(pc.equal(scores["scenario"], BENCHMARK), pc.is_valid(scores["value"])))

    def one(model: str, name: str) -> pa.Table:
        mine = scores.filter(pc.equal(scores["model"], model))
        return mine.select(["instance_id", "value"]).rename_columns(["instance_id", name])

    return one(model_a, "a").join(one(model_b, "b"), "instance_id", join_type="inner").sort_by("instance_id")


# %% The paired difference, with a bootstrap interval over instances
def compare(paired: pa.Table, samples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Mean of B - A over paired instances, a 95 % percentile bootstrap interval, and wins/ties/losses."""
    diff = pc.subtract(paired["b"], paired["a"]).to_pylist()
    if not diff:
        raise SystemExit("no instance was scored for both models: see `medhelm-local show RUN_ID --failed`")
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(diff, k=len(diff))) for _ in range(samples))
    return {"n_paired": len(diff), "mean_a": pc.mean(paired["a"]).as_py(), "mean_b": pc.mean(paired["b"]).as_py(),
            "mean_difference": statistics.fmean(diff),
            "ci95": [means[int(0.025 * samples)], means[int(0.975 * samples) - 1]],
            "b_wins": sum(d > 0 for d in diff), "ties": sum(d == 0 for d in diff), "a_wins": sum(d < 0 for d in diff)}


# %% All together
def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Evaluate, load, pair, compare; print and return the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="config file naming both deployments and the KEK")
    parser.add_argument("--model-a", required=True, metavar="MODEL=DEPLOYMENT")
    parser.add_argument("--model-b", required=True, metavar="MODEL=DEPLOYMENT")
    parser.add_argument("--suite", default="compare-two-models")
    parser.add_argument("-n", type=int, default=50, help="instances (a fixed seeded sample)")
    args = parser.parse_args(argv)

    settings = mh.load_settings(Path(args.config))
    run = evaluate_both(settings, args.model_a, args.model_b, args.suite, args.n)
    model_a, model_b = _entry(args.model_a)[0], _entry(args.model_b)[0]
    with mh.open_suite(run.store, settings) as results:
        comparison = {"store": str(run.store), "model_a": model_a, "model_b": model_b,
                      "runs": {o.summary.model: o.summary.run_id for o in run.outcomes},
                      **compare(paired_scores(results, model_a, model_b))}
    print(json.dumps(comparison, indent=2))
    return comparison


if __name__ == "__main__":
    main()
