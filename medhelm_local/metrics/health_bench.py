"""HealthBench's score, as OpenAI's simple-evals computes it (healthbench_eval.py), over a local jury.

Each conversation has its own rubric items: a criterion, points (negative for undesirable behaviour)
and tags (`axis:...`, `level:...`). A judge grades every item met or not met. Per instance and judge:

    score = sum(points of the items met) / sum(points of the items with positive points)

so meeting a negative item lowers the score, which may fall below 0 for one instance. Over a run, the
mean of the instances' scores is clipped to [0, 1], with a seeded bootstrap 95 % interval of the
clipped mean (and its standard deviation, the figure simple-evals prints). Scores by tag, as
simple-evals reports them: an instance's example tags (`theme:...`, `physician_agreed_category:...`)
each get its score; each rubric tag (`axis:...`, `level:...`) gets the same rule over the items with
that tag (none when those items have no positive points); every tag's mean is clipped alike.

With a jury: an instance's score is the mean over the judges that graded every one of its items
(simple-evals has one grader). A judge that failed on any item is left out and counted; an instance
no judge graded completely is unscored and counted as failed, never imputed.

MedHELM's fork computes it differently: it turns a negative item's points p into 10 + p (-5 counts as
5), adds them to the possible points, and counts them as achieved when the undesirable behaviour is
met; it neither clips nor compares like simple-evals, and HealthBench Professional there is averaged
with a 1-10 comparison against the physician's answer. This module follows OpenAI.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from medhelm_local.metrics.aggregate import BOOTSTRAP_SAMPLES, ScoreRow, aggregate, bootstrap_ci
from medhelm_local.metrics.registry import TEXT_TASKS, Metric, add
from medhelm_local.records import Aggregate

HEALTH_BENCH_SCORE = "health_bench_score"
THEME, AXIS = "theme:", "axis:"


@dataclass(frozen=True)
class RubricItem:
    """One rubric item of a conversation: what it asks, its points, its tags."""

    criterion: str
    points: float
    tags: tuple[str, ...] = ()

    def __str__(self) -> str:
        # simple-evals shows its grader "[points] criterion", the points as the file writes them (5, -3, 2.5).
        return f"[{self.points}] {self.criterion}"


def rubric_items(extra: Mapping[str, str]) -> list[RubricItem]:
    """The rubric items a reader stored with the instance (`rubric_items`: JSON list of criterion, points, tags)."""
    return [RubricItem(str(i["criterion"]), i["points"], tuple(i.get("tags") or ()))
            for i in json.loads(extra.get("rubric_items") or "[]")]


def example_tags(extra: Mapping[str, str]) -> list[str]:
    """The instance's own tags (`example_tags`), e.g. theme:emergency_referrals."""
    return [str(t) for t in json.loads(extra.get("example_tags") or "[]")]


def example_score(items: Sequence[RubricItem], met: Sequence[bool]) -> float | None:
    """Points of the items met over the positive points (None when no item has positive points)."""
    possible = sum(i.points for i in items if i.points > 0)
    if possible == 0:
        return None
    return sum(i.points for i, hit in zip(items, met, strict=True) if hit) / possible


def tag_scores(items: Sequence[RubricItem], met: Sequence[bool], tags: Sequence[str]) -> dict[str, float]:
    """Scores by tag: the instance's tags get its score, each rubric tag the rule over its own items."""
    overall = example_score(items, met)
    found: dict[str, float] = {tag: overall for tag in tags if overall is not None}
    for tag in sorted({t for i in items for t in i.tags}):
        chosen = [(i, hit) for i, hit in zip(items, met, strict=True) if tag in i.tags]
        score = example_score([i for i, _ in chosen], [hit for _, hit in chosen])
        if score is not None:
            found[tag] = score
    return found


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _bootstrap_std(values: Sequence[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> float:
    """Standard deviation of the clipped mean over seeded resamples (simple-evals' `bootstrap_std`)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.clip(data[rng.integers(0, data.size, size=(samples, data.size))].mean(axis=1), 0.0, 1.0)
    return float(means.std())


def clipped_summary(values: Sequence[float]) -> dict[str, float | int | None]:
    """n, the clipped mean, its clipped bootstrap interval and standard deviation, and the mean before clipping."""
    if not values:
        return {"n": 0, "mean": None, "ci_low": None, "ci_high": None, "bootstrap_std": None, "unclipped_mean": None}
    low, high = bootstrap_ci(values)
    mean = sum(values) / len(values)
    return {"n": len(values), "mean": _clip(mean), "ci_low": _clip(low), "ci_high": _clip(high),
            "bootstrap_std": _bootstrap_std(values) if len(values) > 1 else 0.0, "unclipped_mean": mean}


def _judges(rows: Sequence[ScoreRow]) -> dict[str, dict[str, Any]]:
    judges: dict[str, dict[str, Any]] = {}
    for row in rows:
        for name, judged in ((row.detail or {}).get("judges") or {}).items():
            counts = judges.setdefault(name, {"rated": 0, "failed": 0, "failures": {}})
            if "mean" in judged:
                counts["rated"] += 1
            else:
                counts["failed"] += 1
                kind = str(judged.get("error"))
                counts["failures"][kind] = counts["failures"].get(kind, 0) + 1
    return dict(sorted(judges.items()))


def health_bench_aggregate(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
    """The clipped mean over a run with its interval, failures per judge, and the scores by theme, axis and tag."""
    scored = [float(r.value) for r in rows if r.value is not None]
    base = aggregate(spec.name, n, scored, n_failed_requests + len(rows) - len(scored))
    by_tag: dict[str, list[float]] = {}
    for row in rows:
        if row.value is not None:
            for tag, value in ((row.detail or {}).get("tags") or {}).items():
                by_tag.setdefault(tag, []).append(float(value))
    summaries = {tag: clipped_summary(values) for tag, values in sorted(by_tag.items())}
    overall = clipped_summary(scored)
    detail: dict[str, Any] = {
        "jury": ", ".join(sorted({str((r.detail or {}).get("jury")) for r in rows})) or None,
        "n_rated": len(scored), "n_unrated": len(rows) - len(scored), "judges": _judges(rows),
        "unclipped_mean": overall["unclipped_mean"], "bootstrap_std": overall["bootstrap_std"],
        "by_theme": {t.removeprefix(THEME): s for t, s in summaries.items() if t.startswith(THEME)},
        "by_axis": {t.removeprefix(AXIS): s for t, s in summaries.items() if t.startswith(AXIS)},
        "by_tag": {t: s for t, s in summaries.items() if not t.startswith((THEME, AXIS))},
        "rule": "OpenAI simple-evals: points met / positive points per instance; the mean clipped to [0, 1]",
    }
    if not rows:
        detail["status"] = "not judged yet: run `medhelm-local judge SUITE` with a jury configured"
    return replace(base, mean=overall["mean"], ci_low=overall["ci_low"], ci_high=overall["ci_high"], detail=detail)


def instance_score(judged: Mapping[str, Mapping[str, Any]], extra: Mapping[str, str]) -> tuple[float | None,
                                                                                             dict[str, float]]:
    """An instance's score (the mean over judges that graded every item) and its scores by tag."""
    items, tags = rubric_items(extra), example_tags(extra)
    complete = [j for j in judged.values() if j.get("mean") is not None]
    if not complete:
        return None, {}
    per_judge = []
    for j in complete:
        met = [bool(j["scores"][key]) for key in sorted(j["scores"])]
        per_judge.append(tag_scores(items, met, tags))
    shared = sorted(set().union(*per_judge))
    by_tag = {t: sum(s[t] for s in per_judge if t in s) / sum(1 for s in per_judge if t in s) for t in shared}
    return sum(float(j["mean"]) for j in complete) / len(complete), by_tag


add(Metric(HEALTH_BENCH_SCORE, "HealthBench score", "higher", 0.0, 1.0, TEXT_TASKS, frozenset({"judge"}), "jury",
           "OpenAI simple-evals HealthBench: rubric items graded met/not met; points met / positive points; the mean "
           "clipped to [0, 1] (MedHELM's fork rectifies negative points instead)",
           "HealthBench's rubric score: each conversation's rubric items graded by a local jury, as OpenAI scores it",
           None, aggregator=health_bench_aggregate))
