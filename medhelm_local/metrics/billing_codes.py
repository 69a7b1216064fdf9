"""ICD-10 billing codes read from an answer and compared with the admission's codes (mimiciv_billing_code).

`mimiciv_billing_code_micro_f1` (main): each instance records the true positives, false positives
and false negatives of its code set; the run's figure is 2TP / (2TP + FP + FN) over all of them
(`micro_f1` aggregation), the micro-F1 that automated ICD coding on MIMIC reports (Mullenbach et
al. 2018; Edin et al. 2023, whose MIMIC-IV ICD-10 preparation gives `mimiciv_icd10.feather`). Codes
are read whole and compared without their dots: ICD-10-CM ("E78.5", "E785", "S72.001A") and
ICD-10-PCS ("0DTJ4ZZ"), so a code is not cut short and procedure codes count.

`helm_mimiciv_billing_code_f1`: HELM's rule, to compare with the MedHELM leaderboard: codes read
with its pattern (a letter, 1-3 digits, optionally "." and 1-4 digits: "S72.001A" reads as "S72",
procedure codes are not read), F1 per instance, averaged over instances.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from medhelm_local.metrics.registry import TEXT_TASKS, MetricValue, ScoringContext, metric
from medhelm_local.records import Instance

BILLING_MICRO_F1 = "mimiciv_billing_code_micro_f1"
HELM_BILLING_F1 = "helm_mimiciv_billing_code_f1"
_READER = ("mimiciv_billing_code",)
# ICD-10-CM: a letter, a digit, a digit or letter, then up to 4 more after an optional dot.
# ICD-10-PCS: 7 characters of digits and letters other than I and O, at least one of them a digit.
_CM = r"[A-Z][0-9][0-9A-Z](?:\.?[0-9A-Z]{1,4})?"
_PCS = r"(?=[0-9A-HJ-NP-Z]*[0-9])[0-9A-HJ-NP-Z]{7}"
_CODE = re.compile(rf"(?<![0-9A-Za-z.])(?:{_PCS}|{_CM})(?![0-9A-Za-z])")
_HELM_CODE = re.compile(r"\b[A-Z]\d{1,3}(?:\.\d{1,4})?\.?\b")


def read_codes(text: str) -> set[str]:
    """The ICD-10 codes in a text, without dots (markdown bold removed first)."""
    return {code.replace(".", "") for code in _CODE.findall(text.replace("**", ""))}


def helm_codes(text: str) -> set[str]:
    """The codes HELM's metric reads from a text."""
    return {code.rstrip(".").strip() for code in _HELM_CODE.findall(text.replace("**", ""))}


def _counts(gold: set[str], read: set[str]) -> tuple[int, int, int]:
    return len(gold & read), len(read - gold), len(gold - read)


def _f1(tp: int, fp: int, fn: int) -> float:
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def _gold(instance: Instance, reader: Callable[[str], set[str]]) -> set[str]:
    codes: set[str] = set()
    for ref in instance.correct_references:
        codes |= reader(ref.text)
    return codes


@metric(BILLING_MICRO_F1, title="Micro-F1 over ICD-10 codes", task_types=TEXT_TASKS, needs=("reference",),
        readers=_READER, aggregation="micro_f1",
        follows="micro-F1 over code sets as automated ICD coding on MIMIC reports it (Mullenbach et al. 2018; Edin "
                "et al. 2023); codes read whole, dots ignored, ICD-10-CM and -PCS")
def billing_micro_f1(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """This instance's F1 of the code sets; its TP, FP and FN go into the run's micro-F1."""
    gold, read = _gold(instance, read_codes), read_codes(text)
    tp, fp, fn = _counts(gold, read)
    return MetricValue(_f1(tp, fp, fn), ",".join(sorted(read)), {"tp": tp, "fp": fp, "fn": fn})


@metric(HELM_BILLING_F1, title="HELM billing-code F1 (mean per instance)", task_types=TEXT_TASKS,
        needs=("reference",), readers=_READER,
        follows="HELM MIMICIVBillingCodeMetric: its code pattern, F1 per instance, averaged")
def helm_billing_f1(instance: Instance, text: str, ctx: ScoringContext) -> MetricValue:
    """This instance's F1 of the code sets as HELM reads them."""
    gold, read = _gold(instance, helm_codes), helm_codes(text.strip())
    return MetricValue(_f1(*_counts(gold, read)), ",".join(sorted(read)))
