"""Which model build a run met: the builds its answers came from (completions.served_model, as the server
named them), counted, and the other runs of the same model on the same deployment that met another build.

A server can swap the weights behind a model name without a word (an `ollama pull`, a redeployed vLLM): the
answers' builds are how a run shows it, within the run (answers from two builds) or between runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ModelBuilds:
    """One run's model builds, and the runs of the same model and deployment that met other builds."""

    run_id: str
    builds: tuple[tuple[str, int], ...]  # (build, answers from it), most answers first
    others: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (run id, its builds) where they differ from this run's

    @property
    def changed_within(self) -> bool:
        """Whether the run's answers came from more than one build."""
        return len(self.builds) > 1

    def lines(self) -> list[str]:
        """What `show` prints: the builds met, and any swap within the run or against other runs."""
        if not self.builds:
            return ["  model build: not reported (no answer named one, or the answers were stored before v5)"]
        met = ", ".join(f"{build} ({count} answers)" for build, count in self.builds)
        lines = [f"  model build{'s' if self.changed_within else ''} met: {met}"]
        if self.changed_within:
            lines.append("  ! the server changed the model build during this run: its answers are not from one model")
        for run_id, builds in self.others:
            lines.append(f"  ! run {run_id} of the same model and deployment met {', '.join(builds) or 'no build'}")
        return lines

    def as_json(self) -> dict[str, Any]:
        """For `show --json`."""
        return {"builds": [{"build": b, "answers": n} for b, n in self.builds], "changed_within": self.changed_within,
                "other_runs": [{"run_id": r, "builds": list(b)} for r, b in self.others]}


def builds_by_run(con: Any, run_ids: Sequence[str] | None = None) -> dict[str, tuple[tuple[str, int], ...]]:
    """Per run, the builds its answers came from with their counts (runs with none are left out)."""
    where = "AND run_id IN (SELECT unnest($runs))" if run_ids is not None else ""
    params = {"runs": list(run_ids)} if run_ids is not None else {}
    found: dict[str, list[tuple[str, int]]] = {}
    for run_id, build, count in con.execute(
            "SELECT run_id, served_model, count(*) AS n FROM completions WHERE ok AND served_model IS NOT NULL "
            f"{where} GROUP BY run_id, served_model ORDER BY run_id, n DESC, served_model", params).fetchall():
        found.setdefault(run_id, []).append((build, int(count)))
    return {run_id: tuple(builds) for run_id, builds in found.items()}


def model_builds(con: Any, run_id: str) -> ModelBuilds:
    """One run's builds, against every other run of its model on its deployment in the store."""
    siblings = [r for (r,) in con.execute(
        "SELECT o.run_id FROM runs o JOIN runs r ON o.model = r.model AND o.deployment = r.deployment "
        "WHERE r.run_id = ? AND o.run_id != r.run_id ORDER BY o.created_at, o.run_id", [run_id]).fetchall()]
    found = builds_by_run(con, [run_id, *siblings])
    mine = found.get(run_id, ())
    names = {b for b, _ in mine}
    others = tuple((r, tuple(b for b, _ in found[r])) for r in siblings
                   if r in found and names and {b for b, _ in found[r]} != names)
    return ModelBuilds(run_id, mine, others)
