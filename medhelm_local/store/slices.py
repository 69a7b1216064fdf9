"""A run's metrics by the card's slice keys: computed from its stored instances and scores (metrics.slices computes)
when its aggregates are written, stored in `run_slices`, and read from there; computed again only for a run stored
without them (before schema v6, or not yet summarised) or where a minimum size would suppress a value."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from medhelm_local.metrics.registry import all_metrics
from medhelm_local.metrics.slices import InstanceOutcome, SlicedMetric, SliceGap, SliceValue, slice_metric
from medhelm_local.store.queries import run_metric_names

_VALUE_FIELDS = ("n", "n_scored", "n_failed", "mean", "ci_low", "ci_high")
_GAP_FIELDS = ("gap", "ci_low", "ci_high")


def compute_slices(con: Any, run_id: str, min_size: int = 1) -> list[SlicedMetric]:
    """Every mean-aggregated metric of a run by every slice key its instances carry (empty: the card names none),
    from its scores; values with fewer than `min_size` instances suppressed."""
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


def store_slices(con: Any, run_ids: Iterable[str]) -> None:
    """Compute and record runs' slices (replacing earlier ones), as their aggregates are recorded."""
    from medhelm_local.store.writer import insert_rows, row_of

    ids = list(run_ids)
    rows = [row_of("run_slices", run_id=run_id, metric=s.metric, slice_key=s.key, ordinal=ordinal,
                   values_json=json.dumps([{"value": v.value} | {f: getattr(v, f) for f in _VALUE_FIELDS}
                                           for v in s.values]),
                   gap_json=json.dumps({"high": s.gap.high, "low": s.gap.low} | {f: getattr(s.gap, f)
                                                                                for f in _GAP_FIELDS})
                   if s.gap else None)
            for run_id in ids for ordinal, s in enumerate(compute_slices(con, run_id))]
    # A run's slices are replaced whole: a slice key the card no longer names must not linger.
    con.execute("DELETE FROM run_slices WHERE list_contains($ids, run_id)", {"ids": ids})
    if rows:
        insert_rows(con, "run_slices", rows)


def stored_slices(con: Any, run_ids: Iterable[str] | None = None, metric: str | None = None,
                  ) -> dict[str, list[SlicedMetric]]:
    """The recorded slices of these runs (all: None), of one metric or all; a run without rows is absent."""
    found: dict[str, list[SlicedMetric]] = {}
    ids = None if run_ids is None else list(run_ids)
    for run_id, name, key, values, gap in con.execute(
            "SELECT run_id, metric, slice_key, values_json, gap_json FROM run_slices "
            "WHERE ($ids IS NULL OR list_contains($ids, run_id)) AND ($metric IS NULL OR metric = $metric) "
            "ORDER BY run_id, ordinal", {"ids": ids, "metric": metric}).fetchall():
        shown = tuple(SliceValue(key, v["value"], *(v[f] for f in _VALUE_FIELDS)) for v in json.loads(values))
        parsed = json.loads(gap) if gap else None
        found.setdefault(run_id, []).append(SlicedMetric(name, key, shown, SliceGap(
            key, parsed["high"], parsed["low"], *(parsed[f] for f in _GAP_FIELDS)) if parsed else None))
    return found


def run_slices(con: Any, run_id: str, min_size: int = 1) -> list[SlicedMetric]:
    """Every mean-aggregated metric of a run by every slice key (empty: the card names none), as recorded, else
    computed from its scores; values with fewer than `min_size` instances suppressed."""
    stored = stored_slices(con, [run_id]).get(run_id)
    if stored is None:
        return compute_slices(con, run_id, min_size)
    if any(v.n < min_size for s in stored for v in s.values):
        # Suppressing a value can change which two values the largest gap is between, and so its bootstrap.
        return compute_slices(con, run_id, min_size)
    return stored


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
