"""SCT-Bench's scores: how far the expert panel agrees with the model's rating (SCT-Bench's `modeling.py`,
as MedHELM's `sct_bench_metrics.py` computes them).

The rating is read as SCT-Bench reads it: the five characters after the first "Rating: ", their
`+2 +1 0 -1 -2` tokens joined into a number, which must be -2..2 ("Rating: +1 because" is 1;
"Rating: -1 or 0" reads -10 and is no rating). An answer with no rating scores 0 on both, as the
model's failure to answer (SCT-Bench and MedHELM score it so); it is not a failed request.

    sct_score                  the panel's weight for the rating, divided by the panel's largest weight
    sct_expert_set_membership  1 when any expert chose the rating (its weight is above 0)
"""

from __future__ import annotations

import json
import re

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

SCT_SCORE = "sct_score"
SCT_EXPERT_SET = "sct_expert_set_membership"
_RATING = re.compile(r"\+2|\+1|0|-1|-2")
_CUE = "Rating: "


def read_rating(answer: str) -> int | None:
    """The rating SCT-Bench reads from an answer (-2..2), or None."""
    if _CUE not in answer:
        return None
    found = "".join(_RATING.findall(answer.split(_CUE, 2)[1][:5]))
    try:
        rating = int(found)
    except ValueError:
        return None
    return rating if -2 <= rating <= 2 else None


def _panel(instance: Instance) -> list[float]:
    return [float(w) for w in json.loads(instance.extra["expert_distribution"])]


@metric(SCT_SCORE, title="SCT score", task_types=TEXT_TASKS, readers=("sct_bench",),
        follows="SCT-Bench / MedHELM sct_score: the panel's weight of the rating over its largest weight")
def sct_score(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """The expert panel's normalised weight for the model's rating (0 when no rating is read)."""
    rating, panel = read_rating(answer.strip()), _panel(instance)
    if rating is None or max(panel) == 0:
        return MetricValue(0.0, None if rating is None else f"{rating:+d}")
    return MetricValue(panel[rating + 2] / max(panel), f"{rating:+d}")


@metric(SCT_EXPERT_SET, title="SCT expert set membership", task_types=TEXT_TASKS, readers=("sct_bench",),
        follows="SCT-Bench / MedHELM sct_expert_set_membership: 1 when an expert chose the rating")
def sct_expert_set_membership(instance: Instance, answer: str, ctx: ScoringContext) -> MetricValue:
    """1 when the model's rating is one some expert of the panel gave, else 0 (0 when no rating is read)."""
    rating = read_rating(answer.strip())
    if rating is None:
        return MetricValue(0.0, None)
    return MetricValue(1.0 if _panel(instance)[rating + 2] > 0 else 0.0, f"{rating:+d}")
