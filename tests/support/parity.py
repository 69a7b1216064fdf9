"""Score the parity vectors (tests/metrics/parity/*.jsonl) with our metrics and compare with the references.

A metric that claims a reference must agree with it on every vector. A documented improvement is
compared with the reference it improves on; its disagreements are counted by case, and every case
that disagrees must be one the README of the vectors explains (`EXPLAINED`).
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from medhelm_local.metrics.registry import ScoringContext, get
from medhelm_local.metrics.scoring import score_answer
from medhelm_local.metrics.sql_executor import SqliteExecutor
from medhelm_local.records import Instance, Reference
from support.eicu_db import build

VECTORS = Path(__file__).resolve().parents[1] / "metrics" / "parity"


@dataclass(frozen=True)
class Claim:
    """A metric, the vector family it is checked on, and the reference column it is compared with."""

    metric: str
    family: str
    reference: str
    claims: bool  # True: must agree everywhere; False: a documented improvement


CLAIMS = (
    Claim("medcalc_bench_official", "medcalc_bench", "medcalc_bench_official", True),
    Claim("helm_medcalc_bench_accuracy", "medcalc_bench", "helm_medcalc_bench_accuracy", True),
    Claim("medcalc_bench_accuracy", "medcalc_bench", "medcalc_bench_official", False),
    Claim("helm_medec_error_flag_accuracy", "medec", "helm_medec_error_flag_accuracy", True),
    Claim("helm_medec_error_sentence_accuracy", "medec", "helm_medec_error_sentence_accuracy", True),
    Claim("medec_error_flag_accuracy", "medec", "helm_medec_error_flag_accuracy", False),
    Claim("medec_error_sentence_accuracy", "medec", "helm_medec_error_sentence_accuracy", False),
    Claim("helm_ehr_sql_execution_accuracy", "ehr_sql", "helm_ehr_sql_execution_accuracy", True),
    Claim("helm_ehr_sql_query_validity", "ehr_sql", "helm_ehr_sql_query_validity", True),
    Claim("ehr_sql_execution_accuracy", "ehr_sql", "helm_ehr_sql_execution_accuracy", False),
    Claim("ehr_sql_query_validity", "ehr_sql", "helm_ehr_sql_query_validity", False),
)


_NO_ROWS = "the gold query returns no rows: the same (no) rows score 1 here; HELM compares with the value strings (0)"
_NOW = "the gold uses current_time: EHRSQL's fixed 2105-12-31 here, SQLite's clock (dated 2000-01-01) in HELM"
_FENCE = "the SQL is read out of the text here; HELM runs 'Here is the query:' / 'SQL Query:' as SQL (an error)"
# Why each case a documented improvement departs from its reference (the README's table, as data).
EXPLAINED: dict[str, dict[str, str]] = {
    "medcalc_bench_accuracy": {
        "last_number_unit": "the value, not a unit's digit ('14.5 kg/m^2' is 14.5); the official reader takes the "
                            "last number (2)",
        "equation": "the value after the last '=' here, as the official reader takes it",
        "explanation_after": "the value, not the inputs quoted after it; the official reader takes the last number "
                             "('height 175 cm')",
        "last_number": "the value, not a bracket after it; the official reader takes the last ('(criteria met: 3)')",
        "json_field": "the \"answer\" field here too, as the official reader reads it",
        "expression": "'str(25.238)' is 25.238 here (the value in brackets); the official reader evaluates it",
        "iso_date": "'2014-09-23' is a date here; the official reader wants MM/DD/YYYY",
        "days_only": "'99 days' is 14 weeks 1 day here; the official reader wants weeks and days",
        "percent": "'1.5%' is 1.5 here; the official reader divides by 100",
        "scientific": "'2.5238e+01' is 25.238 here; the official reader takes '01' (an error)",
        "integer_rounding": "integers must be whole here ('4.4' is not 4); the official check rounds",
        "banker_rounding": "integers must be whole here; the official check rounds half to even ('4.5' is 4)",
        "leading_zero": "'04' is 4 here; the official check evaluates it as Python (a syntax error)",
        "comma_list": "'3, 3' is 3 here; the official reader counts the items of a comma list (2)",
        "out_of": "'-1 out of 10' is -1 here; the official reader drops the sign",
        "expression_round": "an expression is not evaluated here; the official reader evaluates str(...)",
        "date_in_sentence": "a date is read anywhere here; the official reader wants it at the start",
        "tuple": "a bare '(14, 1)' is not read as weeks and days here; the official reader takes any two numbers",
        "digits_run_together": "'141' is not 14 weeks 1 day here; the official reader splits the digits",
        "brackets": "'[14, 1]' is not read as weeks and days here; the official reader takes any two numbers",
    },
    "medec_error_flag_accuracy": {
        "correct_period": "'CORRECT.' says the note is correct here; HELM wants exactly 'CORRECT'",
        "correct_lower": "'correct' says the note is correct here; HELM wants exactly 'CORRECT'",
        "says_correct": "'The text is CORRECT.' says the note is correct here; HELM counts it as flagging an error",
        "empty": "an empty answer flags nothing here; HELM counts it as flagging an error",
        "unsure": "an unreadable answer flags nothing here; HELM counts it as flagging an error",
    },
    "medec_error_sentence_accuracy": {
        **{case: "the sentence id is compared with the reference's id here; HELM reads '<id> <sentence>' as one "
                 "number, fails, and scores 0 on every note with an error"
           for case in ("reference_itself", "id_only", "id_period", "sentence_label", "not_correct",
                        "correction_label", "cue")},
        "correct_period": "'CORRECT.' is the verdict CORRECT here; HELM wants exactly 'CORRECT'",
        "correct_lower": "'correct' is the verdict CORRECT here; HELM wants exactly 'CORRECT'",
        "says_correct": "'The text is CORRECT.' is the verdict CORRECT here; HELM wants exactly 'CORRECT'",
    },
    "ehr_sql_execution_accuracy": {
        "fenced_in_text": _FENCE, "cue": _FENCE, "empty_gold_fenced_in_text": _FENCE, "empty_gold_cue": _FENCE,
        "without_distinct": "repeated rows count here (multisets); HELM compares sets",
        "empty_gold_without_distinct": _NO_ROWS,
        **{case: f"{_NOW}; or {_NO_ROWS}" for case in ("gold", "gold_semicolon", "fenced", "tagged", "constant")},
        **{f"empty_gold_{case}": _NO_ROWS for case in ("gold", "gold_semicolon", "fenced", "tagged")},
        "fixed_now": _NOW, "empty_gold_fixed_now": _NO_ROWS,
        "empty": "the gold returns no rows and the question has no values: HELM wants an empty answer (1), "
                 "here an empty answer returns no rows to compare (0)",
        "empty_gold_empty": "the question has no values: HELM wants an empty answer (1); here it is 0",
    },
    "ehr_sql_query_validity": {"fenced_in_text": _FENCE, "cue": _FENCE, "empty_gold_fenced_in_text": _FENCE,
                               "empty_gold_cue": _FENCE},
}


@dataclass
class Outcome:
    """What comparing one metric with its reference found."""

    claim: Claim
    checked: int = 0
    disagreements: list[tuple[dict[str, Any], float | None]] = field(default_factory=list)

    def by_case(self) -> Counter[str]:
        """Disagreements counted by the vector's case."""
        return Counter(str(vector["case"]) for vector, _ in self.disagreements)


def vectors(family: str) -> list[dict[str, Any]]:
    """The vectors of one family, as stored."""
    lines = (VECTORS / f"{family}.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _medcalc(vector: dict[str, Any]) -> Instance:
    extra = {"output_type": vector["output_type"], "lower_limit": vector["lower"], "upper_limit": vector["upper"],
             "category": vector["category"], "calculator_id": vector["calculator_id"]}
    return Instance(f"row-{vector['row']}", "", (Reference(vector["truth"]),), extra=MappingProxyType(extra))


def _medec(vector: dict[str, Any]) -> Instance:
    reference = vector["reference"]
    flagged = reference != "CORRECT"
    extra = {"error_flag": "1" if flagged else "0", "error_sentence_id": reference.split()[0] if flagged else "-1",
             "error_type": ""}
    return Instance(vector["note"], "", (Reference(reference),), extra=MappingProxyType(extra))


def _ehr_sql(vector: dict[str, Any]) -> Instance:
    extra = {"is_impossible": "true" if vector["is_impossible"] else "false", "template": "",
             "value": json.dumps(vector["value"])}
    return Instance(vector["question"], "", (Reference(vector["gold"]),), extra=MappingProxyType(extra))


INSTANCES = {"medcalc_bench": _medcalc, "medec": _medec, "ehr_sql": _ehr_sql}


@cache
def invented_database() -> Path:
    """The invented eICU database the EHRSQL vectors were scored on (built once per process)."""
    folder = Path(tempfile.mkdtemp(prefix="parity-eicu-"))
    return build(folder / "eicu.sqlite", [v["value"] for v in vectors("ehr_sql")])


def context(family: str) -> ScoringContext:
    """The scoring context a family's vectors need (the database for EHRSQL)."""
    if family != "ehr_sql":
        return ScoringContext()
    path = invented_database()
    return ScoringContext(args={"db": str(path)}, resources={"ehr_sql_executor": SqliteExecutor(path)})


def compare(claim: Claim) -> Outcome:
    """Score every vector of the claim's family with its metric and note where it departs from the reference."""
    outcome = Outcome(claim)
    spec, ctx = get(claim.metric), context(claim.family)
    for vector in vectors(claim.family):
        scores = score_answer(INSTANCES[claim.family](vector), vector["answer"], [spec], ctx)
        value = scores[0].value if scores else None
        outcome.checked += 1
        if value != float(vector[claim.reference]):
            outcome.disagreements.append((vector, value))
    return outcome


def outcomes() -> Iterator[Outcome]:
    """Every claim compared, in CLAIMS order."""
    for claim in CLAIMS:
        yield compare(claim)


def claims_of(family: str, *, claims: bool) -> list[Claim]:
    """The claims on one family: those that follow a reference (claims=True) or improve on one."""
    return [claim for claim in CLAIMS if claim.family == family and claim.claims == claims]


def check_agreement(claim: Claim, at_least: int) -> None:
    """Fail unless the metric gives its reference's score on every one of at least `at_least` vectors."""
    outcome = compare(claim)
    assert outcome.checked >= at_least
    assert [(v["case"], v["answer"], v[claim.reference], got) for v, got in outcome.disagreements] == []


def check_departures_explained(claim: Claim) -> None:
    """Fail unless a documented improvement departs from its reference, and only in explained cases."""
    outcome = compare(claim)
    assert set(outcome.by_case()) <= set(EXPLAINED[claim.metric])
    assert outcome.disagreements  # an improvement that never departs would need no documenting
