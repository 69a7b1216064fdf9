"""An exported report carries the jury-validation marks `report` shows (validated by clinicians or not: the figure,
its interval, n, r, date), signed in the manifest too; and an export refuses a report with an unvalidated jury
column where the policy (`jury_validation.refuse_unvalidated`) or `export --validated-only` says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.appliance import Appliance
from support.raters import clinicians_rate, jury_store
from support.review import approved_review, review_not_required

from medhelm_local.store.keys import Kek

TITLE = "MedicationQA"


@pytest.fixture
def jury_appliance(appliance: Appliance, kek: Kek) -> tuple[Appliance, str]:
    """The export appliance whose suite `ward` is a jury-scored run of 12 answers of the hospital's own (private)
    data: (appliance, run id)."""
    appliance.store.unlink()
    _, run_id = jury_store(appliance.results, kek, n=12, access="private", jury_score=True)
    return appliance, run_id


def _marked(columns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c["jury_validation"] for c in columns if c["jury_validation"]]


def _export(app: Appliance, out: Path, *extra: str) -> Any:
    return app.cli("export", "ward", "--to", str(out), "--role", "compliance_officer", *extra)


def test_the_exported_report_carries_the_marks_report_shows(jury_appliance: tuple[Appliance, str], kek: Kek) -> None:
    app, run_id = jury_appliance
    clinicians_rate(app.store, run_id, kek, agree=True)
    out = app.root / "bundle"
    review_id = approved_review(app, kek, "--include", "aggregates,report")  # its pages show private answers

    done = _export(app, out, "--include", "aggregates,report", "--review", review_id)
    shown = app.cli("report", "--store", str(app.store), "--format", "json")

    assert done.returncode == 0, done.stderr
    assert shown.returncode == 0, shown.stderr
    on_appliance = _marked(json.loads(shown.stdout)["columns"])
    exported = _marked(json.loads((out / "report" / "report.json").read_text())["columns"])
    assert len(exported) == 1 and exported == on_appliance  # the same figure, interval, n, r, date and reason
    mark = exported[0]
    assert mark["validated"] is True and mark["n_instances"] == 12 and mark["n_raters"] == 2
    assert isinstance(mark["value"], float) and mark["value"] >= 0.5
    index = (out / "report" / "index.html").read_text()
    assert 'id="jury-validation"' in index and f"<td>{mark['value']:.3f}</td>" in index
    benchmark = (out / "report" / "benchmarks" / "medication_qa.html").read_text()
    assert f"validated: ICC3k-z {mark['value']:.2f}" in benchmark and ", n 12, r 2, " in benchmark
    # The manifest states it too, under the signature: a recipient sees what was validated without the report.
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert [{k: v for k, v in m.items() if k != "column"} for m in manifest["jury_validation"]] == exported
    assert TITLE in manifest["jury_validation"][0]["column"]
    verified = app.cli("verify", str(out), "--public-key", str(app.public_key))
    assert verified.returncode == 0, verified.stderr
    # No clinician's rating leaves with the figure: the bundle holds no rating of theirs, nor their names.
    blob = b"\n".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"dr_a" not in blob and b"dr_b" not in blob and not (out / "ratings.jsonl").exists()


def test_without_a_campaign_the_exported_report_says_not_validated(jury_appliance: tuple[Appliance, str],
                                                                   kek: Kek) -> None:
    app, _ = jury_appliance
    out = app.root / "bundle"

    done = _export(app, out, "--include", "aggregates,report", "--review",
                   approved_review(app, kek, "--include", "aggregates,report"))

    assert done.returncode == 0, done.stderr
    mark = _marked(json.loads((out / "report" / "report.json").read_text())["columns"])[0]
    assert mark["validated"] is False and "no clinicians' rating campaign" in mark["reason"]
    assert 'class="badge jury not-validated"' in (out / "report" / "benchmarks" / "medication_qa.html").read_text()
    assert json.loads((out / "MANIFEST.json").read_text())["jury_validation"][0]["validated"] is False


@pytest.mark.parametrize("refused_by", ["policy", "option"])
def test_an_unvalidated_report_is_refused_by_policy_or_when_asked(jury_appliance: tuple[Appliance, str], kek: Kek,
                                                                   refused_by: str) -> None:
    app, run_id = jury_appliance
    review_not_required(app, "this test is about refusing unvalidated jury columns, which the review does not change")
    if refused_by == "policy":  # the hospital's rule, approved by its compliance officer
        app.edit_policy("export.yaml", "refuse_unvalidated: false", "refuse_unvalidated: true")
    option = ["--validated-only"] if refused_by == "option" else []
    out = app.root / "bundle"

    refused = _export(app, out, "--include", "aggregates,report", *option)
    without_report = _export(app, app.root / "numbers", "--include", "aggregates", *option)
    clinicians_rate(app.store, run_id, kek, agree=False)  # a campaign below the threshold does not help
    still = _export(app, out, "--include", "aggregates,report", *option)
    clinicians_rate(app.store, run_id, kek, agree=True)
    allowed = _export(app, out, "--include", "aggregates,report", *option)

    for done in (refused, still):
        assert done.returncode == 5 and "Traceback" not in done.stderr
        message = " ".join(done.stderr.split())
        assert "not validated by clinicians" in message and TITLE in message
        why = "jury_validation.refuse_unvalidated" if refused_by == "policy" else "only validated reports were asked"
        assert why in message
        assert "judge campaign" in message and "export without the report" in message
    assert "no clinicians' rating campaign" in " ".join(refused.stderr.split())
    assert "is below the policy's 0.5" in " ".join(still.stderr.split())
    assert without_report.returncode == 0, without_report.stderr  # the rule is about reports
    assert allowed.returncode == 0, allowed.stderr
    assert _marked(json.loads((out / "report" / "report.json").read_text())["columns"])[0]["validated"] is True
    outcomes = [r for r in app.audit_records(outcomes_only=True) if r["kind"].startswith("export.")]
    assert [r["kind"] for r in outcomes] == ["export.refused", "export.allowed", "export.refused", "export.allowed"]
    assert "not validated by clinicians" in outcomes[0]["details"]["reasons"][0]


@pytest.mark.parametrize("agree", [True, None])
def test_numbers_only_bundles_carry_the_marks_in_their_signed_manifest(jury_appliance: tuple[Appliance, str], kek: Kek,
                                                                       agree: bool | None) -> None:
    """Without the report, aggregates.json still holds the jury's score: the manifest says whether clinicians
    validated it (numbers only need no review)."""
    app, run_id = jury_appliance
    if agree is not None:
        clinicians_rate(app.store, run_id, kek, agree=agree)
    out = app.root / "numbers"

    done = _export(app, out, "--include", "aggregates")

    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == ["MANIFEST.json", "MANIFEST.json.sig", "aggregates.json",
                                                     "runs.json"]
    [mark] = json.loads((out / "MANIFEST.json").read_text())["jury_validation"]
    assert TITLE in mark["column"] and mark["validated"] is (agree is True)
    if agree:
        assert mark["n_instances"] == 12 and mark["n_raters"] == 2 and mark["value"] >= 0.5
    else:
        assert "no clinicians' rating campaign" in mark["reason"] and mark["value"] is None
    # The same marks as the report would carry: the report on the appliance shows this figure.
    shown = app.cli("report", "--store", str(app.store), "--format", "json")
    on_appliance = _marked(json.loads(shown.stdout)["columns"])
    assert [{k: v for k, v in mark.items() if k != "column"}] == on_appliance
    assert app.cli("verify", str(out), "--public-key", str(app.public_key)).returncode == 0
    blob = b"\n".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    assert b"dr_a" not in blob and b"dr_b" not in blob


def test_a_bundle_with_no_jury_scored_column_has_no_marks(appliance: Appliance) -> None:
    out = appliance.root / "numbers"
    done = _export(appliance, out, "--include", "aggregates")
    assert done.returncode == 0, done.stderr
    assert "jury_validation" not in json.loads((out / "MANIFEST.json").read_text())
