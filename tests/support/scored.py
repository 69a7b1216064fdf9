"""Assertions on a run's aggregates as `run --json` prints them."""

from __future__ import annotations

from typing import Any


def assert_main_scored(run: dict[str, Any], name: str) -> None:
    """Every answer has its main score; a jury-scored main metric (no jury configured here) is pending for every
    answer, never imputed, and its ROUGE-L is scored."""
    summary = run["run"]
    by_metric = {a["metric"]: a for a in run["aggregates"]}
    main = by_metric[summary["main_metric"]]
    assert summary["main_score"] == main["mean"], name  # the run's score is its main metric's, as stored
    if summary["main_metric"] == "jury_score":
        assert (main["n_scored"], main["n_pending"]) == (0, summary["n_ok"]), name
        assert by_metric["rouge_l"]["n_scored"] == summary["n_ok"], name
    else:
        assert main["n_scored"] == summary["n_ok"], name
