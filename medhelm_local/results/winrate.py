"""Mean win rate, as HELM's `helm-summarize` computes it for its leaderboards.

Per column (a benchmark's metric), a model's win rate is the share of the other models with a value
in that column that it beats; a tie counts half. Columns where fewer than two models have a value,
or whose metric declares no direction, are skipped. A model's mean win rate is the mean over the
columns where it has a value and that are not skipped; None when there is no such column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class WinRate:
    """A model's mean win rate over the columns where it could be compared."""

    value: float | None
    columns: int
    ci_low: float | None = None  # the bootstrap 95 % interval (report.ties), where per-instance scores were read
    ci_high: float | None = None


def column_win_rates(values: Mapping[str, float | None], higher_is_better: bool) -> dict[str, float]:
    """Each model's win rate in one column; empty when fewer than two models have a value."""
    present = {model: value for model, value in values.items() if value is not None}
    if len(present) < 2:
        return {}
    others = len(present) - 1
    rates = {}
    for model, value in present.items():
        beaten = sum(1 for v in present.values() if (v < value if higher_is_better else v > value))
        tied = sum(1 for v in present.values() if v == value) - 1  # itself excluded
        rates[model] = (beaten + 0.5 * tied) / others
    return rates


def mean_win_rates(models: Sequence[str], columns: Sequence[tuple[Mapping[str, float | None], str | None]]
                   ) -> dict[str, WinRate]:
    """The mean win rate of every model over `columns`, each given as (values by model, direction)."""
    per_model: dict[str, list[float]] = {model: [] for model in models}
    for values, direction in columns:
        if direction not in ("higher", "lower"):
            continue
        for model, rate in column_win_rates(values, direction == "higher").items():
            if model in per_model:
                per_model[model].append(rate)
    return {model: WinRate(sum(rates) / len(rates) if rates else None, len(rates))
            for model, rates in per_model.items()}
