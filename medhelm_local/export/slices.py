"""The slices of an export (slices.json, with the aggregates): each run's metrics per slice value, the slice keys
and values redacted like every label of a gated or private run, and slices smaller than the policy's
min_slice_size suppressed (their value and figures never leave; the largest gap is over the other slices)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from medhelm_local.export.artifacts import Shaper
from medhelm_local.store.slices import run_slices


def slices_artifact(run_ids: list[str], shaper: Shaper, con: Any, min_size: int) -> list[dict[str, Any]]:
    """Per run, metric and slice key: the slices that may leave, how many were suppressed, and the largest gap."""
    out = []
    for run_id in run_ids:
        def label(text: str) -> str | None:
            return shaper.text(run_id, "", "slice", text, force=True) if shaper.sensitive(run_id) else text  # noqa: B023

        for sliced in run_slices(con, run_id, min_size):
            gap = sliced.gap
            out.append({"run_id": run_id, "metric": sliced.metric, "key": label(sliced.key),
                        "min_slice_size": min_size, "suppressed": sliced.suppressed,
                        "values": [asdict(v) | {"key": label(v.key), "value": label(v.value), "n_pending": v.n_pending}
                                   for v in sliced.values],
                        "largest_gap": asdict(gap) | {"key": label(gap.key), "high": label(gap.high),
                                                      "low": label(gap.low)} if gap else None})
    return out
