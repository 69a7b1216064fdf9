"""The jury score: the mean rating a jury of judge models gives an answer, on its rubric's scale.

Each judge rates every criterion of the benchmark's rubric; a judge's rating of an answer is its
mean over the criteria, and the instance's jury score is the mean over the judges that answered
(MedHELM's flat mean over judges and criteria, when every judge rates every criterion). A judge
that failed (unreachable, timeout, unparseable, out of range, a criterion missing) is left out and
counted; an instance no judge could rate has no score and counts as failed. Nothing is imputed:
MedHELM gives such an instance 1.0. The annotate stage writes the per-instance scores; this module
declares the metric and how it adds up over a run: n, n rated, failures per judge, the mean on the
scale and normalised to 0-1 (on 1-5, (score - 1) / 4; papers that divide by 5 report 0.2 more at the bottom).

`jury_score` is on 1-5 (MedHELM's built-in juries). A rubric that declares another scale (MedHELM's
configurable benchmarks rate 0-5) gives `jury_score_<min>_<max>`, e.g. `jury_score_0_5`: a metric of its
own, so its range (and everything normalised by it) is the scale the judges rated on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from medhelm_local.metrics.aggregate import ScoreRow, aggregate
from medhelm_local.metrics.registry import TEXT_TASKS, Metric, add, add_family, all_metrics
from medhelm_local.records import Aggregate

JURY_SCORE = "jury_score"
DEFAULT_SCALE = (1, 5)
_ON_SCALE = re.compile(r"^jury_score_(\d{1,3})_(\d{1,3})$")


def _judges(rows: Sequence[ScoreRow]) -> tuple[dict[str, dict[str, Any]], dict[str, list[float]], set[str]]:
    """Per judge: rated and failed counts (failures by reason); per criterion: every judge's scores; the juries."""
    judges: dict[str, dict[str, Any]] = {}
    criteria: dict[str, list[float]] = {}
    juries: set[str] = set()
    for row in rows:
        detail = row.detail or {}
        juries.add(str(detail.get("jury")))
        for name, judged in (detail.get("judges") or {}).items():
            counts = judges.setdefault(name, {"rated": 0, "failed": 0, "failures": Counter()})
            if "mean" in judged:
                counts["rated"] += 1
                for criterion, score in (judged.get("scores") or {}).items():
                    criteria.setdefault(criterion, []).append(float(score))
            else:
                counts["failed"] += 1
                counts["failures"][str(judged.get("error"))] += 1
    for counts in judges.values():
        counts["failures"] = dict(sorted(counts["failures"].items()))
    return judges, criteria, juries


def jury_aggregate(spec: Metric, n: int, rows: Sequence[ScoreRow], n_failed_requests: int) -> Aggregate:
    """The jury score over a run, with failures per judge and the score normalised to 0-1."""
    scored = [r.value for r in rows if r.value is not None]
    base = aggregate(spec.name, n, scored, n_failed_requests + len(rows) - len(scored))
    judges, criteria, juries = _judges(rows)
    detail: dict[str, Any] = {"jury": ", ".join(sorted(juries)) if juries else None,
                              "scale": [spec.lower, spec.upper], "n_rated": base.n_scored,
                              "n_unrated": len(rows) - len(scored), "judges": dict(sorted(judges.items())),
                              "criteria": {c: sum(v) / len(v) for c, v in sorted(criteria.items())}}
    if base.mean is not None and base.ci_low is not None and base.ci_high is not None:
        detail["normalised"] = {"mean": spec.normalise(base.mean), "ci_low": spec.normalise(base.ci_low),
                                "ci_high": spec.normalise(base.ci_high)}
    if not rows:
        detail["status"] = "not judged yet: run `medhelm-local judge SUITE` with a jury configured"
    return replace(base, detail=detail)


def _declare(name: str, low: int, high: int) -> Metric:
    scale = f"{low}-{high}"
    return add(Metric(name, "Jury score" if (low, high) == DEFAULT_SCALE else f"Jury score ({scale})", "higher",
                      float(low), float(high), TEXT_TASKS, frozenset({"reference", "judge"}), "jury",
                      f"MedHELM's LLM jury (mean over judges and criteria, {scale}); a failed judge is left out, an "
                      "instance no judge rated is unscored (MedHELM: its default score)",
                      f"The mean rating of a jury of local judge models, by the benchmark's rubric, on {scale}", None,
                      aggregator=jury_aggregate))


def jury_metric_name(low: int, high: int) -> str:
    """The jury score's name on a rubric's scale: `jury_score` on 1-5, else `jury_score_<low>_<high>`."""
    return JURY_SCORE if (low, high) == DEFAULT_SCALE else f"{JURY_SCORE}_{low}_{high}"


def jury_metric(low: int, high: int) -> Metric:
    """The jury score on a scale, declared on first use."""
    name = jury_metric_name(low, high)
    return all_metrics().get(name) or _declare(name, low, high)


def is_jury_metric(name: str) -> bool:
    """True for the jury score on any scale."""
    return name == JURY_SCORE or _ON_SCALE.match(name) is not None


def _on_scale(name: str) -> Metric | None:
    match = _ON_SCALE.match(name)
    if match is None:
        return None
    low, high = int(match.group(1)), int(match.group(2))
    return _declare(name, low, high) if low < high else None


_declare(JURY_SCORE, *DEFAULT_SCALE)
add_family(_on_scale)
