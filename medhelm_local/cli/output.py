"""Terminal output: results tables and JSON to stdout; progress (`medhelm_local.progress.BarProgress`, drawn on
`err`) and messages to stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich loads on first use: `run --quiet` and JSON output print nothing through it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

from medhelm_local.records import Aggregate
from medhelm_local.results.aggregates import aggregate_dict
from medhelm_local.results.outcomes import RunOutcome
from medhelm_local.store.queries import RunSummary


class LazyConsole:
    """A rich Console, made the first time something is printed through it (attributes pass through).

    A command that prints nothing to the terminal (`run --quiet`, `--json`: a Kubernetes Job, a
    pipeline) then never loads rich: ~25-40 ms of every start-up here.
    """

    def __init__(self, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def console(self) -> Console:
        """The Console itself."""
        if self._console is None:
            from rich.console import Console

            console = Console(stderr=self._stderr)
            if not self._stderr and not console.is_terminal:  # pipes and CI logs: tables not squeezed into 80
                console.width = 160
            self._console = console
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


out = LazyConsole()
err = LazyConsole(stderr=True)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def results_table(outcomes: Sequence[RunOutcome], title: str = "Results") -> Table:
    """Main metric per run with its interval, and how many instances were scored, failed or pending."""
    from rich.table import Table

    table = Table(title=title)
    for col, justify in [("benchmark", "left"), ("model", "left"), ("metric", "left"), ("score", "right"),
                         ("95% CI", "right"), ("n", "right"), ("scored", "right"), ("failed", "right"),
                         ("pending", "right"), ("mean latency s", "right")]:
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for o in outcomes:
        main = next((a for a in o.aggregates if a.metric == o.summary.main_metric), None)
        n_failed = o.summary.n_failed
        if main is None:
            main = Aggregate(o.summary.main_metric, o.summary.n_instances, 0, n_failed, None, None, None)
        ci = "-" if main.ci_low is None else f"[{main.ci_low:.3f}, {main.ci_high:.3f}]"
        table.add_row(o.summary.scenario, o.summary.model, main.metric, _fmt(main.mean), ci, str(main.n),
                      str(main.n_scored), f"[red]{main.n_failed}[/]" if main.n_failed else "0",
                      str(main.n_pending), _fmt(o.summary.mean_latency_s, 3))
    return table


def runs_table(runs: Sequence[RunSummary], store: str) -> Table:
    """Runs of a store with their progress; each id whole (never cut to fit), its shortest unique prefix in bold."""
    from rich.table import Table
    from rich.text import Text

    from medhelm_local.store.run_ids import shortest_unique_prefixes

    table = Table(title=f"Runs in {store}")
    prefixes = shortest_unique_prefixes([r.run_id for r in runs])
    # The id is what `show`, `export` and `judge --run` take: the other columns fold or shrink before it does.
    table.add_column("run id", no_wrap=True, min_width=max((len(r.run_id) for r in runs), default=6))
    for col in ("suite", "benchmark", "model", "deployment", "main metric", "score", "n", "ok", "failed", "updated"):
        table.add_column(col, overflow="fold")
    for r in runs:
        shown = Text(r.run_id)
        shown.stylize("bold", 0, len(prefixes[r.run_id]))
        table.add_row(shown, r.suite, r.scenario, r.model, r.deployment, r.main_metric, _fmt(r.main_score),
                      str(r.n_instances), str(r.n_ok), f"[red]{r.n_failed}[/]" if r.n_failed else "0",
                      r.updated_at.strftime("%Y-%m-%d %H:%M"))
    return table


def instances_table(rows: Sequence[dict[str, Any]], title: str) -> Table:
    """Per-instance rows: answer, extracted answer and score, or the failure reason."""
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for col in ("instance", "status", "answer", "extracted", "scores", "attempts"):
        table.add_column(col, overflow="fold")
    for row in rows:
        if row["ok"] is None:
            status, answer = "pending", ""
        elif row["ok"]:
            status, answer = "ok", (row["text"] or "").strip().replace("\n", " ")[:60]
        else:
            status, answer = f"[red]failed: {row['error_type']}[/]", (row["error_message"] or "")[:60]
        scores = row["scores"] or []
        extracted = next((s["extracted"] for s in scores if s["extracted"] is not None), "") or ""
        shown = " ".join(f"{s['metric']}={s['value']:g}" if s["value"] is not None
                         else f"{s['metric']}=[red]failed ({s['error']})[/]" for s in scores)
        table.add_row(row["instance_id"], status, answer, str(extracted), shown, str(row["attempts"] or ""))
    return table


def instance_details(rows: Sequence[dict[str, Any]]) -> list[Text]:
    """Per instance, for review on the appliance: the prompt, the reference(s) and the whole answer."""
    from rich.text import Text

    shown = []
    for row in rows:
        block = Text()
        block.append(f"── {row['instance_id']} ", style="bold")
        block.append("\nprompt:\n", style="dim")
        block.append(str(row.get("prompt") or ""))
        block.append("\nreference:\n", style="dim")
        block.append("\n".join(row.get("references") or []))
        block.append("\nanswer:\n", style="dim")
        block.append(row["text"] if row["ok"] else f"(failed: {row['error_type']})")
        shown.append(block)
    return shown


def classification_tables(aggregates: Sequence[Aggregate]) -> list[Table]:
    """Per-label counts and the confusion table of each aggregate that has them (macro-F1)."""
    from rich.table import Table

    tables = []
    for agg in aggregates:
        detail = agg.detail or {}
        per_label = detail.get("per_label")
        confusion = detail.get("confusion")
        if not isinstance(per_label, dict) or not isinstance(confusion, dict):
            continue
        counts = Table(title=f"{agg.metric}: per label")
        for col in ("label", "support", "tp", "fp", "fn", "F1"):
            counts.add_column(col, justify="left" if col == "label" else "right")
        for label, c in per_label.items():
            counts.add_row(label, *(str(int(c[k])) for k in ("support", "tp", "fp", "fn")), f"{c['f1']:.3f}")
        read = sorted({r for row in confusion.values() for r in row})
        matrix = Table(title="confusion (rows: gold label, columns: label read)")
        matrix.add_column("gold")
        for label in read:
            matrix.add_column(label, justify="right")
        for gold, row in confusion.items():
            matrix.add_row(gold, *(str(row.get(label, 0)) for label in read))
        tables += [counts, matrix]
    return tables


def print_json(data: Any) -> None:
    """Write machine-readable output to stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def outcome_json(o: RunOutcome) -> dict[str, Any]:
    """One run's outcome as plain data."""
    return {"run": asdict(o.summary), "aggregates": [aggregate_dict(a) for a in o.aggregates],
            "sent": o.sent, "reused": o.reused, "failed_now": o.failed_now, "all_failed": o.all_failed,
            "wall_s": round(o.wall_s, 3), "judging": o.judging}
