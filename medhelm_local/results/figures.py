"""Run-level figures read from the stored rows when a run (or a judge pass) finishes.

Each registered metric whose aggregation is one of these run-level kinds (metrics/kinds.py, registered
below) is computed here and stored in
`run_metrics` beside the per-instance aggregates, so reports read them like any other metric:
efficiency and cost (completions, ratings, the prices recorded with the run), calibration
(logprobs and the main metric), agreement (the judges' ratings) and robustness (perturbed runs of
the same entry). A figure that cannot be computed (no logprobs, no price, no perturbed run, one
judge) has no row: "not available", never 0. See metrics/efficiency.py, calibration.py,
agreement.py and robustness.py for what each figure means.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb

from medhelm_local.metrics import calibration as cal
from medhelm_local.metrics import efficiency as eff
from medhelm_local.metrics.aggregate import aggregate, bootstrap_ci
from medhelm_local.metrics.agreement import JURY_ALPHA, ordinal_alpha
from medhelm_local.metrics.jury import JURY_SCORE, is_jury_metric
from medhelm_local.metrics.kinds import kinds, run_level_kind
from medhelm_local.metrics.registry import get
from medhelm_local.metrics.robustness import PERTURBATION_ARGS, ROBUSTNESS, ROBUSTNESS_DROP
from medhelm_local.records import Aggregate
from medhelm_local.store.queries import store_aggregates

_CHUNK = 4096  # rows fetched at a time where a run's rows are read in Python


def read_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """What a run is (entry, settings, benchmark, parsed) and its counts: instances `n`, answers `completed` (ok or
    failed), `failed`; {} for no such run. One query: a run's queries are most of what its aggregates take."""
    # The counts as scalar subqueries on the parameter: correlated with the runs row, DuckDB counted every run's
    # rows and joined, several times slower (docs/performance.md).
    row = con.execute("SELECT scenario, model, deployment, scenario_args, main_metric, settings, benchmark_json, "
                      "(SELECT count(*) FROM instances WHERE run_id = $run), "
                      "(SELECT count(*) FROM completions WHERE run_id = $run), "
                      "(SELECT count(*) FROM completions WHERE run_id = $run AND NOT ok) FROM runs WHERE run_id = $run",
                      {"run": run_id}).fetchone()
    if row is None:
        return {}
    keys = ("scenario", "model", "deployment", "args", "main", "settings", "benchmark", "n", "completed", "failed")
    run = dict(zip(keys, row, strict=True))
    run["args"], run["settings"] = json.loads(run["args"] or "{}"), json.loads(run["settings"] or "{}")
    run["benchmark"] = json.loads(run["benchmark"] or "{}")
    run["run_id"] = run_id
    return run


def _busy(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> float:
    """Seconds with a request in flight: the union of [answered - latency, answered] of the rows selected."""
    import numpy as np

    # As two arrays: a run's memory peaks as its aggregates start, and a 100,000-instance run held two lists of
    # 100,000 Python tuples here.
    rows = con.execute(f"SELECT epoch(created_at) - latency_s AS sent, epoch(created_at) AS answered FROM {sql} "
                       "AND latency_s IS NOT NULL", params).fetchnumpy()
    return eff.busy_seconds(np.column_stack((rows["sent"], rows["answered"])))


@run_level_kind("efficiency", "latency, tokens and throughput from the run's completions")
def _efficiency(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    ok, failed, p50, p95, tokens_in, tokens_out, counted, out_ok = con.execute(
        "SELECT count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok), quantile_cont(latency_s, 0.5) FILTER "
        "(WHERE ok), quantile_cont(latency_s, 0.95) FILTER (WHERE ok), sum(prompt_tokens), sum(completion_tokens), "
        "count(completion_tokens), sum(completion_tokens) FILTER (WHERE ok) FROM completions WHERE run_id = ?",
        [run["run_id"]]).fetchone() or (0, 0, None, None, None, None, 0, None)
    n = run["n"]
    figures = [Aggregate(m, n, ok, failed, float(v), None, None) for m, v in
               ((eff.LATENCY_P50, p50), (eff.LATENCY_P95, p95)) if v is not None]
    if counted:
        figures += [Aggregate(eff.TOKENS_IN, n, counted, failed, float(tokens_in or 0), None, None),
                    Aggregate(eff.TOKENS_OUT, n, counted, failed, float(tokens_out or 0), None, None)]
        busy = _busy(con, "completions WHERE run_id = ? AND ok", [run["run_id"]])
        if busy > 0:
            figures.append(Aggregate(eff.OUTPUT_TOKENS_PER_S, n, ok, failed, float(out_ok or 0) / busy, None, None,
                                     {"busy_s": busy}))
    return figures


def _price_cost(price: dict[str, Any], tokens_in: int, tokens_out: int, busy: float) -> float:
    if price.get("per_gpu_hour") is not None:
        return float(price["per_gpu_hour"]) * int(price.get("gpus") or 1) * busy / 3600.0
    return eff.token_cost(tokens_in, tokens_out, price.get("input_per_million"), price.get("output_per_million"))


@run_level_kind("cost", "the price recorded with the run (and its jury's) applied to tokens or busy time")
def _cost(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    figures: list[Aggregate] = []
    run_id, n = run["run_id"], run["n"]
    price = run["settings"].get("price")
    if price:
        ok, failed, tokens_in, tokens_out = con.execute(
            "SELECT count(*) FILTER (WHERE ok), count(*) FILTER (WHERE NOT ok), coalesce(sum(prompt_tokens), 0), "
            "coalesce(sum(completion_tokens), 0) FROM completions WHERE run_id = ?",
            [run_id]).fetchone() or (0, 0, 0, 0)
        busy = _busy(con, "completions WHERE run_id = ?", [run_id]) if price.get("per_gpu_hour") is not None else 0.0
        cost = _price_cost(price, tokens_in, tokens_out, busy)
        detail = {"currency": price.get("currency", "USD"), "price": price, "busy_s": busy}
        figures.append(Aggregate(eff.COST, n, ok, failed, cost, None, None, detail))
        if ok:
            figures.append(Aggregate(eff.COST_PER_1K, n, ok, failed, cost / ok * 1000, None, None, detail))
    jury = run["settings"].get("jury")
    prices = (run["settings"].get("juries") or {}).get(jury) or {}
    priced = {judge: p for judge, p in prices.items() if p}
    if jury and priced:
        total, per_judge = 0.0, {}
        for judge, judge_price in sorted(priced.items()):
            where = "ratings WHERE run_id = ? AND jury = ? AND judge = ?"
            tokens_in, tokens_out = con.execute(f"SELECT coalesce(sum(prompt_tokens), 0), "
                                                f"coalesce(sum(completion_tokens), 0) FROM {where}",
                                                [run_id, jury, judge]).fetchone() or (0, 0)
            busy = _busy(con, where, [run_id, jury, judge]) if judge_price.get("per_gpu_hour") is not None else 0.0
            per_judge[judge] = _price_cost(judge_price, tokens_in, tokens_out, busy)
            total += per_judge[judge]
        judged = con.execute("SELECT count(DISTINCT instance_id) FROM ratings WHERE run_id = ? AND jury = ?",
                             [run_id, jury]).fetchone()[0]  # type: ignore[index]
        detail = {"jury": jury, "per_judge": per_judge, "unpriced_judges": sorted(set(prices) - set(priced)),
                  "currency": next(iter(priced.values())).get("currency", "USD")}
        figures.append(Aggregate(eff.JUDGING_COST, n, judged, 0, total, None, None, detail))
        if judged:
            figures.append(Aggregate(eff.JUDGING_COST_PER_1K, n, judged, 0, total / judged * 1000, None, None, detail))
    return figures


@run_level_kind("calibration", "the chosen option's probability against the main metric (multiple choice)")
def _calibration(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    if run["benchmark"].get("task_type") != "multiple_choice":
        return []
    import numpy as np  # only run-level figures need it: `run --quiet` imports it here, at the end

    params = {"run": run["run_id"], "metric": run["main"]}
    # Both sides of the join carry only ids and numbers: joined whole, a 100,000-instance run's reference texts
    # sat in the join's hash table, and its logprobs passing through the join raised that query's peak too
    # (bench/memory.py; docs/performance.md).
    answered = ("FROM (SELECT instance_id, confidence FROM completions WHERE run_id = $run AND ok) c JOIN (SELECT "
                "instance_id, value FROM scores WHERE run_id = $run AND metric = $metric AND value IS NOT NULL) s "
                "USING (instance_id)")
    # Answers stored without their confidence (a v2 store's): DuckDB reads their logprobs only where the
    # confidence is missing, so a store that has them all reads none.
    (unread,) = con.execute("SELECT count(*) FROM completions WHERE run_id = $run AND ok AND confidence IS NULL "
                            "AND logprobs_json IS NOT NULL", {"run": run["run_id"]}).fetchone() or (0,)
    # Each answer's confidence is stored when it arrives (schema v3): two numbers an instance, fetched as arrays,
    # every scored answer's (how many there are is part of the figure), kept where both are known.
    stored = con.execute(f"SELECT c.confidence, s.value {answered} ORDER BY instance_id", params).fetchnumpy()
    seen = len(stored["value"])
    known = ~np.ma.getmaskarray(stored["confidence"])
    known &= np.isin(np.ma.getdata(stored["value"]), (0.0, 1.0))
    confidence = [np.asarray(np.ma.getdata(stored["confidence"])[known], dtype=float)]
    correct = [np.asarray(np.ma.getdata(stored["value"])[known], dtype=float)]
    if unread:  # a v2 store's answers have none stored: read from their logprobs, in chunks
        result = con.execute(
            "SELECT c.logprobs_json, s.value, i.options FROM completions c "
            "JOIN (SELECT instance_id, value FROM scores WHERE run_id = $run AND metric = $metric AND value IN (0, 1)) "
            "s USING (instance_id) JOIN (SELECT instance_id, json_array_length(references_json) AS options "
            "FROM instances WHERE run_id = $run) i USING (instance_id) "
            "WHERE c.run_id = $run AND c.ok AND c.confidence IS NULL AND c.logprobs_json IS NOT NULL "
            "ORDER BY c.instance_id", params)
        read: list[tuple[float, float]] = []
        while rows := result.fetchmany(_CHUNK):
            read += [(prob, float(value)) for logprobs_json, value, options in rows
                     if (prob := cal.chosen_probability(logprobs_json, int(options or 0))) is not None]
        confidence.append(np.asarray([prob for prob, _ in read], dtype=float))
        correct.append(np.asarray([hit for _, hit in read], dtype=float))
    conf, hits = np.concatenate(confidence), np.concatenate(correct)
    if not conf.size:
        return []  # no logprobs: not available
    failed = run["completed"] - conf.size  # answered without a probability, or failed (pending ones are neither)
    low, high = cal.ece_bootstrap(conf, hits) if conf.size > 1 else (None, None)
    detail = {"without_probability": seen - conf.size, "bins": cal.BINS}
    ece = Aggregate(cal.ECE, run["n"], conf.size, failed, cal.expected_calibration_error(conf, hits), low, high,
                    detail)
    brier = aggregate(cal.BRIER, run["n"], np.square(conf - hits), failed)
    return [ece, brier]


@run_level_kind("agreement", "how far the judges of a jury agree, per rubric criterion")
def _agreement(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    declared = run["benchmark"].get("metrics")  # absent from stores older than the metric registry
    jury = JURY_SCORE if declared is None else next(
        (m for m in (run["main"], *declared) if is_jury_metric(m)), None)  # the jury score on the rubric's scale
    if jury is None:
        return []  # no jury rates this run's answers by a rubric's criteria
    details = [json.loads(d) for (d,) in con.execute(
        "SELECT detail_json FROM scores WHERE run_id = ? AND metric = ? AND detail_json IS NOT NULL "
        "ORDER BY instance_id",
        [run["run_id"], jury]).fetchall()]
    judges = sorted({name for d in details for name in d.get("judges", {})})
    if len(judges) < 2:
        return []
    criteria = sorted({c for d in details for j in d["judges"].values() for c in j.get("scores", {})})
    alphas: dict[str, float | None] = {}
    for criterion in criteria:
        matrix = [[d["judges"].get(judge, {}).get("scores", {}).get(criterion) for d in details] for judge in judges]
        alphas[criterion] = ordinal_alpha(matrix)
    defined = [a for a in alphas.values() if a is not None]
    if not defined:
        return []
    return [Aggregate(JURY_ALPHA, run["n"], len(details), 0, sum(defined) / len(defined), None, None,
                      {"per_criterion": alphas, "judges": judges, "level": "ordinal"})]


def _paired(con: duckdb.DuckDBPyConnection, clean: str, perturbed: str, metric: str) -> list[tuple[float, float]]:
    return [(float(a), float(b)) for a, b in con.execute(
        "SELECT a.value, b.value FROM scores a JOIN scores b ON a.instance_id = b.instance_id AND b.run_id = ? "
        "AND b.metric = a.metric WHERE a.run_id = ? AND a.metric = ? AND a.value IS NOT NULL AND b.value IS NOT NULL "
        "ORDER BY a.instance_id",
        [perturbed, clean, metric]).fetchall()]


def _clean_args(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k not in PERTURBATION_ARGS}


def _siblings(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    rows = con.execute("SELECT run_id, scenario_args FROM runs WHERE scenario = ? AND model = ? AND deployment = ? "
                       "AND run_id != ?", [run["scenario"], run["model"], run["deployment"], run["run_id"]]).fetchall()
    parsed = [(other, json.loads(args or "{}")) for other, args in rows]
    return [(other, args) for other, args in parsed if _clean_args(args) == _clean_args(run["args"])]


@run_level_kind("robustness", "the main metric under the worst input perturbation, paired with the clean run")
def _robustness(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    if "perturbation" in run["args"]:
        return []  # figures live on the clean run
    spec = get(run["main"])
    found: dict[str, dict[str, Any]] = {}
    for other, args in _siblings(con, run):
        pairs = _paired(con, run["run_id"], other, run["main"])
        if "perturbation" not in args or not pairs:
            continue
        clean = [spec.normalise(a) for a, _ in pairs]
        perturbed = [spec.normalise(b) for _, b in pairs]
        diffs = [a - b for a, b in zip(clean, perturbed, strict=True)]
        low, high = bootstrap_ci(diffs)
        found[args["perturbation"]] = {"run_id": other, "seed": args.get("perturbation_seed", "0"), "n": len(pairs),
                                       "clean": sum(clean) / len(clean), "perturbed": sum(perturbed) / len(perturbed),
                                       "drop": sum(diffs) / len(diffs), "drop_ci": [low, high],
                                       "perturbed_values": perturbed}
    if not found:
        return []
    worst_name = min(found, key=lambda k: found[k]["perturbed"])
    worst = found[worst_name]
    score = aggregate(ROBUSTNESS, run["n"], worst.pop("perturbed_values"), 0)
    for item in found.values():
        item.pop("perturbed_values", None)
    detail = {"worst": worst_name, "main_metric": run["main"], "perturbations": found}
    low, high = worst["drop_ci"]
    return [Aggregate(ROBUSTNESS, run["n"], worst["n"], 0, score.mean, score.ci_low, score.ci_high, detail),
            Aggregate(ROBUSTNESS_DROP, run["n"], worst["n"], 0, worst["drop"], low, high, detail)]


def compute_figures(con: duckdb.DuckDBPyConnection, run: dict[str, Any]) -> list[Aggregate]:
    """Every run-level figure that can be computed for a run (`read_run`'s; see the module docstring)."""
    if not run:
        return []
    return [figure for kind in kinds() if kind.over_run is not None for figure in kind.over_run(con, run)]


def clean_sibling(con: duckdb.DuckDBPyConnection, run_id: str) -> str | None:
    """For a perturbed run: the clean run of the same entry in this store, whose robustness it changes."""
    run = read_run(con, run_id)
    if not run or "perturbation" not in run["args"]:
        return None
    return next((other for other, args in _siblings(con, run) if "perturbation" not in args), None)


def refresh_robustness(con: duckdb.DuckDBPyConnection, run_ids: Sequence[str]) -> None:
    """After runs changed: recompute and store the robustness figures of the clean runs the perturbed ones among
    them belong to (one query when none is perturbed)."""
    perturbed = [run_id for run_id, args in con.execute(
        "SELECT run_id, scenario_args FROM runs WHERE list_contains($ids, run_id)", {"ids": list(run_ids)}).fetchall()
        if "perturbation" in json.loads(args or "{}")]
    cleans = dict.fromkeys(clean for run_id in perturbed if (clean := clean_sibling(con, run_id)) is not None)
    if cleans:
        store_aggregates(con, {clean: _robustness(con, read_run(con, clean)) for clean in cleans})
