"""Calculation answers, hand-written as chat models write them (see README.md for the reading rules).

MedCalc-Bench-style items carry the calculator's category and the published lower and upper limits (an
exact score has equal limits); hospital-style items carry a card's tolerance. `expected` is the value a
careful reader takes as the model's answer: a number in the question's unit, an ISO date (YYYY-MM-DD), or
[weeks, days] for a gestational age; None with a reason when the reply gives no single value.
"""

from __future__ import annotations

from typing import Any


def _medcalc(calculator: str, category: str, unit: str | None, reference: str, lower: str | None = None,
             upper: str | None = None, kind: str = "number") -> dict[str, Any]:
    limits = {"lower_limit": lower or reference, "upper_limit": upper or reference}
    return {"benchmark": "medcalc_bench", "question": f"What is the patient's {calculator}?",
            "calc": {"kind": kind, "unit": unit, "tolerance": None,
                     "medcalc": {"calculator": calculator, "category": category, **limits}},
            "reference": reference}


def _hospital(benchmark: str, question: str, unit: str, reference: str, absolute: float | None = None,
              relative: float | None = None) -> dict[str, Any]:
    return {"benchmark": benchmark, "question": question,
            "calc": {"kind": "number", "unit": unit, "tolerance": {"absolute": absolute, "relative": relative},
                     "medcalc": None},
            "reference": reference}


# name: (context, reference value)
CONTEXTS: dict[str, tuple[dict[str, Any], Any]] = {
    "chads": (_medcalc("CHA2DS2-VASc score", "risk", "points", "4"), 4),
    "crcl": (_medcalc("creatinine clearance (Cockcroft-Gault)", "lab", "mL/min", "62.417", "59.296", "65.538"),
             62.417),
    "bmi": (_medcalc("body mass index", "physical", "kg/m²", "23.51", "22.335", "24.686"), 23.51),
    "map": (_medcalc("mean arterial pressure", "physical", "mm Hg", "93.333", "88.666", "98.0"), 93.333),
    "edd": (_medcalc("estimated due date", "date", None, "08/14/2021", kind="date"), "2021-08-14"),
    "conc": (_medcalc("estimated date of conception", "date", None, "03/02/2020", kind="date"), "2020-03-02"),
    "ga": (_medcalc("gestational age", "date", None, "('14 weeks', '2 days')", kind="gestational_age"), [14, 2]),
    "steroid": (_medcalc("IV methylprednisolone dose equivalent to prednisone 40 mg", "dosage conversion", "mg",
                         "32.0", "30.4", "33.6"), 32.0),
    "mme": (_medcalc("morphine milligram equivalents per day", "dosage conversion", "MME/day", "90.0", "85.5",
                     "94.5"), 90.0),
    "childpugh": (_medcalc("Child-Pugh score", "severity", "points", "8"), 8),
    "meld": (_medcalc("MELD Na score", "severity", "points", "24"), 24),
    "centor": (_medcalc("Centor score", "diagnosis", "points", "3"), 3),
    "osm": (_medcalc("calculated serum osmolality", "lab", "mOsm/kg", "296.444", "281.622", "311.266"), 296.444),
    "qtc": (_medcalc("corrected QT interval (Bazett)", "physical", "msec", "462.5", "439.375", "485.625"), 462.5),
    "ag": (_medcalc("anion gap", "lab", "mEq/L", "18.0", "17.1", "18.9"), 18.0),
    "gcs": (_medcalc("Glasgow Coma Score", "severity", "points", "9"), 9),
    "fwd": (_medcalc("free water deficit", "lab", "L", "3.2", "3.04", "3.36"), 3.2),
    "hasbled": (_medcalc("HAS-BLED score", "risk", "points", "3"), 3),
    "ldl": (_medcalc("calculated LDL cholesterol", "lab", "mg/dL", "132.8", "126.16", "139.44"), 132.8),
    "calcium": (_medcalc("albumin-corrected calcium", "lab", "mg/dL", "9.6", "9.12", "10.08"), 9.6),
    "insulin": (_hospital("insulin_correction", "Glucose 284 mg/dL on the standard correction scale: how many units "
                          "of rapid-acting insulin?", "units", "4", absolute=0.0), 4),
    "fluid": (_hospital("fluid_balance", "What is the patient's net fluid balance over the last 24 hours?", "mL",
                        "-1250", absolute=50.0), -1250),
    "heparin": (_hospital("heparin_rate", "Heparin 1,250 units/h from a 25,000 units in 250 mL bag: what is the "
                          "infusion rate?", "mL/h", "12.5", relative=0.02), 12.5),
    "tpn": (_hospital("tpn_calories", "How many kilocalories per day does this parenteral nutrition order "
                      "provide?", "kcal/day", "1850", absolute=10.0), 1850),
    "sodium": (_hospital("sodium_change", "By how much did the serum sodium change over 24 hours?", "mmol/L", "-6",
                         absolute=0.5), -6),
}


def ca(context: str, cls: str, answer: str, expected: Any, reason: str | None = None, note: str | None = None,
       finish: str = "stop", reasoning_content: str | None = None) -> dict[str, Any]:
    """One calculation record (fields as documented in README.md)."""
    ctx, reference_value = CONTEXTS[context]
    item: dict[str, Any] = {"task": "calculation", "benchmark": ctx["benchmark"], "class": cls,
                            "question": ctx["question"], "calc": ctx["calc"], "answer": answer}
    if reasoning_content is not None:
        item["reasoning_content"] = reasoning_content
    item.update(finish_reason=finish, reference=ctx["reference"], reference_value=reference_value,
                expected=expected, expected_reason=reason)
    if note:
        item["note"] = note
    return item


ITEMS = [
    # CHA2DS2-VASc (risk, exact)
    ca("chads", "bare_number", "4", 4),
    ca("chads", "decimal_integer", "4.0", 4, note="the right score; HELM's exact text rule says no"),
    ca("chads", "sentence", "The patient's CHA2DS2-VASc score is 4 points.", 4,
       note="the calculator's name holds the digit 2"),
    ca("chads", "digits_in_name", "CHA₂DS₂-VASc = 4", 4),
    ca("chads", "intermediate_steps", "Score: 1 (age 65-74) + 1 (hypertension) + 1 (diabetes) + 1 (female sex) = 4",
       4),
    ca("chads", "markdown", "**4**", 4),
    ca("chads", "two_values", "3 or 4, depending on whether the remote TIA is counted.", None, "two_values"),
    ca("chads", "sentence", "CHA2DS2-VASc: 5", 5),
    ca("chads", "reasoning_block", "<think>\nAge 72 → 1 point. Hypertension → 1. Diabetes → 1. Female → 1. No "
       "stroke. Total 4.\n</think>\n4", 4),
    ca("chads", "truncated", "Let me compute the CHA2DS2-VASc score step by step:\n- Congestive heart failure: 0\n"
       "- Hypertension: 1\n- Age 72: 1", None, "truncated", finish="length",
       note="only partial points were written before the cut"),
    ca("chads", "number_then_comment", "4 (high risk; anticoagulation recommended)", 4),
    # creatinine clearance (lab: HELM scores every lab row 0)
    ca("crcl", "bare_number", "62.4", 62.4),
    ca("crcl", "approximate", "approximately 62.4 mL/min", 62.4),
    ca("crcl", "intermediate_steps", "CrCl = [(140 − 68) × 78] / (72 × 1.2) = 5616 / 86.4 = 65.0 mL/min", 65.0),
    ca("crcl", "latex", "\\boxed{62.42}", 62.42),
    ca("crcl", "sentence", "Using the Cockcroft-Gault equation with an actual body weight of 78 kg, the creatinine "
       "clearance is about 62 mL/min.", 62, note="the weight comes before the answer"),
    ca("crcl", "bare_number", "62.417", 62.417),
    ca("crcl", "inputs_after_answer", "The estimated creatinine clearance is 62.417 mL/min. (Computed with a weight "
       "of 78 kg and an age of 68.)", 62.417, note="the numbers after the answer are its inputs"),
    ca("crcl", "range", "between 55 and 65 mL/min", None, "range"),
    ca("crcl", "refusal", "I'm not able to calculate this without the serum creatinine in mg/dL.", None, "refusal"),
    ca("crcl", "range_after_answer", "Creatinine clearance ≈ 62 mL/min; that is stage 2 CKD (60–89).", 62),
    ca("crcl", "decimal_comma", "Die Kreatinin-Clearance beträgt etwa 62,4 ml/min.", 62.4,
       note="a decimal comma: one digit after the comma cannot be a thousands group"),
    ca("crcl", "truncated_in_reasoning", "<think>\nCockcroft-Gault: (140 - age) × weight / (72 × Cr). Age 68, "
       "weight 78, Cr 1.2. (140-68) = 72. 72 × 78 = 5616. 72 × 1.2 = 86.4. 5616/86", None,
       "truncated_in_reasoning", finish="length"),
    # body mass index (physical)
    ca("bmi", "bare_number", "23.5", 23.5),
    ca("bmi", "number_with_unit", "23.5 kg/m²", 23.5),
    ca("bmi", "intermediate_steps", "BMI = 72 kg / (1.75 m)² = 23.5 kg/m²", 23.5),
    ca("bmi", "range_after_answer", "The BMI is 23.51, which is in the normal range (18.5–24.9).", 23.51),
    ca("bmi", "scientific", "2.351e1", 23.51),
    ca("bmi", "whitespace_around", " 23.51 ", 23.51),
    ca("bmi", "rounded", "BMI: 24", 24),
    ca("bmi", "no_number", "Normal weight", None, "no_answer", note="a category, not the value asked for"),
    ca("bmi", "reasoning_field", "23.5", 23.5, reasoning_content="Weight 72 kg, height 1.75 m; 1.75^2 = 3.0625; "
       "72 / 3.0625 = 23.51."),
    # mean arterial pressure (physical)
    ca("map", "bare_number", "93.33", 93.33),
    ca("map", "intermediate_steps", "MAP = (2 × 80 + 120) / 3 = 93.3 mmHg", 93.3),
    ca("map", "number_with_unit", "93 mmHg", 93),
    ca("map", "approximate", "The mean arterial pressure is ~93.", 93),
    ca("map", "inputs_after_answer", "MAP ≈ 93.3 mm Hg (DBP 80, SBP 120)", 93.3),
    ca("map", "answer_cue", "MAP: 93.3", 93.3),
    # estimated due date (date)
    ca("edd", "date_mdy", "08/14/2021", "2021-08-14"),
    ca("edd", "date_mdy", "8/14/2021", "2021-08-14"),
    ca("edd", "date_words", "August 14, 2021", "2021-08-14"),
    ca("edd", "date_iso", "2021-08-14", "2021-08-14"),
    ca("edd", "date_sentence", "The estimated due date is 08/14/2021.", "2021-08-14"),
    ca("edd", "date_dmy", "14/08/2021", "2021-08-14", note="day first; there is no month 14"),
    ca("edd", "date_short_year", "08/14/21", "2021-08-14"),
    ca("edd", "date_mdy", "Estimated due date: 08/15/2021", "2021-08-15"),
    ca("edd", "input_date_first", "Naegele's rule: LMP 11/07/2020 + 280 days = 08/14/2021", "2021-08-14",
       note="the first date is the input (last menstrual period)"),
    ca("edd", "other_language", "La fecha probable de parto es el 14/08/2021.", "2021-08-14"),
    # estimated date of conception (date)
    ca("conc", "date_mdy", "03/02/2020", "2020-03-02"),
    ca("conc", "date_words", "The estimated date of conception is March 2, 2020.", "2020-03-02"),
    ca("conc", "date_mdy", "02/03/2020", "2020-02-03", note="read in the MM/DD/YYYY order the question asks for"),
    ca("conc", "input_date_first", "Conception ≈ 2 weeks after the LMP (02/17/2020): 03/02/2020", "2020-03-02"),
    # gestational age (date)
    ca("ga", "ga_tuple", "('14 weeks', '2 days')", [14, 2]),
    ca("ga", "ga_words", "14 weeks, 2 days", [14, 2]),
    ca("ga", "ga_tuple", "(14, 2)", [14, 2]),
    ca("ga", "ga_compact", "14w2d", [14, 2]),
    ca("ga", "ga_words", "The gestational age is 14 weeks and 2 days.", [14, 2]),
    ca("ga", "ga_days_first", "100 days (14 weeks 2 days)", [14, 2], note="both forms say the same age"),
    ca("ga", "ga_weeks_only", "14 weeks", [14, 0], note="no days given: 14 weeks 0 days"),
    # steroid conversion (dosage conversion)
    ca("steroid", "bare_number", "32", 32),
    ca("steroid", "number_with_unit", "32 mg", 32),
    ca("steroid", "input_first", "40 mg prednisone ≈ 32 mg IV methylprednisolone", 32,
       note="the first number is the given dose"),
    ca("steroid", "inputs_after_answer", "Equivalent dose: 32 mg of methylprednisolone (prednisone to "
       "methylprednisolone ratio 5:4).", 32),
    ca("steroid", "sentence", "The equivalent is 32.0 mg", 32.0),
    # morphine milligram equivalents (dosage conversion)
    ca("mme", "bare_number", "90", 90),
    ca("mme", "intermediate_steps", "Total MME/day = 30 mg × 2 × 1.5 = 90 MME", 90),
    ca("mme", "latex", "\\(\\boxed{90}\\) MME per day", 90),
    ca("mme", "threshold_after_answer", "Approximately 90 morphine milligram equivalents per day, which exceeds the "
       "50 MME/day threshold.", 90),
    # Child-Pugh (severity, exact)
    ca("childpugh", "bare_number", "8", 8),
    ca("childpugh", "number_then_class", "Child-Pugh score: 8 (class B)", 8),
    ca("childpugh", "class_only", "Class B", None, "no_answer", note="the class, not the score asked for"),
    ca("childpugh", "number_then_class", "8 points → Child-Pugh B", 8),
    ca("childpugh", "json", "{\"step_by_step_thinking\": \"Bilirubin 2.5 mg/dL = 2, albumin 3.1 g/dL = 2, INR 1.5 "
       "= 1, mild ascites = 2, no encephalopathy = 1; total 8.\", \"answer\": \"8\"}", 8,
       note="the JSON form of the MedCalc-Bench authors' prompt"),
    # MELD Na (severity, exact)
    ca("meld", "sentence", "MELD-Na = 24", 24),
    ca("meld", "bare_number", "24", 24),
    ca("meld", "two_scores", "The MELD 3.0 is 26 but the MELD-Na is 24.", 24, note="the question asks for MELD Na"),
    ca("meld", "reasoning_block", "<think>\nMELD(i) = 0.957×ln(Cr) + 0.378×ln(bili) + 1.120×ln(INR) + 0.643 → "
       "MELD 21; Na 128 → MELD-Na = 21 + 1.32×(137−128) − 0.033×21×(137−128) = 24.6\n</think>\n\nMELD-Na ≈ 25", 25),
    # Centor (diagnosis, exact)
    ca("centor", "bare_number", "3", 3),
    ca("centor", "number_then_reason", "Centor score = 3 (fever, tonsillar exudate, absence of cough)", 3),
    ca("centor", "intermediate_steps", "Modified Centor (McIsaac): 3 + 0 for age = 3", 3),
    ca("centor", "number_word", "three", 3),
    ca("centor", "empty", "", None, "empty"),
    ca("centor", "truncated", "Centor score is", None, "truncated", finish="length"),
    # serum osmolality (lab)
    ca("osm", "intermediate_steps", "Calculated osmolality = 2 × 138 + 180/18 + 28/2.8 = 276 + 10 + 10 = 296 "
       "mOsm/kg", 296),
    ca("osm", "digits_in_unit", "296.4 mOsm/kg H2O", 296.4),
    ca("osm", "refusal", "I cannot provide medical calculations.", None, "refusal"),
    ca("osm", "answer_cue", "Osmolality: 296", 296),
    # QTc (physical)
    ca("qtc", "intermediate_steps", "QTc = QT/√RR = 400/√0.75 = 461.9 ms", 461.9),
    ca("qtc", "number_with_unit", "462 msec", 462),
    ca("qtc", "two_formulas", "QTc (Bazett) ≈ 462 ms; QTc (Fridericia) ≈ 445 ms.", 462,
       note="the question asks for Bazett's formula"),
    ca("qtc", "whitespace", "\n\n", None, "empty"),
    # anion gap (lab)
    ca("ag", "intermediate_steps", "AG = Na − (Cl + HCO3) = 140 − (100 + 22) = 18 mEq/L", 18),
    ca("ag", "bare_number", "18", 18),
    ca("ag", "sentence", "The anion gap is elevated at 18.", 18),
    # Glasgow Coma Score (severity, exact)
    ca("gcs", "components_first", "GCS 9 (E2 V3 M4)", 9),
    ca("gcs", "components_first", "E2V3M4 = 9", 9),
    ca("gcs", "out_of", "9/15", 9, note="a score out of 15, not a fraction"),
    ca("gcs", "range", "GCS: 8-9", None, "range"),
    ca("gcs", "range_after_answer", "The Glasgow Coma Scale score is 9, indicating a moderate brain injury (9–12).",
       9),
    # free water deficit (lab)
    ca("fwd", "number_with_unit", "3.2 L", 3.2),
    ca("fwd", "intermediate_steps", "Free water deficit = 0.5 × 64 × (152/140 − 1) = 2.74 L", 2.74),
    ca("fwd", "no_answer", "Unable to calculate: the note does not give the patient's weight.", None, "no_answer"),
    # HAS-BLED (risk, exact)
    ca("hasbled", "sentence", "HAS-BLED score: 3", 3),
    ca("hasbled", "number_then_comment", "3 (high bleeding risk)", 3),
    ca("hasbled", "two_values", "The HAS-BLED score is 2 or 3 depending on the labile INR data.", None,
       "two_values"),
    # LDL (lab)
    ca("ldl", "intermediate_steps", "LDL = TC − HDL − TG/5 = 210 − 45 − 161/5 = 132.8 mg/dL", 132.8),
    ca("ldl", "bare_number", "132.8", 132.8),
    ca("ldl", "approximate", "~133 mg/dL", 133),
    # corrected calcium (lab)
    ca("calcium", "intermediate_steps", "Corrected Ca = 8.0 + 0.8 × (4 − 2.0) = 9.6 mg/dL", 9.6),
    ca("calcium", "number_with_unit", "9.6 mg/dL", 9.6),
    # hospital cards, scored by numeric tolerance; HELM's rule is exact text
    ca("insulin", "number_with_unit", "4 units", 4),
    ca("insulin", "bare_number", "4", 4),
    ca("insulin", "band_after_answer", "Give 4 units of insulin lispro subcutaneously (glucose 284 mg/dL falls in "
       "the 251-300 band).", 4),
    ca("insulin", "range", "2-4 units", None, "range"),
    ca("insulin", "refusal", "I can't recommend an insulin dose; please consult the prescribing physician.", None,
       "refusal"),
    ca("fluid", "negative", "-1250", -1250),
    ca("fluid", "negative_unicode_thousands", "−1,250 mL", -1250, note="a Unicode minus and a thousands separator"),
    ca("fluid", "intermediate_steps", "Net balance: 2,100 mL in − 3,350 mL out = −1,250 mL (negative)", -1250),
    ca("fluid", "sign_in_words", "1250 mL negative", -1250, note="the sign is a word after the number"),
    ca("fluid", "negative_unicode", "−1250", -1250),
    ca("heparin", "number_with_unit", "12.5 mL/h", 12.5),
    ca("heparin", "thousands_before_answer", "Rate = 1,250 units/h ÷ 100 units/mL = 12.5 mL/hr", 12.5),
    ca("heparin", "bare_number", "12.5", 12.5),
    ca("heparin", "rounded", "13 mL/h (rounded for the pump)", 13),
    ca("tpn", "thousands", "1,850 kcal/day", 1850),
    ca("tpn", "bare_number", "1850", 1850),
    ca("tpn", "thousands_space", "Total: 1 850 kcal", 1850, note="a space as the thousands separator"),
    ca("tpn", "intermediate_steps", "Dextrose 250 g × 3.4 = 850 kcal; lipid 100 g × 10 = 1,000 kcal; total = "
       "1,850 kcal", 1850),
    ca("sodium", "negative", "-6 mmol/L", -6),
    ca("sodium", "sign_in_words", "The sodium fell by 6 mmol/L (from 134 to 128).", -6,
       note="'fell by' gives the sign of the change"),
    ca("sodium", "intermediate_steps", "Δ Na = 128 − 134 = −6", -6),
    ca("sodium", "explicit_plus", "+6", 6),
]
