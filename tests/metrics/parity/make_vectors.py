"""Write the parity vectors' inputs (answer, reference) from real benchmark rows, with MedCalc-Bench's
official verdict for each answer template (derived by reading its evaluation; see README.md).

HELM's verdicts are filled in afterwards by derive_helm.py, which runs HELM's own metric classes.
Run from the repository root with the shared datasets beside it:

    .venv/bin/python tests/metrics/parity/make_vectors.py ../shared/datasets
    /path/to/venv-with-crfm-helm/bin/python tests/metrics/parity/derive_helm.py

It never imports medhelm_local: the expected values must not come from the code they check.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROWS_PER_CALCULATOR = 4
Row = dict[str, str]
Vector = dict[str, object]


def _number(text: str) -> float:
    return float(text)


def _within(value: float, row: Row) -> int:
    return int(_number(row["Lower Limit"]) <= value <= _number(row["Upper Limit"]))


def _integer_cases(row: Row) -> Iterator[tuple[str, str, int]]:
    """(case, answer, official verdict) for a score: the last number, rounded half to even."""
    g = int(row["Ground Truth Answer"])
    yield "exact", str(g), 1
    yield "integer_rounding", f"{g}.4", 1
    yield "banker_rounding", f"{g}.5", int(g % 2 == 0)
    yield "off_by_one", str(g + 1), 0
    yield "sentence", f"The score is {g} points.", 1
    yield "last_number", f"{g} points (criteria met: 3)", int(g == 3)
    yield "out_of", f"{g} out of 10", int(g >= 0)
    yield "leading_zero", f"0{g}" if g >= 0 else f"-0{-g}", int(g == 0)
    yield "comma_list", f"{g}, {g}", int(g == 2)
    yield "cue", f"Answer: {g}", 1
    yield "json_field", f'{{"answer": "{g}"}}', 1
    yield "scientific", f"{g}e0", int(g == 0)
    yield "empty", "", 0
    yield "not_a_number", "N/A", 0


def _decimal_cases(row: Row) -> Iterator[tuple[str, str, int]]:
    """(case, answer, official verdict) for a decimal: eGFR unit, then last percent / 100, then last number."""
    gt = row["Ground Truth Answer"]
    v = _number(gt)
    yield "exact", gt, _within(v, row)
    yield "units", f"{gt} mL/min", _within(v, row)
    yield "last_number_unit", f"{gt} kg/m^2", _within(2, row)
    yield "equation", f"140 - 38 = {gt}", _within(v, row)
    yield "explanation_after", f"{gt}. Computed with weight 70 kg and height 175 cm.", _within(175, row)
    yield "percent", f"{gt}%", _within(v / 100, row)
    sci = f"{v:.4e}"
    exponent = sci.split("e")[1]
    yield "scientific", sci, _within(0, row) if exponent == "+00" else 0
    yield "egfr_unit", f"{gt} mL/min/1.73 m²", _within(v, row)
    yield "limit", f"about {row['Lower Limit']}", _within(_number(row["Lower Limit"]), row)
    yield "outside", f"{v * 1.2 + 1:.3f}", _within(float(f"{v * 1.2 + 1:.3f}"), row)
    # "--0.8" reads as -0.8: the reader's number may start at the second minus sign.
    yield "negative", f"-{gt}", _within(v if gt.startswith("-") else -v, row)
    yield "expression", f"str({gt})", _within(v, row)
    yield "expression_round", f"str(round({gt} * 2 / 2, 1))", _within(round(v * 2 / 2, 1), row)
    yield "json_field", f'{{"step_by_step_thinking": "weight 70 kg", "answer": "{gt}"}}', _within(v, row)
    if v >= 1000:
        yield "thousands", f"{v:,.3f}", _within(float(f"{v:,.3f}".split(",")[-1]), row)
    yield "empty", "", 0


def _date_cases(row: Row) -> Iterator[tuple[str, str, int]]:
    """(case, answer, official verdict) for a date: M/D/YYYY at the very start, equal to the truth."""
    gt = row["Ground Truth Answer"]
    day = datetime.strptime(gt, "%m/%d/%Y")
    yield "exact", gt, 1
    yield "date_no_zero_pad", f"{day.month}/{day.day}/{day.year}", 1
    yield "date_in_sentence", f"The estimated date is {gt}.", 0
    yield "date_then_text", f"{gt} (estimated)", 1
    yield "iso_date", day.strftime("%Y-%m-%d"), 0
    yield "off_by_one_day", (day + timedelta(days=1)).strftime("%m/%d/%Y"), 0
    yield "leading_space", f" {gt}", 1
    yield "empty", "", 0


def _gestational_cases(row: Row) -> Iterator[tuple[str, str, int]]:
    """(case, answer, official verdict) for (weeks, days): the first pair of digit runs, as integers."""
    weeks, days = (int(part.split()[0].strip("('")) for part in row["Ground Truth Answer"].split(", "))
    yield "exact", row["Ground Truth Answer"], 1
    yield "tuple", f"({weeks}, {days})", 1
    yield "words", f"{weeks} weeks {days} days", 1
    yield "words_comma", f"{weeks} weeks, {days} days", 1
    yield "digits_run_together", f"{weeks}{days}", 1
    total = str(weeks * 7 + days)
    split = (total[:-1], total[-1]) if len(total) > 1 else None
    valid = split is not None and not (len(split[0]) > 1 and split[0].startswith("0"))
    read_as = (int(split[0]), int(split[1])) if valid and split is not None else None
    yield "days_only", f"{total} days", int(read_as == (weeks, days))
    yield "next_week", f"({weeks + 1}, {days})", 0
    yield "brackets", f"[{weeks}, {days}]", 1
    digits = str(weeks)
    yield "weeks_only", f"{weeks} weeks", int(len(digits) > 1 and (int(digits[:-1]), int(digits[-1])) == (weeks, days))
    yield "empty", "", 0


CASES: dict[str, Callable[[Row], Iterator[tuple[str, str, int]]]] = {
    "date": _date_cases, "gestational": _gestational_cases, "integer": _integer_cases, "decimal": _decimal_cases,
}


def _kind(row: Row) -> str:
    calculator = int(row["Calculator ID"])
    if calculator in (13, 68):
        return "date"
    if calculator == 69:
        return "gestational"
    return "integer" if row["Output Type"] == "integer" else "decimal"


def medcalc_vectors(datasets: Path) -> list[Vector]:
    """Every template on up to ROWS_PER_CALCULATOR rows of each calculator of the test CSV."""
    with (datasets / "medcalc_bench" / "test_data.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    taken: dict[str, int] = {}
    vectors: list[Vector] = []
    for row in rows:
        if taken.setdefault(row["Calculator ID"], 0) >= ROWS_PER_CALCULATOR:
            continue
        taken[row["Calculator ID"]] += 1
        for case, answer, verdict in CASES[_kind(row)](row):
            vectors.append({"case": case, "row": row["Row Number"], "calculator_id": row["Calculator ID"],
                            "category": row["Category"], "output_type": row["Output Type"],
                            "truth": row["Ground Truth Answer"], "lower": row["Lower Limit"],
                            "upper": row["Upper Limit"], "answer": answer, "medcalc_bench_official": verdict})
    return vectors


def medec_vectors(datasets: Path, notes: int = 160) -> list[Vector]:
    """Answer shapes for the first `notes` MEDEC-MS test notes, half with an error."""
    path = datasets / "medec" / "MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv"
    with path.open(newline="", encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh) if r["Sentences"]][:notes]
    vectors: list[Vector] = []
    for row in rows:
        flagged = row["Error Flag"] == "1" and row["Corrected Sentence"].strip() != "NA"
        sid = row["Error Sentence ID"].strip() if flagged else "3"
        corrected = row["Corrected Sentence"].strip() if flagged else "The dose was 5 mg."
        reference = f"{sid} {corrected}" if flagged else "CORRECT"
        answers = {
            "correct": "CORRECT", "correct_period": "CORRECT.", "correct_lower": "correct",
            "correct_padded": "  CORRECT\n", "reference_itself": f"{sid} {corrected}", "id_only": sid,
            "id_period": f"{sid}. {corrected}", "wrong_id": f"{int(sid) + 1} {corrected}",
            "sentence_label": f"Sentence {sid}: {corrected}", "says_correct": "The text is CORRECT.",
            "not_correct": f"The text is not CORRECT; sentence {sid} is wrong.",
            "correction_label": f"Correct sentence: {sid} {corrected}", "empty": "", "unsure": "I am not sure.",
            "cue": f"Answer: {sid} {corrected}",
        }
        for case, answer in answers.items():
            vectors.append({"case": case, "note": row["Text ID"], "reference": reference, "answer": answer})
    return vectors


def _sql_answers(gold: str) -> dict[str, str]:
    answers = {
        "gold": gold, "gold_semicolon": f"{gold};", "fenced": f"```sql\n{gold}\n```",
        "fenced_in_text": f"Here is the query:\n```sql\n{gold}\n```", "cue": f"SQL Query: {gold};",
        "tagged": f"<sql> {gold} </sql>", "empty": "", "constant": "select 1", "missing_table": "select * from nowhere",
        "null": "null", "prose": "I cannot answer this question.", "two_statements": f"{gold}; select 2",
        "count": "select count(*) from patient",
    }
    if "distinct" in gold:
        answers["without_distinct"] = gold.replace("distinct ", "", 1)
    if "current_time" in gold:
        answers["fixed_now"] = gold.replace("current_time", "'2105-12-31 23:59:00'")
    return answers


def _ehr_sql_kind(entry: dict[str, Any]) -> str:
    if entry.get("is_impossible"):
        return "unanswerable"
    if not entry.get("value"):
        return "no_values"
    return "now" if "current_time" in entry["query"] else "values"


EHR_SQL_QUOTA = {"values": 28, "now": 28, "no_values": 16, "unanswerable": 16}


def ehr_sql_vectors(datasets: Path) -> list[Vector]:
    """Answer shapes for EHRSQL test questions, one per template within each kind's quota; plus, for a
    third of the answerable ones, the same gold query made to return no rows ("where 1 = 0 and ...")."""
    entries = json.loads((datasets / "ehrsql_eicu" / "test.json").read_text("utf-8"))
    chosen: list[dict[str, Any]] = []
    templates: set[str] = set()
    taken = dict.fromkeys(EHR_SQL_QUOTA, 0)
    for entry in entries:
        kind = _ehr_sql_kind(entry)
        if taken[kind] < EHR_SQL_QUOTA[kind] and entry["template"] not in templates:
            templates.add(entry["template"])
            taken[kind] += 1
            chosen.append(entry)
    vectors: list[Vector] = []
    for index, entry in enumerate(chosen):
        golds = [("", entry["query"])]
        if " where " in entry["query"] and index % 3 == 0:
            golds.append(("empty_gold_", entry["query"].replace(" where ", " where 1 = 0 and ", 1)))
        for prefix, gold in golds:
            for case, answer in _sql_answers(gold).items():
                vectors.append({"case": prefix + case, "question": entry["id"], "gold": gold,
                                "value": entry.get("value", {}), "is_impossible": bool(entry.get("is_impossible")),
                                "answer": answer})
    return vectors


def main(datasets: Path) -> None:
    for name, vectors in (("medcalc_bench", medcalc_vectors(datasets)), ("medec", medec_vectors(datasets)),
                          ("ehr_sql", ehr_sql_vectors(datasets))):
        with (HERE / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for vector in vectors:
                out.write(json.dumps(vector, ensure_ascii=False) + "\n")
        print(f"{name}: {len(vectors)} vectors")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[3].parent / "shared" / "datasets")
