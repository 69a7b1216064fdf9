"""Write tests/data/answers/corpus.jsonl from the hand-written items beside this script.

The answers, their expected readings and the reasons for unreadable ones are written by hand in
items_multiple_choice.py, items_classification.py, items_calculation.py and items_generation.py,
without reference to medhelm-local's answer-reading code. Only three fields are derived here, from
rules stated in README.md: `expected_correct` (the expected reading against the reference),
`expected_helm` (HELM's published scoring rule applied to the raw answer) and `id`.
The output is byte-for-byte reproducible; tests/metrics/test_answer_corpus_format.py checks that
the committed corpus is what this script writes.

Run: python tests/data/answers/build_corpus.py [OUT]   (default: tests/data/answers/corpus.jsonl)
"""

from __future__ import annotations

import json
import re
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import items_calculation  # noqa: E402
import items_classification  # noqa: E402
import items_generation  # noqa: E402
import items_multiple_choice  # noqa: E402

_THINK_CLOSED = re.compile("<think>.*</think>", re.DOTALL)
_THINK_OPEN = re.compile("<think>.*", re.DOTALL)
_DURATION = re.compile(r"\('(\d+) weeks', '(\d+) days'\)")


def helm_completion(answer: str) -> str:
    """The completion as HELM's metrics see it: its reasoning-model deployments drop <think> blocks
    (output_processors.remove_thinking: a closed block, then an unclosed one), then metrics strip."""
    return _THINK_OPEN.sub("", _THINK_CLOSED.sub("", answer)).strip()


def helm_exact_match(reference: str, answer: str) -> int:
    """HELM's exact_match: an empty prediction scores 0; else the stripped texts must be identical.
    For multiple choice the joint adapter maps the completion through {letter: option text}, so only
    the exact letter (case included) reaches the correct option's text."""
    pred = helm_completion(answer)
    return 1 if pred and pred == reference.strip() else 0


def _duration_days(text: str) -> int:
    match = _DURATION.match(text)
    if not match:
        raise ValueError(text)
    return int(match.group(1)) * 7 + int(match.group(2))


def helm_medcalc(reference: str, answer: str, medcalc: dict[str, str]) -> int:
    """HELM's MedCalcBenchMetric: exact text for risk, severity and diagnosis; the whole answer as a
    float (dosage conversion, physical), an m/d/Y date or a ('W weeks', 'D days') tuple (date) within
    the published limits; any other category (lab) is not supported and scores 0."""
    pred = helm_completion(answer)
    category = medcalc["category"]
    if category in ("risk", "severity", "diagnosis"):
        return 1 if pred == reference else 0
    lower, upper = medcalc["lower_limit"], medcalc["upper_limit"]
    try:
        if category == "date":
            if _DURATION.match(reference):
                return 1 if _duration_days(lower) <= _duration_days(pred) <= _duration_days(upper) else 0
            fmt = "%m/%d/%Y"
            found = datetime.strptime(pred, fmt)
            return 1 if datetime.strptime(lower, fmt) <= found <= datetime.strptime(upper, fmt) else 0
        if category in ("dosage conversion", "physical"):
            return 1 if float(lower) <= float(pred) <= float(upper) else 0
    except ValueError:
        return 0
    return 0


def _calc_bounds(item: dict[str, Any]) -> tuple[Any, Any]:
    """The closed interval of correct values for a calculation item, in its value's form."""
    calc, ref = item["calc"], item["reference_value"]
    if calc["kind"] == "gestational_age":
        days = ref[0] * 7 + ref[1]
        return days, days
    if calc["kind"] == "date":
        if calc.get("medcalc"):
            lo, hi = (datetime.strptime(calc["medcalc"][k], "%m/%d/%Y").date().isoformat()
                      for k in ("lower_limit", "upper_limit"))
            return lo, hi
        return ref, ref
    if calc.get("medcalc"):
        return float(calc["medcalc"]["lower_limit"]), float(calc["medcalc"]["upper_limit"])
    tol = calc["tolerance"]
    slack = max(tol.get("absolute") or 0.0, (tol.get("relative") or 0.0) * abs(ref))
    return ref - slack, ref + slack


def _expected_correct(item: dict[str, Any]) -> bool | None:
    expected = item["expected"]
    if expected is None or item["task"] == "generation":
        return None
    if item["task"] in ("multiple_choice", "classification"):
        return bool(expected == item["reference"])
    lo, hi = _calc_bounds(item)
    value = expected[0] * 7 + expected[1] if item["calc"]["kind"] == "gestational_age" else expected
    if item["calc"]["kind"] == "date":
        date.fromisoformat(value)  # a malformed expected date is a corpus error, not a wrong answer
    return bool(lo <= value <= hi)


def _helm(item: dict[str, Any]) -> tuple[str | None, int | None]:
    if item["task"] == "generation":
        return None, None
    answer = item["answer"]
    medcalc = item.get("calc", {}).get("medcalc")
    if medcalc:
        return "medcalc_bench", helm_medcalc(item["reference"], answer, medcalc)
    return "exact_match", helm_exact_match(item["reference"], answer)


FIELD_ORDER = ("id", "task", "benchmark", "class", "question", "options", "labels", "synonyms", "lettered",
               "calc", "answer", "reasoning_content", "finish_reason", "reference", "reference_value",
               "expected", "expected_reason", "expected_correct", "helm_rule", "expected_helm", "note")


def build() -> list[dict[str, Any]]:
    """Every corpus record, ids assigned in file order within each task type."""
    records = []
    for prefix, module in (("mc", items_multiple_choice), ("cls", items_classification),
                           ("calc", items_calculation), ("gen", items_generation)):
        for number, item in enumerate(module.ITEMS, start=1):
            record = dict(item, id=f"{prefix}-{number:03d}")
            record["expected_correct"] = _expected_correct(record)
            record["helm_rule"], record["expected_helm"] = _helm(record)
            unknown = set(record) - set(FIELD_ORDER)
            if unknown:
                raise ValueError(f"{record['id']}: unknown field(s) {sorted(unknown)}")
            records.append({key: record[key] for key in FIELD_ORDER if key in record})
    return records


def render(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else HERE / "corpus.jsonl"
    out.write_text(render(build()), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv)
