"""Tie groups on the leaderboard, from a real store: two models that differ only by noise share a rank group,
a clearly better one stands alone, and every format shows the groups."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from support.report_store import FakeRun, write_store

from medhelm_local.report import render_text
from medhelm_local.report.inputs import open_sources
from medhelm_local.report.read_model import Report
from medhelm_local.report.site import write_site
from medhelm_local.store.keys import Kek


def _report(tmp_path: Path, kek: Kek, site: Path | None = None) -> Report:
    # 12 instances. strong answers all; noisy_a answers 0-2 and noisy_b 3-5 (the same accuracy, different instances):
    # noisy_a vs noisy_b differ +1 on three and -1 on three, p = 1; strong vs either differs +1 on nine,
    # p = 2/2^9 = 0.0039, Holm x3 = 0.0117 < 0.05.
    def values(correct: set[int]) -> list[float]:
        return [1.0 if i in correct else 0.0 for i in range(12)]

    write_store(tmp_path / "s.duckdb", kek, "s", [
        FakeRun("local/strong", "pubmed_qa", 12, values=values(set(range(12)))),
        FakeRun("local/noisy_a", "pubmed_qa", 12, values=values({0, 1, 2})),
        FakeRun("local/noisy_b", "pubmed_qa", 12, values=values({3, 4, 5}))])
    sources = open_sources([tmp_path / "s.duckdb"], kek)
    try:
        report = sources.report()
        if site is not None:
            write_site(report, sources.by_run(), site)
        return report
    finally:
        sources.close()


def test_noise_ties_and_a_clearly_better_model_ranks_alone(tmp_path: Path, kek: Kek) -> None:
    report = _report(tmp_path, kek)
    [column] = [c for c in report.leaderboard.columns if c.benchmark == "pubmed_qa"]
    assert report.rank_group(column.key, "local/strong") == "1"
    assert report.rank_group(column.key, "local/noisy_a") == "2-3"
    assert report.rank_group(column.key, "local/noisy_b") == "2-3"
    tests = {(t.a, t.b): t for t in report.ties[column.key].pairs}
    assert tests[("local/noisy_a", "local/noisy_b")].p_value == 1.0
    assert tests[("local/noisy_a", "local/strong")].p_holm < 0.05


def test_every_format_shows_the_rank_groups(tmp_path: Path, kek: Kek) -> None:
    report = _report(tmp_path, kek, tmp_path / "site")
    [column] = [c for c in report.leaderboard.columns if c.benchmark == "pubmed_qa"]
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert page.count("rank 2-3</span>") == 2 and page.count("rank 1</span>") == 1
    assert "Holm" in (tmp_path / "site" / "methods.html").read_text(encoding="utf-8")
    markdown = render_text(report, "md")
    assert "rank 2-3" in markdown and "Holm" in markdown
    rows = list(csv.DictReader(io.StringIO(render_text(report, "csv"))))
    assert {r["model"]: r["rank_group"] for r in rows if r["main"] == "True"} == {
        "local/strong": "1", "local/noisy_a": "2-3", "local/noisy_b": "2-3"}
    data = json.loads(render_text(report, "json"))
    assert data["tie_groups"][column.key]["correction"] == "Holm"
    assert data["tie_groups"][column.key]["ranks"]["local/noisy_b"]["label"] == "2-3"
    [strong] = [r for r in data["leaderboard"]["rows"] if r["model"] == "local/strong"]
    assert strong["cells"][column.key]["rank_group"] == "1"
