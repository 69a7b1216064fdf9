"""Terminal output for juries: failures per judge, and each instance's ratings judge by judge."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from medhelm_local.metrics.health_bench import HEALTH_BENCH_SCORE
from medhelm_local.metrics.jury import is_jury_metric
from medhelm_local.records import Aggregate

if TYPE_CHECKING:
    from rich.table import Table


def judge_lines(aggregates: Sequence[Aggregate]) -> list[str]:
    """Per judge of the jury score: answers rated and failed, failures by reason; and the normalised score."""
    lines = []
    for agg in aggregates:
        if not (is_jury_metric(agg.metric) or agg.metric == HEALTH_BENCH_SCORE) or not agg.detail:
            continue
        detail = agg.detail
        normalised = detail.get("normalised")
        if isinstance(normalised, dict):
            lines.append(f"  {agg.metric} normalised to 0-1: {normalised['mean']:.3f} "
                         f"[{normalised['ci_low']:.3f}, {normalised['ci_high']:.3f}] (jury {detail.get('jury')})")
        if detail.get("status"):
            lines.append(f"  {agg.metric}: {detail['status']}")
        for group in ("by_theme", "by_axis"):
            scores = detail.get(group)
            if isinstance(scores, dict) and scores:
                shown = ", ".join(f"{tag} {s['mean']:.3f} (n {s['n']})" for tag, s in scores.items()
                                  if s.get("mean") is not None)
                lines.append(f"  {agg.metric} {group.replace('_', ' ')}: {shown}")
        judges = detail.get("judges")
        for judge, counts in (judges.items() if isinstance(judges, dict) else ()):
            failures = ", ".join(f"{kind} {count}" for kind, count in counts["failures"].items()) or "none"
            lines.append(f"    judge {judge}: {counts['rated']} rated, {counts['failed']} failed ({failures})")
    return lines


def ratings_table(rows: Sequence[dict[str, Any]]) -> Table | None:
    """Each instance's ratings, one line per judge: the score per criterion and the judge's mean, or why none."""
    from rich.table import Table

    rated = [(row["instance_id"], r) for row in rows for r in row.get("ratings") or []]
    if not rated:
        return None
    criteria = sorted({c for _, r in rated for c in (r["ratings"] or {})})
    table = Table(title="Ratings (per instance and judge)")
    for col in ("instance", "judge", "status", *criteria, "mean"):
        table.add_column(col, overflow="fold", justify="right" if col in (*criteria, "mean") else "left")
    for instance_id, r in rated:
        scores = r["ratings"] or {}
        status = "ok" if r["ok"] else f"[red]failed: {r['error_type']}[/]"
        cells = [str(scores[c]["score"]) if c in scores else "-" for c in criteria]
        mean = "-" if r["mean"] is None else f"{r['mean']:.2f}"
        table.add_row(instance_id, r["judge"], status, *cells, mean)
    return table
