"""Slices: each metric per slice value with interval and counts, the largest gap with a two-sample interval, by
hand-computed numbers; and a run of a card with slice keys, shown by `show`."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import FakeServer, run_cli, write_config

from medhelm_local.metrics.aggregate import bootstrap_ci
from medhelm_local.metrics.slices import InstanceOutcome, largest_gap, slice_metric


def _outcome(sex: str, score: float | None, failed: bool = False) -> InstanceOutcome:
    return InstanceOutcome({"sex": sex}, score, failed)


def test_each_value_has_its_mean_interval_and_counts_and_failures_are_counted_not_scored() -> None:
    # F: 1, 1, 0 scored and one failed request (mean 2/3); M: 0, 1, 0, 0 (mean 1/4); X: one pending instance.
    outcomes = [_outcome("F", 1.0), _outcome("F", 1.0), _outcome("F", 0.0), _outcome("F", None, failed=True),
                _outcome("M", 0.0), _outcome("M", 1.0), _outcome("M", 0.0), _outcome("M", 0.0),
                _outcome("X", None)]
    sliced = slice_metric("exact_match", "sex", outcomes)
    by_value = {v.value: v for v in sliced.values}
    assert [v.value for v in sliced.values] == ["F", "M", "X"]
    assert (by_value["F"].n, by_value["F"].n_scored, by_value["F"].n_failed, by_value["F"].n_pending) == (4, 3, 1, 0)
    assert by_value["F"].mean == pytest.approx(2 / 3)
    assert (by_value["F"].ci_low, by_value["F"].ci_high) == bootstrap_ci([1.0, 1.0, 0.0])
    assert by_value["M"].mean == pytest.approx(0.25) and by_value["M"].n_scored == 4
    assert by_value["X"].mean is None and by_value["X"].n_pending == 1
    gap = sliced.gap
    assert gap is not None and (gap.high, gap.low) == ("F", "M")
    assert gap.gap == pytest.approx(2 / 3 - 1 / 4)
    assert gap.ci_low <= gap.gap <= gap.ci_high


def test_the_gap_interval_is_a_two_sample_bootstrap() -> None:
    # Constant slices: every resample has the same means, so the interval is the gap itself (0.9 - 0.2 = 0.7).
    gap = largest_gap("ward", {"a": [0.9] * 5, "b": [0.2] * 8, "c": [0.5] * 3})
    assert gap is not None and (gap.high, gap.low) == ("a", "b")
    assert (gap.gap, gap.ci_low, gap.ci_high) == pytest.approx((0.7, 0.7, 0.7))
    # 50 instances of 1/0 at 0.8 against 50 at 0.2: the gap 0.6, its interval about 0.6 +- 1.96 * sqrt(2 * .16/50).
    wide = largest_gap("sex", {"F": [1.0] * 40 + [0.0] * 10, "M": [1.0] * 10 + [0.0] * 40})
    assert wide is not None and wide.gap == pytest.approx(0.6)
    half = 1.96 * (2 * 0.16 / 50) ** 0.5
    assert wide.ci_low == pytest.approx(0.6 - half, abs=0.04) and wide.ci_high == pytest.approx(0.6 + half, abs=0.04)
    assert largest_gap("sex", {"F": [1.0], "M": []}) is None


def _card(folder: Path) -> Path:
    # 12 rows; the model answers "yes" to everything. F: 5 of 6 references are yes (5/6); M: 1 of 6 (1/6).
    folder.mkdir(parents=True, exist_ok=True)
    rows = [(f"c{i:02d}", "F" if i < 6 else "M", "yes" if (i < 5 or i == 6) else "no",
             "" if i == 11 else ("<40" if i % 2 else "40+")) for i in range(12)]
    with (folder / "triage.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "question", "answer", "sex", "age_band"])
        writer.writerows([(i, f"Case {i}: admit?", a, s, g) for i, s, a, g in rows])
    (folder / "triage.yaml").write_text("""card: 2
name: triage_slices
description: Admission decisions (synthetic, for tests).
access: private
taxonomy:
  subcategory: Supporting Diagnostic Decisions
data:
  file: triage.csv
columns:
  id: id
  reference: answer
task:
  type: classification
  labels: ["yes", "no"]
prompt:
  template: "{question}"
  output_noun: Answer
  max_tokens: 4
slices: [sex, age_band]
""")
    return folder


def test_show_gives_every_metric_per_slice_value_and_the_largest_gap(
        tmp_path: Path, data_root: Path, kek_file: Path, fake_server: Callable[..., FakeServer]) -> None:
    cards = _card(tmp_path / "cards")
    server = fake_server(answer="yes")
    config = write_config(tmp_path / "config.toml", data_root, tmp_path / "results", {"clinic": {
        "base_url": server.base_url}}, extra=f'benchmark_cards = ["{cards}"]')
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    done = run_cli("-c", str(config), "run", "triage_slices:model=local/m,model_deployment=clinic", "--suite", "s",
                   "--json", env=env)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["runs"][0]["run"]["run_id"]
    shown = run_cli("-c", str(config), "show", run_id, "--suite", "s", "--json", env=env)
    assert shown.returncode == 0, shown.stderr
    sliced = {(s["metric"], s["key"]): s for s in json.loads(shown.stdout)["slices"]}
    by_sex = sliced[("exact_match", "sex")]
    means = {v["value"]: (v["mean"], v["n"], v["n_scored"], v["n_failed"]) for v in by_sex["values"]}
    assert means == {"F": (pytest.approx(5 / 6), 6, 6, 0), "M": (pytest.approx(1 / 6), 6, 6, 0)}
    assert by_sex["largest_gap"]["high"] == "F" and by_sex["largest_gap"]["gap"] == pytest.approx(4 / 6)
    # age_band: 40+ holds c00, c02, c04, c06, c08, c10 (yes: c00, c02, c04, c06 -> 4/6); <40 holds c01, c03, c05,
    # c07, c09 (yes: c01, c03 -> 2/5); c11 has none -> (blank), 0/1.
    ages = {v["value"]: (v["mean"], v["n"]) for v in sliced[("exact_match", "age_band")]["values"]}
    assert ages == {"40+": (pytest.approx(4 / 6), 6), "<40": (pytest.approx(2 / 5), 5), "(blank)": (0.0, 1)}
    text = run_cli("-c", str(config), "show", run_id, "--suite", "s", env=env).stdout
    assert "exact_match by sex:" in text and "largest gap: F - M = 0.667" in " ".join(text.split())
    # The report: a slice table on the benchmark's page, and the slices in its JSON.
    done = run_cli("-c", str(config), "report", "s", "--out", str(tmp_path / "site"), env=env)
    assert done.returncode == 0, done.stderr
    [page] = [p for p in (tmp_path / "site").rglob("*.html") if "triage_slices" in p.name and "run" not in str(p)]
    html = " ".join(page.read_text(encoding="utf-8").split())
    assert "<h2>Slices</h2>" in html and "by <code>sex</code>" in html and "F − M =" in html
    assert '<span class="value">0.667</span>' in html
    data = json.loads(run_cli("-c", str(config), "report", "s", "--format", "json", env=env).stdout)
    [found] = data["slices"].values()
    assert {(s["key"], v["value"]): v["n"] for s in found for v in s["values"]}[("sex", "F")] == 6


def test_a_card_names_slices_only_of_its_own_data_file_each_once(tmp_path: Path) -> None:
    from medhelm_local.errors import ConfigError, DatasetCorruptError
    from medhelm_local.scenarios.datafiles import DataRoot
    from medhelm_local.scenarios.registry import load_spec

    card = _card(tmp_path / "cards") / "triage.yaml"
    assert load_spec(card).card.slices == ["sex", "age_band"]
    card.write_text(card.read_text().replace("slices: [sex, age_band]", "slices: [sex, sex]"))
    with pytest.raises(ConfigError, match="slices names a column twice"):
        load_spec(card)
    card.write_text(card.read_text().replace("slices: [sex, sex]", "slices: [sex, ward]"))
    with pytest.raises(DatasetCorruptError, match="ward"):
        list(load_spec(card).create().reading(DataRoot(tmp_path))[1])
