"""How the scorers read answers as real chat models write them: the hand-written corpus in tests/data/answers.

For every answer, the reply goes the way a run takes it (the client splits off any reasoning: an inline
`<think>` block or the `reasoning_content` field; a reply cut off inside its reasoning is a failed request),
then through the registered metric that reads it (multiple choice: exact_match; classification: exact_match
with the card's labels; calculation: medcalc_bench_accuracy or numeric_tolerance; generation: the text itself).
Each answer is then **read** (the reading is `expected`), **misread** (another reading, or a reading where the
corpus says there is none) or **unreadable** (no reading, with the reason the scorer gave). The strict HELM
metric (helm_exact_match, helm_medcalc_bench_accuracy) is checked against `expected_helm`.

    PYTHONPATH=. python bench/answers.py [--json] [--list-misreads]

Run against an older checkout (PYTHONPATH=that checkout) to measure its code: the script only uses what
every version has (the metric registry), and the reasoning split when the client offers it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from datetime import date, datetime
from pathlib import Path
from typing import Any

from medhelm_local.metrics.registry import ScoringContext
from medhelm_local.metrics.scoring import score_with
from medhelm_local.records import Instance, Reference

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "answers" / "corpus.jsonl"
TASKS = ("multiple_choice", "classification", "calculation", "generation")

try:  # the client's reasoning split (absent before issue 35: the reply's content was scored whole)
    from medhelm_local.client.reasoning import split_reasoning
except ImportError:  # pragma: no cover - an older checkout
    split_reasoning = None


def _reply(record: dict[str, Any]) -> tuple[str | None, str | None]:
    """The answer a run would score, or (None, reason) when the request itself failed."""
    answer = record["answer"]
    if split_reasoning is None:
        return answer, None
    split = split_reasoning(answer, record.get("reasoning_content"), record["finish_reason"])
    if split.failure is not None:
        return None, split.failure
    record["_helm_text"] = getattr(split, "helm_text", None)
    return split.answer, None


def _helm(name: str, instance: Instance, answer: str, ctx: ScoringContext, record: dict[str, Any]) -> Any:
    """A HELM-strict metric, given the reply as HELM's processors leave it where this version knows it."""
    completion = record.get("_helm_text")
    if completion is None:
        return score_with(name, instance, answer, ctx)
    return score_with(name, instance, answer, ctx, completion)


def _choice(record: dict[str, Any], answer: str) -> tuple[Any, str | None, int | None]:
    options = record["options"]
    references = tuple(Reference(text, letter == record["reference"]) for letter, text in options.items())
    instance = Instance(record["id"], record["question"], references)
    score = score_with("exact_match", instance, answer, ScoringContext())
    helm = _helm("helm_exact_match", instance, answer, ScoringContext(), record)
    return _reading(score), _reason(score), _value(helm)


def _label(record: dict[str, Any], answer: str) -> tuple[Any, str | None, int | None]:
    labels = tuple(record["labels"])
    instance = Instance(record["id"], record["question"], tuple(Reference(label, label == record["reference"])
                                                                 for label in labels))
    ctx = ScoringContext(labels=labels, synonyms=record["synonyms"], lettered=record["lettered"])
    score = score_with("exact_match", instance, answer, ctx)
    helm = _helm("helm_exact_match", instance, answer, ctx, record)
    return _reading(score), _reason(score), _value(helm)


def _calculation(record: dict[str, Any], answer: str) -> tuple[Any, str | None, int | None]:
    calc = record["calc"]
    medcalc = calc["medcalc"]
    if medcalc:
        kind = calc["kind"]
        integer = isinstance(record["reference_value"], int) and medcalc["category"] in ("risk", "severity",
                                                                                          "diagnosis")
        output_type = "date" if kind == "date" else "integer" if kind == "gestational_age" or integer else "decimal"
        extra = {"output_type": output_type, "lower_limit": medcalc["lower_limit"],
                 "upper_limit": medcalc["upper_limit"], "category": medcalc["category"],
                 "calculator": medcalc["calculator"]}
        instance = Instance(record["id"], record["question"], (Reference(record["reference"]),), extra=extra)
        score = score_with("medcalc_bench_accuracy", instance, answer, ScoringContext())
        helm = _helm("helm_medcalc_bench_accuracy", instance, answer, ScoringContext(), record)
    else:
        tolerance = calc["tolerance"]
        instance = Instance(record["id"], record["question"], (Reference(record["reference"]),))
        ctx = ScoringContext(tolerance_absolute=tolerance.get("absolute") or 0.0,
                             tolerance_relative=tolerance.get("relative") or 0.0)
        score = score_with("numeric_tolerance", instance, answer, ctx)
        helm = _helm("helm_exact_match", instance, answer, ScoringContext(labels=(record["reference"],)), record)
    return _value_read(calc["kind"], _reading(score)), _reason(score), _value(helm)


def _reading(score: Any) -> Any:
    if score is None or score.value is None:
        return None
    detail = score.detail or {}
    if "unreadable" in detail:
        return None
    return detail.get("read", score.extracted) if "read" in detail else score.extracted


def _reason(score: Any) -> str | None:
    if score is None:
        return "not scored"
    if score.value is None:
        return score.error or "failed"
    detail = score.detail or {}
    return detail.get("unreadable") or ("no reading" if _reading(score) is None else None)


def _value(score: Any) -> int | None:
    return None if score is None or score.value is None else int(score.value)


def _value_read(kind: str, extracted: Any) -> Any:
    """A calculation reading in the corpus's form: a number, an ISO date, [weeks, days]."""
    if extracted is None:
        return None
    if kind == "gestational_age" and isinstance(extracted, int):  # days
        return [extracted // 7, extracted % 7]
    if isinstance(extracted, (int, float, list)) and not isinstance(extracted, bool):
        return extracted
    text = str(extracted)
    try:
        if kind == "date":
            return datetime.strptime(text, "%m/%d/%Y").date().isoformat()
        if kind == "gestational_age":
            weeks, _, rest = text.partition(" weeks, ")
            return [int(weeks), int(rest.split()[0])]
        return float(text)
    except ValueError:
        return text


def _same(expected: Any, read: Any) -> bool:
    if isinstance(expected, (int, float)) and isinstance(read, (int, float)):
        return math.isclose(float(expected), float(read), rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(expected, str) and isinstance(read, date):
        return expected == read.isoformat()
    return bool(expected == read)


def evaluate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per task type: read / misread / unreadable counts, readable answers missed, reasons, HELM mismatches."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    misreads: list[dict[str, Any]] = []
    helm_wrong: list[str] = []
    for record in records:
        task = record["task"]
        answer, failure = _reply(record)
        helm: int | None = None
        if answer is None:
            read, reason = None, failure
        elif task == "multiple_choice":
            read, reason, helm = _choice(record, answer)
        elif task == "classification":
            read, reason, helm = _label(record, answer)
        elif task == "calculation":
            read, reason, helm = _calculation(record, answer)
        else:
            text = answer.strip()
            empty_is_answer = record["benchmark"] == "ehr_sql"
            read, reason = (text, None) if text or empty_is_answer else (None, "empty")
        expected = record["expected"]
        if read is None:
            counts[task]["unreadable"] += 1
            counts[task]["missed"] += expected is not None
            reasons[task][reason or "no reading"] += 1
        elif expected is not None and _same(expected, read):
            counts[task]["read"] += 1
        else:
            counts[task]["misread"] += 1
            misreads.append({"id": record["id"], "answer": record["answer"][:120], "expected": expected,
                             "read": read if not isinstance(read, date) else read.isoformat()})
        if record["expected_helm"] is not None and (helm or 0) != record["expected_helm"]:
            helm_wrong.append(record["id"])
    return {"counts": {t: dict(counts[t]) for t in TASKS}, "reasons": {t: dict(reasons[t]) for t in TASKS},
            "misreads": misreads, "helm_mismatches": helm_wrong}


def main(argv: list[str] | None = None) -> int:
    """Print the table (or JSON); exit 1 when any answer is misread or HELM's rule is not matched."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--list-misreads", action="store_true")
    args = parser.parse_args(argv)
    records = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    result = evaluate(records)
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        print(f"{'task':<16} {'answers':>7} {'read':>5} {'misread':>7} {'unreadable':>10} {'(readable missed)':>17}")
        for task in TASKS:
            c = result["counts"][task]
            total = sum(c.get(k, 0) for k in ("read", "misread", "unreadable"))
            print(f"{task:<16} {total:>7} {c.get('read', 0):>5} {c.get('misread', 0):>7} {c.get('unreadable', 0):>10} "
                  f"{c.get('missed', 0):>17}")
        for task in TASKS:
            shown = ", ".join(f"{k} {v}" for k, v in sorted(result["reasons"][task].items()))
            print(f"unreadable {task}: {shown or '-'}")
        print(f"helm_strict_mismatches {len(result['helm_mismatches'])}: {' '.join(result['helm_mismatches'])}")
        misread_total = sum(c.get("misread", 0) for c in result["counts"].values())
        print(f"misreads {misread_total}")
        if args.list_misreads:
            for m in result["misreads"]:
                print(json.dumps(m, ensure_ascii=False))
    failed = result["misreads"] or result["helm_mismatches"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
