"""A run's metrics by the card's slice keys, read from its stored instances and scores (metrics.slices computes)."""

from __future__ import annotations

import json
from typing import Any

from medhelm_local.metrics.registry import all_metrics
from medhelm_local.metrics.slices import InstanceOutcome, SlicedMetric, slice_metric
from medhelm_local.store.queries import run_metric_names


def run_slices(con: Any, run_id: str, min_size: int = 1) -> list[SlicedMetric]:
    """Every mean-aggregated metric of a run by every slice key its instances carry (empty: the card names none);
    values with fewer than `min_size` instances suppressed."""
    rows = con.execute("SELECT instance_id, slices_json FROM instances WHERE run_id = ? AND slices_json IS NOT NULL "
                       "ORDER BY ordinal", [run_id]).fetchall()
    if not rows:
        return []
    slices: dict[str, dict[str, str]] = {i: json.loads(text) for i, text in rows}
    keys = list(dict.fromkeys(k for values in slices.values() for k in values))
    failed = {i for (i,) in con.execute("SELECT instance_id FROM completions WHERE run_id = ? AND NOT ok",
                                        [run_id]).fetchall()}
    registry = all_metrics()
    found = []
    for metric in run_metric_names(con, run_id):
        spec = registry.get(metric)
        if spec is None or spec.aggregation != "mean":
            continue
        scores = dict(con.execute("SELECT instance_id, value FROM scores WHERE run_id = ? AND metric = ?",
                                  [run_id, metric]).fetchall())
        outcomes = [InstanceOutcome(values, scores.get(i), i in failed or (i in scores and scores[i] is None))
                    for i, values in slices.items()]
        found += [slice_metric(metric, key, outcomes, min_size) for key in keys]
    return found


def slices_json(sliced: list[SlicedMetric]) -> list[dict[str, Any]]:
    """For `show --json`."""
    from dataclasses import asdict

    return [{"metric": s.metric, "key": s.key, "values": [asdict(v) | {"n_pending": v.n_pending} for v in s.values],
             "largest_gap": asdict(s.gap) if s.gap else None, "suppressed": s.suppressed} for s in sliced]


def slice_lines(sliced: list[SlicedMetric]) -> list[str]:
    """What `show` prints: per metric and slice key, each value's mean, interval and counts, then the largest gap."""
    lines = []
    for s in sliced:
        lines.append(f"  {s.metric} by {s.key}:")
        for v in s.values:
            mean = "-" if v.mean is None else f"{v.mean:.3f}"
            interval = "" if v.ci_low is None or v.ci_high is None else f" [{v.ci_low:.3f}, {v.ci_high:.3f}]"
            lines.append(f"    {v.value}: {mean}{interval} over {v.n_scored} scored, {v.n_failed} failed, "
                         f"{v.n_pending} pending (n={v.n})")
        if s.gap is not None:
            lines.append(f"    largest gap: {s.gap.high} - {s.gap.low} = {s.gap.gap:.3f} "
                         f"[{s.gap.ci_low:.3f}, {s.gap.ci_high:.3f}] (two-sample bootstrap)")
    return lines
