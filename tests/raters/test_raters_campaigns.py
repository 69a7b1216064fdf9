"""Rating campaigns in a real encrypted store: sized by Bonett's method, seeded, balanced, and validated from
the store with the same table `judge validate` prints from a ratings file."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import run_cli
from support.raters import add_rater, jury_store

from medhelm_local.annotate.rubric import load_rubric
from medhelm_local.errors import ConfigError
from medhelm_local.raters.campaigns import campaign, create_campaign, queue, record_rating
from medhelm_local.raters.sample_size import answers_needed, interval_width
from medhelm_local.store.database import open_store
from medhelm_local.store.keys import Kek


def test_bonetts_sample_size_matches_his_worked_example() -> None:
    # Bonett (2002): 4 raters, ICC 0.85, an interval 0.2 wide: n = 19.2, so 20 subjects.
    assert answers_needed(0.85, 4, 0.2) == 20
    assert answers_needed(0.47, 2, 0.3) > answers_needed(0.47, 2, 0.4) > answers_needed(0.47, 3, 0.4)
    assert interval_width(0.47, 2, answers_needed(0.47, 2, 0.3)) <= 0.3
    with pytest.raises(ConfigError, match="at least two ratings"):
        answers_needed(0.5, 1, 0.3)


def test_a_campaign_is_seeded_and_gives_each_answer_overlap_raters(tmp_path: Path, kek: Kek) -> None:
    store, run_id = jury_store(tmp_path, kek, n=12)
    handle = open_store(store, kek)
    try:
        made = create_campaign(handle.con, run_id, ["a", "b", "c"], 9, 2, 5, "as asked", "tester")
        again = create_campaign(handle.con, run_id, ["a", "b", "c"], 9, 2, 5, "as asked", "tester")
        rows = handle.con.execute("SELECT campaign_id, rater, instance_id, position FROM rating_assignments "
                                  "ORDER BY 1, 2, 4").fetchall()
    finally:
        handle.close()
    assert (made.campaign_id, again.campaign_id) == ("campaign-1", "campaign-2")
    first = [r[1:] for r in rows if r[0] == "campaign-1"]
    second = [r[1:] for r in rows if r[0] == "campaign-2"]
    assert sorted(r[:2] for r in first) == sorted(r[:2] for r in second)  # same seed: same sample, same raters
    per_answer = Counter(r[1] for r in first)
    assert len(per_answer) == 9 and set(per_answer.values()) == {2}
    per_rater = Counter(r[0] for r in first)
    assert sorted(per_rater.values()) == [6, 6, 6]
    orders = {rater: [iid for who, iid, _ in first if who == rater] for rater in per_rater}
    assert orders["a"] != sorted(orders["a"]) or orders["b"] != sorted(orders["b"])  # shuffled per rater


def test_a_rating_must_cover_every_criterion_on_the_scale(tmp_path: Path, kek: Kek) -> None:
    store, run_id = jury_store(tmp_path, kek, n=4)
    rubric = load_rubric("patient_answer")
    handle = open_store(store, kek)
    try:
        found = create_campaign(handle.con, run_id, ["a", "b"], 2, 2, 1, "as asked", "tester")
        for bad in ({"accuracy": 4}, {"accuracy": 9, "completeness": 3, "clarity": 3}):
            with pytest.raises(ConfigError, match="every criterion"):
                record_rating(handle.con, found, rubric, "a", 1, bad, "")
        with pytest.raises(ConfigError, match="not in this rater's queue"):
            record_rating(handle.con, found, rubric, "a", 3, None, "")
        record_rating(handle.con, found, rubric, "a", 1, None, "")
        record_rating(handle.con, found, rubric, "a", 2, {"accuracy": 4, "completeness": 3, "clarity": 5}, "ok")
        record_rating(handle.con, found, rubric, "a", 2, {"accuracy": 5, "completeness": 3, "clarity": 5}, "")
        entries = queue(handle.con, "campaign-1", "a")
        stored = handle.con.execute("SELECT ratings_json FROM clinician_ratings WHERE NOT skipped").fetchall()
        assert campaign(handle.con, "campaign-1") is not None
    finally:
        handle.close()
    assert [(e.rated, e.skipped) for e in entries] == [(False, True), (True, False)]
    assert [json.loads(r[0])["accuracy"] for r in stored] == [5]  # changed their mind: one row, the last


def test_validate_reads_a_campaigns_ratings_from_the_store_as_from_a_file(tmp_path: Path, kek: Kek,
                                                                         kek_file: Path) -> None:
    env = {"MEDHELM_KEK_FILE": str(kek_file)}
    store, run_id = jury_store(tmp_path / "results", kek, n=8)
    for name in ("dr_a", "dr_b"):
        add_rater(name, env)
    done = run_cli("judge", "campaign", "ward", "--output", str(store.parent), "--run", run_id, "--raters",
                   "dr_a,dr_b", "--seed", "2", env=env)
    assert done.returncode == 0, done.stderr
    assert "Bonett" in done.stdout and "only 8 answers" in done.stdout and "campaign-1" in done.stdout
    rubric = load_rubric("patient_answer")
    rows = []
    handle = open_store(store, kek)
    try:
        found = campaign(handle.con, "campaign-1")
        assert found is not None and found.instances == 8
        for n, rater in enumerate(("dr_a", "dr_b")):
            for entry in queue(handle.con, "campaign-1", rater):
                iid = record_rating(handle.con, found, rubric, rater, entry.position,
                                    {"accuracy": 1 + (entry.position + n) % 5, "completeness": 3, "clarity": 4}, "")
                rows.append({"clinician": rater, "run_id": run_id, "instance_id": iid,
                             "accuracy": str(1 + (entry.position + n) % 5), "completeness": "3", "clarity": "4"})
    finally:
        handle.close()
    ratings = tmp_path / "ratings.csv"
    with ratings.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    from_store = run_cli("judge", "validate", "ward", "--output", str(store.parent), "--campaign", "campaign-1",
                         "--jury", "medhelm", "--json", env=env)
    from_file = run_cli("judge", "validate", "ward", "--output", str(store.parent), "--ratings", str(ratings),
                        "--jury", "medhelm", "--json", env=env)

    assert from_store.returncode == 0, from_store.stderr
    assert from_file.returncode == 0, from_file.stderr
    store_report, file_report = json.loads(from_store.stdout), json.loads(from_file.stdout)
    assert store_report["clinicians"] == ["dr_a", "dr_b"] and store_report["jury_from"] == "store"
    assert store_report["medhelm"] == file_report["medhelm"]
    assert store_report["comparisons"] == file_report["comparisons"]
    table = run_cli("judge", "validate", "ward", "--output", str(store.parent), "--campaign", "campaign-1",
                    "--jury", "medhelm", env=env)
    assert table.returncode == 0 and "MedHELM's validation table" in table.stdout and "ICC(3,1)" in table.stdout
    missing = run_cli("judge", "validate", "ward", "--output", str(store.parent), "--campaign", "campaign-9", env=env)
    assert missing.returncode != 0 and "campaign-1" in missing.stderr and "Traceback" not in missing.stderr


def test_clinicians_ratings_are_in_no_export_artifact() -> None:
    """Ratings stay on the appliance until a policy names them: no artifact an export builds reads their tables."""
    from medhelm_local.policy.file_schemas import ARTIFACTS
    from medhelm_local.store.schema import artifact_tables, table

    exported = {t.name for artifact in ARTIFACTS for t in artifact_tables(artifact)}
    assert exported and not exported & {"rating_campaigns", "rating_assignments", "clinician_ratings"}
    assert table("clinician_ratings").column("comment").treatment == "text"  # a redacted copy redacts comments
