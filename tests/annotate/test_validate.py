"""`judge validate`: the jury against a hospital's clinicians, MedHELM's validation table on local data."""

from __future__ import annotations

import csv
import hashlib
import json
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DEMO_DATASETS, isolate, run_cli, start_fake_server
from support import hostile
from support.jury import jury_config, write_generation_card

from medhelm_local.metrics.agreement import pairwise_icc
from medhelm_local.metrics.medhelm_agreement import Answer, medhelm_row
from medhelm_local.scenarios.datafiles import import_dataset
from medhelm_local.store.keys import write_new_kek

N = 30


@pytest.fixture(scope="module")
def judged_once(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str], dict[str, Any]]]:
    """A suite judged by two judges, run once for the module; the run's per-instance jury scores and ROUGE-L."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(tmp_path_factory, monkeypatch)
        root = tmp_path_factory.mktemp("judged")
        kek_file = root / "kek"
        write_new_kek(kek_file)
        data_root = root / "data"
        for folder in sorted(p for p in DEMO_DATASETS.iterdir() if p.is_dir()):
            import_dataset(folder, data_root)
        servers = [start_fake_server(root / "port-gen"), start_fake_server(root / "port-a"),
                   start_fake_server(root / "port-b", judge="fenced")]
        try:
            generator, judges = servers[0], {"judge-a": servers[1], "judge-b": servers[2]}
            cards = root / "cards"
            write_generation_card(cards, N)
            config = jury_config(root, data_root, generator.base_url, {k: s.base_url for k, s in judges.items()},
                                 cards)
            env = {"MEDHELM_KEK_FILE": str(kek_file)}
            done = run_cli("-c", str(config), "run", "ward_notes:model=local/m,model_deployment=gen", "--suite",
                           "ward", "--json", env=env)
            assert done.returncode == 0, done.stderr
            run_id = json.loads(done.stdout)["runs"][0]["run"]["run_id"]
            shown = json.loads(run_cli("-c", str(config), "show", run_id, "-n", "100", "--json", env=env).stdout)
            scores = {row["instance_id"]: {s["metric"]: s["value"] for s in row["scores"]}
                      for row in shown["instances"]}
            # The jury's composite over the criteria the clinicians below rate: per criterion the mean over the
            # judges.
            composite = {}
            for row in shown["instances"]:
                rated = [r["ratings"] for r in row["ratings"] if r["ok"]]
                composite[row["instance_id"]] = sum(sum(r[c]["score"] for r in rated) / len(rated)
                                                    for c in ("accuracy", "clarity")) / 2
            yield config, env, {"run_id": run_id, "scores": scores, "composite": composite}
        finally:
            for server in servers:
                server.process.terminate()
                server.process.wait(timeout=10)


@pytest.fixture
def judged(judged_once: tuple[Path, dict[str, str], dict[str, Any]],
           tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, Any]]:
    """The module's judged suite with this test's own copy of its results folder (`judge validate` writes there)
    and a config naming that copy; the data, cards, servers and KEK are the module's, and only read."""
    config, env, run = judged_once
    shutil.copytree(config.parent / "results", tmp_path / "results")
    own = tmp_path / "config.toml"
    text = config.read_text()
    assert text.count(str(config.parent / "results")) == 1, text
    own.write_text(text.replace(str(config.parent / "results"), str(tmp_path / "results")))
    return own, env, run


def _clinicians(path: Path, run_id: str, scores: dict[str, dict[str, float]], rows: list[dict[str, str]] | None = None,
                seed: int = 4) -> Path:
    """Two clinicians who rate like the jury give or take a point, the second only 20 of the answers."""
    rng = random.Random(seed)
    if rows is None:
        rows = []
        for n, (instance_id, values) in enumerate(sorted(scores.items())):
            for clinician in ("dr_a", "dr_b") if n < 20 else ("dr_a",):
                near = round(values["jury_score"]) + rng.choice((-1, 0, 0, 1))
                rows.append({"run_id": run_id, "instance_id": instance_id, "clinician": clinician,
                             "accuracy": str(min(5, max(1, near))), "clarity": str(rng.randint(3, 5))})
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_validate_reports_icc_of_jury_clinicians_and_rouge_with_intervals(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    config, env, run = judged
    ratings = _clinicians(tmp_path / "clinicians.csv", run["run_id"], run["scores"])

    done = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(ratings), "--json", env=env)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = {r["comparison"]: r for r in report["comparisons"]}
    assert list(rows) == ["jury vs clinicians", "clinician vs clinician", "rouge_l vs clinicians",
                          "jury vs clinicians: accuracy", "jury vs clinicians: clarity"]
    assert report["clinicians"] == ["dr_a", "dr_b"] and report["icc_form"] == "ICC(3,1)"
    jury = rows["jury vs clinicians"]
    assert jury["pairs"] == 2 and jury["instances"] == N
    assert jury["ci_low"] <= jury["icc_3_1"] <= jury["ci_high"]
    # The figure is the mean ICC over (jury, clinician) pairs, each clinician's rating the mean of their columns,
    # the jury's the mean over the same criteria.
    by_clinician: dict[str, dict[str, float]] = {}
    with ratings.open() as fh:
        for row in csv.DictReader(fh):
            by_clinician.setdefault(row["clinician"], {})[row["instance_id"]] = (
                (float(row["accuracy"]) + float(row["clarity"])) / 2)
    ids = sorted(run["scores"])
    columns = {"jury": [run["composite"][i] for i in ids],
               **{c: [given.get(i) for i in ids] for c, given in by_clinician.items()}}
    expected = pairwise_icc(columns, [("jury", "dr_a"), ("jury", "dr_b")])
    assert jury["icc_3_1"] == pytest.approx(expected[0])
    assert rows["clinician vs clinician"]["pairs"] == 1 and rows["clinician vs clinician"]["instances"] == 20

    table = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(ratings), env=env)
    assert table.returncode == 0 and "jury vs clinicians" in table.stdout and "ICC(3,1)" in table.stdout
    assert "MedHELM's validation table" in table.stdout and "ICC3k-z" in table.stdout


def test_validate_gives_medhelms_table_for_the_stores_jury(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    """MedHELM's four statistics on the run's benchmark, from the clinicians' mean composite and the jury's."""
    config, env, run = judged
    ratings = _clinicians(tmp_path / "clinicians.csv", run["run_id"], run["scores"])
    clinicians: dict[str, dict[str, float]] = {}
    with ratings.open() as fh:
        for row in csv.DictReader(fh):
            clinicians.setdefault(row["instance_id"], {})[row["clinician"]] = (
                (float(row["accuracy"]) + float(row["clarity"])) / 2)
    answers = [Answer(i, clinicians[i], run["composite"][i]) for i in sorted(clinicians)]
    expected = medhelm_row("ward_notes", answers, (1, 5))

    done = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(ratings), "--json", env=env)

    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (row,) = report["medhelm"]  # one benchmark: no pooled row
    assert (row["benchmark"], row["answers"], row["clinicians"]) == ("ward_notes", N, 2)
    assert report["jury_from"] == "store" and report["composite"] == ["accuracy", "clarity"]
    for name in ("icc3k_z", "spearman", "weighted_kappa", "clinicians_icc3k_z"):
        estimate = getattr(expected, name)
        assert [row[name]["value"], row[name]["low"], row[name]["high"]] == pytest.approx(
            [estimate.value, estimate.low, estimate.high])
    assert row["clinician_pair"] == ["dr_a", "dr_b"] and row["clinician_pair_answers"] == 20


def test_a_file_that_carries_the_jury_with_a_suite_named_is_a_clear_error(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    config, env, run = judged
    ratings = _clinicians(tmp_path / "clinicians.csv", run["run_id"], run["scores"])
    with ratings.open() as fh:
        rows = list(csv.DictReader(fh))
    rows.append({**rows[0], "clinician": "jury"})

    done = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings",
                   str(_clinicians(tmp_path / "both.csv", run["run_id"], run["scores"], rows)), env=env)

    assert done.returncode == 2
    assert "carries the jury's ratings, and a suite was named too" in " ".join(done.stderr.split())


@pytest.mark.parametrize(("edit", "message"), [
    (lambda r: r.__setitem__("instance_id", "q99999"), "1 instance id(s) are not instances of their run: q99999"),
    (lambda r: r.__setitem__("accuracy", "7"), "accuracy = '7' is off the rubric's scale (1-5)"),
    (lambda r: r.__setitem__("accuracy", "good"), "accuracy = 'good' is off the rubric's scale"),
    (lambda r: r.__setitem__("run_id", "other-run"), "run(s) other-run, which are not jury-scored runs"),
    (lambda r: r.__setitem__("empathy", "3"), "unknown: empathy"),
])
def test_a_bad_ratings_file_is_a_clear_error_and_nothing_is_written(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]],
        edit: Callable[[dict[str, str]], None], message: str) -> None:
    config, env, run = judged
    good = _clinicians(tmp_path / "good.csv", run["run_id"], run["scores"])
    with good.open() as fh:
        rows = list(csv.DictReader(fh))
    edit(rows[3])
    if "empathy" in rows[3]:
        for row in rows:
            row.setdefault("empathy", "")
    bad = _clinicians(tmp_path / "bad.csv", run["run_id"], run["scores"], rows)
    store = tmp_path / "results" / "ward.duckdb"
    before = hashlib.sha256(store.read_bytes()).hexdigest()

    done = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(bad), env=env)

    assert done.returncode == 2, done.stdout
    assert message in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
    assert "bad.csv" in done.stderr
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before


def test_an_empty_instance_id_or_extra_cells_are_refused_naming_the_line(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    """Issue 29, finding 8: an empty id cell was accepted and extra CSV cells dropped silently."""
    config, env, run = judged
    good = _clinicians(tmp_path / "good.csv", run["run_id"], run["scores"]).read_text().splitlines()
    cases = {"empty id": (lambda line: line.replace(line.split(",")[1], "", 1),
                          "line 5: the instance_id cell is empty"),
             "extra cells": (lambda line: line + ",4,5", "line 5 has 2 cell(s) more than the header's 5 columns")}
    for name, (edit, message) in cases.items():
        bad = tmp_path / "bad.csv"
        bad.write_text("\n".join(edit(line) if n == 4 else line for n, line in enumerate(good)) + "\n")
        done = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(bad), env=env)
        said = " ".join(done.stderr.split())
        assert done.returncode == 2 and "Traceback" not in done.stderr, f"{name}: {done.stderr}"
        assert message in said and str(bad) in said, f"{name}: {said}"


@pytest.mark.parametrize("kind", [k for k in hostile.GENERIC if k != "device" or hostile.can_make_devices()])
def test_hostile_ratings_files(tmp_path: Path, kind: str) -> None:
    """`judge validate --ratings` given what is not a CSV file (the CLI corpus in tests/cli/test_hostile_corpus.py
    has no judged run to reach this reader): a clear error naming the file, never a hang or a crash."""
    from medhelm_local.annotate.ratings_file import read_ratings_file
    from medhelm_local.annotate.rubric import load_rubric
    from medhelm_local.errors import ConfigError

    path = hostile.make(tmp_path / "ratings.csv", kind)

    with pytest.raises(ConfigError) as caught:
        read_ratings_file(path, load_rubric("clinical_text"), "run", needs_run=False)

    assert str(path) in caught.value.message


def test_the_template_lists_every_answer_with_the_rubrics_criteria_and_reads_back_once_filled_in(
        tmp_path: Path, judged: tuple[Path, dict[str, str], dict[str, Any]]) -> None:
    config, env, run = judged
    template = tmp_path / "to_rate.csv"
    written = run_cli("-c", str(config), "judge", "validate", "ward", "--template", str(template),
                      "--run", run["run_id"][:12], "--clinician", "dr_a", "--clinician", "dr_b", env=env)
    assert written.returncode == 0, written.stderr
    assert "accuracy" in written.stdout and "--ratings" in written.stdout
    with template.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["clinician", "run_id", "instance_id", "accuracy", "completeness", "clarity"]
    assert len(rows) == 2 * N and {r["instance_id"] for r in rows} == set(run["scores"])
    assert all(r["run_id"] == run["run_id"] and not r["accuracy"] for r in rows), "ids filled in, ratings blank"

    rng = random.Random(7)
    for n, row in enumerate(rows):  # dr_a rates every answer; dr_b the first 20, the rest left blank
        if row["clinician"] == "dr_a" or n % N < 20:
            row.update(accuracy=str(rng.randint(1, 5)), completeness=str(rng.randint(1, 5)),
                       clarity=str(rng.randint(1, 5)))
    filled = _clinicians(tmp_path / "filled.csv", run["run_id"], {}, rows=rows)
    checked = run_cli("-c", str(config), "judge", "validate", "ward", "--ratings", str(filled), "--json", env=env)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["clinicians"] == ["dr_a", "dr_b"]

    again = run_cli("-c", str(config), "judge", "validate", "ward", "--template", str(filled), env=env)
    assert again.returncode == 2 and "may hold ratings" in again.stderr, "a filled-in file is never overwritten"
    assert "dr_a" in filled.read_text()
