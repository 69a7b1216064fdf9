"""MIMIC-IV billing codes: the Feather file read as MedHELM reads it, scored by micro-F1 over codes."""

from __future__ import annotations

from pathlib import Path

from medhelm_local.metrics.aggregate import ScoreRow, summarise
from medhelm_local.metrics.billing_codes import BILLING_MICRO_F1, HELM_BILLING_F1
from medhelm_local.metrics.registry import get as metric
from medhelm_local.scenarios import DataRoot, create


def test_rows_with_codes_become_instances_with_the_codes_joined(gated_root: Path) -> None:
    bench = create("mimiciv_billing_code")
    instances = bench.load(DataRoot(gated_root))

    assert [(i.id, i.correct_references[0].text) for i in instances] == [
        ("row-000001", "I10,E78.5"), ("row-000002", "J18.9"), ("row-000003", "S72.001A,W19.XXXA,0QS604Z")]
    assert bench.render(instances[0]).text == (
        "Given the following clinical note, identify all relevant ICD-10 codes.\n\nNote:\ndischarge diagnosis: "
        "essential hypertension, hyperlipidemia.\nPredicted ICD-10 Codes:\n")
    assert bench.main_metric == BILLING_MICRO_F1


def test_micro_f1_pools_codes_over_the_run_and_helms_rule_averages_instances(gated_root: Path) -> None:
    bench = create("mimiciv_billing_code")
    hypertension, pneumonia, fracture = bench.load(DataRoot(gated_root))
    answers = [(hypertension, "I10, E78.5"), (pneumonia, "J18.9 and R50.9"), (fracture, "**S72.001A**, 0QS604Z")]

    scores = {i.id: {s.metric: s for s in bench.score(i, text)} for i, text in answers}

    assert scores["row-000001"][BILLING_MICRO_F1].detail == {"tp": 2, "fp": 0, "fn": 0}
    assert scores["row-000002"][BILLING_MICRO_F1].detail == {"tp": 1, "fp": 1, "fn": 0}
    assert scores["row-000003"][BILLING_MICRO_F1].detail == {"tp": 2, "fp": 0, "fn": 1}
    rows = [ScoreRow(s[BILLING_MICRO_F1].value, s[BILLING_MICRO_F1].detail) for s in scores.values()]
    run = summarise(metric(BILLING_MICRO_F1), 3, rows, 0)
    assert run.mean == 2 * 5 / (2 * 5 + 1 + 1) and run.detail == {"tp": 5, "fp": 1, "fn": 1}
    # HELM reads "S72.001A" as "S72" (in the answer and the reference) and never the procedure code.
    assert scores["row-000003"][HELM_BILLING_F1].extracted == "S72"
    assert scores["row-000003"][HELM_BILLING_F1].value == 2 / 3  # its reference: S72, W19
    assert scores["row-000002"][HELM_BILLING_F1].value == 2 / 3
