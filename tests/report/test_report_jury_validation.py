"""Reports mark each jury-scored column validated by clinicians (MedHELM's figure, its interval, n, r, date) or not,
from the rating campaigns in a real encrypted store and the policy's threshold; and refuse unvalidated ones when
asked to, or when the policy says so."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import SHIPPED_POLICIES, run_cli
from support.raters import clinicians_rate, jury_store
from support.report_viewer import serving

from medhelm_local.store.keys import Kek

TITLE = "MedicationQA"


def _env(tmp_path: Path, kek_file: Path, refuse: bool = False) -> dict[str, str]:
    policies = tmp_path / "policies"
    shutil.copytree(SHIPPED_POLICIES, policies)
    if refuse:
        export = policies / "export.yaml"
        export.write_text(export.read_text().replace("refuse_unvalidated: false", "refuse_unvalidated: true"))
    return {"MEDHELM_KEK_FILE": str(kek_file), "MEDHELM_POLICY_DIR": str(policies)}


def _marks(store: Path, env: dict[str, str], *extra: str) -> dict[str, dict[str, object]]:
    done = run_cli("report", "--store", str(store), "--format", "json", *extra, env=env)
    assert done.returncode == 0, done.stderr
    return {c["key"]: c["jury_validation"] for c in json.loads(done.stdout)["columns"] if c["jury_validation"]}


def test_a_campaign_that_agrees_with_the_jury_validates_its_column(tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    env = _env(tmp_path, kek_file)
    store, run_id = jury_store(tmp_path / "results", kek, n=12, jury_score=True)
    clinicians_rate(store, run_id, kek, agree=True)

    marks = _marks(store, env)
    markdown = run_cli("report", "--store", str(store), "--format", "md", env=env)
    site = run_cli("report", "--store", str(store), "--out", str(tmp_path / "site"), env=env)

    assert len(marks) == 1  # the jury score; the benchmark's other columns are no jury's
    mark = next(iter(marks.values()))
    assert mark["validated"] is True and mark["statistic"] == "ICC3k-z" and mark["threshold"] == 0.5
    assert isinstance(mark["value"], float) and mark["value"] > 0.9
    assert isinstance(mark["ci_low"], float) and mark["ci_low"] <= mark["value"] <= mark["ci_high"]  # type: ignore
    assert (mark["n_instances"], mark["n_raters"], mark["campaign"]) == (12, 2, "campaign-1")
    assert mark["date"] == datetime.now(UTC).strftime("%Y-%m-%d")
    assert markdown.returncode == 0 and "## Jury scores checked by clinicians" in markdown.stdout
    assert f"| validated | {mark['value']:.3f} |" in markdown.stdout
    assert site.returncode == 0, site.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    benchmark = (tmp_path / "site" / "benchmarks" / "medication_qa.html").read_text()
    assert 'id="jury-validation"' in index and f"<td>{mark['value']:.3f}</td>" in index
    assert 'class="badge jury validated"' in benchmark
    assert f"validated: ICC3k-z {mark['value']:.2f}" in benchmark and ", n 12, r 2, " in benchmark


def test_below_the_threshold_or_without_a_campaign_a_column_is_not_validated(tmp_path: Path, kek: Kek,
                                                                              kek_file: Path) -> None:
    env = _env(tmp_path, kek_file)
    store, run_id = jury_store(tmp_path / "results", kek, n=12, jury_score=True)

    none = next(iter(_marks(store, env).values()))
    clinicians_rate(store, run_id, kek, agree=False)
    below = next(iter(_marks(store, env).values()))

    assert none["validated"] is False and "no clinicians' rating campaign" in str(none["reason"])
    assert none["value"] is None and none["n_instances"] is None
    assert below["validated"] is False and isinstance(below["value"], float) and below["value"] < 0.5
    assert "is below the policy's 0.5" in str(below["reason"]) and below["n_raters"] == 2
    site = run_cli("report", "--store", str(store), "--out", str(tmp_path / "site"), env=env)
    assert site.returncode == 0
    assert 'class="badge jury not-validated"' in (tmp_path / "site" / "benchmarks" / "medication_qa.html").read_text()


def test_a_later_campaign_replaces_an_earlier_one(tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    env = _env(tmp_path, kek_file)
    store, run_id = jury_store(tmp_path / "results", kek, n=12, jury_score=True)
    clinicians_rate(store, run_id, kek, agree=True)
    clinicians_rate(store, run_id, kek, agree=False)

    mark = next(iter(_marks(store, env).values()))

    assert mark["campaign"] == "campaign-2" and mark["validated"] is False


@pytest.mark.parametrize("refuse_by", ["option", "policy"])
def test_unvalidated_jury_columns_are_refused_when_asked_or_by_policy(tmp_path: Path, kek: Kek, kek_file: Path,
                                                                      refuse_by: str) -> None:
    env = _env(tmp_path, kek_file, refuse=refuse_by == "policy")
    store, run_id = jury_store(tmp_path / "results", kek, n=12, jury_score=True)
    option = ["--validated-only"] if refuse_by == "option" else []
    out = tmp_path / "report.json"

    refused = run_cli("report", "--store", str(store), "--format", "json", "--out", str(out), *option, env=env)
    site = run_cli("report", "--store", str(store), "--out", str(tmp_path / "site"), *option, env=env)

    for done in (refused, site):
        assert done.returncode != 0 and "Traceback" not in done.stderr
        message = " ".join(done.stderr.split())
        assert "not validated by clinicians" in message and TITLE in message and "judge campaign" in message
        assert "judge validate" in message
        assert ("refuse_unvalidated" if refuse_by == "policy" else "--validated-only") in message
    assert not out.exists() and not (tmp_path / "site").exists()

    clinicians_rate(store, run_id, kek, agree=True)
    allowed = run_cli("report", "--store", str(store), "--format", "json", "--out", str(out), *option, env=env)
    assert allowed.returncode == 0, allowed.stderr
    assert next(c for c in json.loads(out.read_text())["columns"] if c["jury_validation"])["jury_validation"][
        "validated"] is True


def test_the_viewer_marks_jury_columns_too(tmp_path: Path, kek: Kek, kek_file: Path) -> None:
    env = _env(tmp_path, kek_file)
    store, run_id = jury_store(tmp_path / "results", kek, n=12, jury_score=True)
    clinicians_rate(store, run_id, kek, agree=True)

    with serving("--store", str(store), "--port", "0", env=env) as viewer:
        status, _, index = viewer.authorised("/")
        data = json.loads(viewer.authorised("/report.json")[2])

    assert status == 200 and b'id="jury-validation"' in index
    assert next(c for c in data["columns"] if c["jury_validation"])["jury_validation"]["validated"] is True
