"""Efficiency and cost of a run: latency, throughput, tokens, and what the run (and its judging) cost.

Read from the stored completions (and ratings), never from a clock of this machine:
- latency p50 / p95: of the successful requests, seconds from sending to the whole reply (retries
  included);
- output tokens per second: the run's generated tokens over the time it had requests in flight (the
  union of every request's [sent, answered] interval, so concurrency counts and pauses between
  invocations do not);
- tokens in / out: the totals the server reported;
- cost: by the deployment's declared price (settings), per million tokens in and out, or per
  GPU-hour x GPUs over the time in flight; per run and per 1,000 answered instances. Judging cost,
  by each judge's price, is reported separately. No price declared: no cost figure (never 0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from medhelm_local.metrics.registry import ALL_TASKS, TEXT_TASKS, Direction, Group, Metric, add

if TYPE_CHECKING:  # numpy is imported where figures are computed, never when a run starts
    from numpy.typing import ArrayLike

LATENCY_P50, LATENCY_P95 = "latency_p50", "latency_p95"
OUTPUT_TOKENS_PER_S, TOKENS_IN, TOKENS_OUT = "output_tokens_per_s", "tokens_in", "tokens_out"
COST, COST_PER_1K = "cost", "cost_per_1k"
JUDGING_COST, JUDGING_COST_PER_1K = "judging_cost", "judging_cost_per_1k"
# Figures of how long requests took: two runs of the same entries differ in them.
TIMED = frozenset({LATENCY_P50, LATENCY_P95, OUTPUT_TOKENS_PER_S})


def busy_seconds(intervals: Sequence[tuple[float, float]] | ArrayLike) -> float:
    """Total length of the union of [start, end] intervals (time with at least one request in flight).

    Vectorised: in (start, end) order, each interval adds what passes the furthest end before it. Summed in that
    order (a cumulative sum), so the figure is the same, bit for bit, as adding them one by one.
    """
    import numpy as np

    pairs = np.asarray(intervals, dtype=float).reshape(-1, 2)
    if not pairs.size:
        return 0.0
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    starts, ends = pairs[:, 0], pairs[:, 1]
    reach = np.concatenate(([-np.inf], np.maximum.accumulate(ends)[:-1]))
    added = np.maximum(0.0, ends - np.maximum(starts, reach))
    return float(np.cumsum(added)[-1])


def token_cost(tokens_in: int, tokens_out: int, input_per_million: float | None,
               output_per_million: float | None) -> float:
    """The price of tokens in and out (an unpriced direction costs nothing)."""
    return tokens_in / 1e6 * (input_per_million or 0.0) + tokens_out / 1e6 * (output_per_million or 0.0)


def _declare(name: str, title: str, direction: Direction, aggregation: str, group: Group, unit: str,
             description: str, task_types: frozenset = ALL_TASKS) -> None:  # type: ignore[type-arg]
    # Unbounded: never normalised to 0-1 or averaged with scores (reports read `bounded`).
    add(Metric(name, title, direction, 0.0, math.inf, task_types, frozenset(), aggregation,
               "medhelm-local (from the stored requests; MedHELM reports cost only in its paper)", description, None,
               group=group, unit=unit))


_declare(LATENCY_P50, "Latency p50", "lower", "efficiency", "efficiency", "s",
         "Median seconds from sending a request to its whole reply")
_declare(LATENCY_P95, "Latency p95", "lower", "efficiency", "efficiency", "s",
         "95th percentile of seconds from sending a request to its whole reply")
_declare(OUTPUT_TOKENS_PER_S, "Output tokens per second", "higher", "efficiency", "efficiency", "tokens/s",
         "Generated tokens over the time the run had requests in flight")
_declare(TOKENS_IN, "Tokens in", "lower", "efficiency", "efficiency", "tokens",
         "Prompt tokens of the run, as the server counted them")
_declare(TOKENS_OUT, "Tokens out", "lower", "efficiency", "efficiency", "tokens",
         "Generated tokens of the run, as the server counted them")
# Costs are in the currency of the deployments' declared prices (each figure's detail names it).
_declare(COST, "Cost", "lower", "cost", "cost", "",
         "What generating the run's answers cost, by the deployment's declared price")
_declare(COST_PER_1K, "Cost per 1,000 instances", "lower", "cost", "cost", "",
         "Generation cost per 1,000 answered instances")
_declare(JUDGING_COST, "Judging cost", "lower", "cost", "cost", "",
         "What the jury's ratings of the run cost, by each judge's declared price", TEXT_TASKS)
_declare(JUDGING_COST_PER_1K, "Judging cost per 1,000 instances", "lower", "cost", "cost", "",
         "Judging cost per 1,000 judged instances", TEXT_TASKS)
