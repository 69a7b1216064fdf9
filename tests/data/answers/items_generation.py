"""Generation answers, hand-written as chat models write them (see README.md for the reading rules).

Nothing is extracted from free text: `expected` is the answer with its reasoning block taken out and the
surrounding whitespace stripped, or None with a reason when no answer remains (empty, reasoning only, cut
off inside the reasoning). A refusal in free text is an answer like any other: the generation metric scores
it (usually low); marking it failed would drop it from the mean and flatter the model.
"""

from __future__ import annotations

from typing import Any

QUESTIONS: dict[str, tuple[str, str]] = {
    "cough": ("medication_qa", "Can lisinopril cause a cough?"),
    "metformin": ("medication_qa", "Should I take metformin with food?"),
    "warfarin": ("medication_qa", "Can I take ibuprofen while on warfarin?"),
    "statin": ("medication_qa", "What time of day should I take simvastatin?"),
    "dialog": ("med_dialog", "Summarize the patient's question in one sentence."),
    "aci": ("aci_bench", "Write the assessment and plan section of the clinical note from the conversation."),
    "bhc": ("mimic_bhc", "Write the brief hospital course from the discharge summary."),
    "mediqa": ("medi_qa", "Answer the consumer health question in a short paragraph."),
    "medec_ok": ("medec", "Check the clinical note: return CORRECT, or the sentence ID and a corrected sentence."),
    "medec_err": ("medec", "Check the clinical note: return CORRECT, or the sentence ID and a corrected sentence."),
    "sql": ("ehr_sql", "How many patients were discharged from the hospital in 2104? (eICU schema)"),
    "sql_none": ("ehr_sql", "What is the patient's favourite hospital meal? (eICU schema; unanswerable)"),
    "proc": ("mtsamples_procedures", "Write the plan for the patient after the procedure."),
    "dis": ("dischargeme", "Write the discharge instructions for the patient."),
}


def ge(question: str, cls: str, answer: str, expected: str | None, reason: str | None = None,
       note: str | None = None, finish: str = "stop", reasoning_content: str | None = None) -> dict[str, Any]:
    """One generation record (fields as documented in README.md)."""
    benchmark, stem = QUESTIONS[question]
    item: dict[str, Any] = {"task": "generation", "benchmark": benchmark, "class": cls, "question": stem,
                            "answer": answer}
    if reasoning_content is not None:
        item["reasoning_content"] = reasoning_content
    item.update(finish_reason=finish, reference=None, expected=expected, expected_reason=reason)
    if note:
        item["note"] = note
    return item


_COUGH = ("Yes. Lisinopril, like other ACE inhibitors, causes a dry, tickly cough in roughly 1 in 10 people. "
          "If it bothers you, ask your prescriber about switching to an ARB such as losartan, which rarely "
          "causes cough.")
_METFORMIN = ("Yes — take metformin with meals. Food reduces nausea, diarrhoea and stomach upset. The "
              "extended-release tablet is usually taken once daily with the evening meal.")
_WARFARIN = ("Avoid ibuprofen while you take warfarin: together they raise the risk of serious bleeding, "
             "including stomach bleeding. Acetaminophen (paracetamol) at the recommended dose is usually the "
             "safer choice for pain; check with your anticoagulation clinic first.")
_STATIN = "Take simvastatin in the evening: the liver makes most of its cholesterol at night."
_SQL = ("SELECT COUNT(DISTINCT patient.uniquepid) FROM patient "
        "WHERE STRFTIME('%Y', patient.hospitaldischargetime) = '2104';")
_AP = ("Assessment and plan:\n1. Type 2 diabetes, uncontrolled (HbA1c 9.1%). Increase metformin to 1000 mg twice "
       "daily; start empagliflozin 10 mg daily. Recheck HbA1c in 3 months.\n2. Hypertension, at goal. Continue "
       "lisinopril 20 mg daily.\n3. Diabetic foot screening: monofilament normal. Podiatry referral declined.")
_BHC = ("Mr. X was admitted with community-acquired pneumonia of the right lower lobe. He was treated with "
        "ceftriaxone and azithromycin, defervesced on hospital day 2, and was switched to oral amoxicillin-"
        "clavulanate on day 3. Oxygen was weaned to room air. He was discharged home in stable condition to "
        "complete a 7-day course.")

# cut off by max_tokens inside a word
_BHC_CUT = _BHC[:_BHC.index("hospital day") + 4]

ITEMS = [
    ge("cough", "plain", _COUGH, _COUGH),
    ge("metformin", "reasoning_block", "<think>\nThe user asks whether to take metformin with food. Yes — GI side "
       "effects are the main reason. Mention the XR form.\n</think>\n\n" + _METFORMIN, _METFORMIN),
    ge("metformin", "reasoning_field", _METFORMIN, _METFORMIN, reasoning_content="GI intolerance is dose-related; "
       "food lowers it. XR once daily with dinner."),
    ge("warfarin", "reasoning_close_only", "The patient takes warfarin and asks about ibuprofen. NSAIDs inhibit "
       "platelets and injure the gastric mucosa; the INR may rise too.\n</think>\n\n" + _WARFARIN, _WARFARIN,
       note="the chat template opened the block, so only </think> is in the completion"),
    ge("warfarin", "truncated_in_reasoning", "<think>\nNSAIDs and warfarin: pharmacodynamic interaction through "
       "platelet inhibition, plus GI mucosal injury. Also CYP2C9? Ibuprofen is a weak", None,
       "truncated_in_reasoning", finish="length"),
    ge("statin", "reasoning_only", "<think>\nSimvastatin has a short half-life; cholesterol synthesis peaks at "
       "night, so evening dosing.\n</think>", None, "reasoning_only"),
    ge("statin", "empty", "", None, "empty"),
    ge("statin", "whitespace", "\n  \n", None, "empty"),
    ge("statin", "plain", _STATIN, _STATIN),
    ge("cough", "refusal", "I'm sorry, but I can't provide medical advice. Please consult your doctor or "
       "pharmacist.", "I'm sorry, but I can't provide medical advice. Please consult your doctor or pharmacist.",
       note="a refusal is an answer here: scored by the metric, not a failure"),
    ge("medec_ok", "plain", "CORRECT", "CORRECT"),
    ge("medec_err", "reasoning_block", "<think>\nSentence 4 gives amoxicillin to a patient with a documented "
       "penicillin anaphylaxis.\n</think>\n4 The patient was started on azithromycin for community-acquired "
       "pneumonia.", "4 The patient was started on azithromycin for community-acquired pneumonia."),
    ge("medec_ok", "sentence", "The text is CORRECT.", "The text is CORRECT."),
    ge("medec_err", "plain", "2 The patient's hemoglobin A1c was 6.1%, consistent with prediabetes.",
       "2 The patient's hemoglobin A1c was 6.1%, consistent with prediabetes."),
    ge("sql_none", "empty_valid", "", "",
       note="the card asks for an empty string when the question cannot be answered: an answer, not a failure"),
    ge("sql", "code_fence", "```sql\n" + _SQL + "\n```", "```sql\n" + _SQL + "\n```",
       note="the fence is kept: reading SQL out of it is the SQL metric's business"),
    ge("sql", "reasoning_block", "<think>\nThe patient table has hospitaldischargetime; count distinct uniquepid "
       "for the year 2104.\n</think>\n" + _SQL, _SQL),
    ge("sql", "plain", _SQL, _SQL),
    ge("aci", "plain", _AP, _AP),
    ge("aci", "reasoning_block_empty", "<think>\n\n</think>\n\n" + _AP, _AP),
    ge("bhc", "plain", _BHC, _BHC),
    ge("bhc", "truncated_text", _BHC_CUT, _BHC_CUT, finish="length",
       note="a cut-off free-text answer is still the answer; the finish reason is recorded beside it"),
    ge("bhc", "reasoning_field_only", "", None, "reasoning_only", finish="length",
       reasoning_content="Admission for CAP, RLL. Antibiotics: ceftriaxone + azithro, then PO augmentin. Need to "
       "mention oxygen weaning and discharge plan. Let me structure it by problem"),
    ge("dialog", "plain", "A 34-year-old woman asks whether her recurrent morning headaches could be caused by her "
       "new blood pressure tablets.", "A 34-year-old woman asks whether her recurrent morning headaches could be "
       "caused by her new blood pressure tablets."),
    ge("dialog", "answer_prefix", "Summary: Patient with two weeks of dry cough after starting lisinopril asks "
       "whether to stop it.", "Summary: Patient with two weeks of dry cough after starting lisinopril asks "
       "whether to stop it.", note="nothing is cut from free text but a reasoning block"),
    ge("mediqa", "markdown", "**Short answer:** yes, but only under supervision.\n\n- Sertraline is generally "
       "considered compatible with breastfeeding.\n- Very little passes into breast milk.\n- Watch the baby for "
       "unusual sleepiness or poor feeding.", "**Short answer:** yes, but only under supervision.\n\n- Sertraline "
       "is generally considered compatible with breastfeeding.\n- Very little passes into breast milk.\n- Watch "
       "the baby for unusual sleepiness or poor feeding."),
    ge("mediqa", "other_language", "Sí, la sertralina se considera compatible con la lactancia materna; "
       "consulte a su médico si el bebé está muy somnoliento.", "Sí, la sertralina se considera compatible con la "
       "lactancia materna; consulte a su médico si el bebé está muy somnoliento.",
       note="language is for the metric or the jury to judge, not a reading failure"),
    ge("metformin", "refusal_with_advice", "I can't give personal medical advice, but in general metformin is taken "
       "with meals to reduce stomach upset. Your pharmacist can confirm for your prescription.",
       "I can't give personal medical advice, but in general metformin is taken with meals to reduce stomach "
       "upset. Your pharmacist can confirm for your prescription."),
    ge("proc", "whitespace_around", "\n\nPlan: discharge home today; keep the dressing dry for 48 hours; follow up "
       "in clinic in 2 weeks for suture removal.\n", "Plan: discharge home today; keep the dressing dry for 48 "
       "hours; follow up in clinic in 2 weeks for suture removal."),
    ge("proc", "reasoning_then_whitespace", "<think>\nPost-procedure plan: wound care, analgesia, follow-up.\n"
       "</think>\n\n   \n", None, "reasoning_only"),
    ge("dis", "plain", "You were treated for a urinary tract infection. Take cefalexin 500 mg four times a day "
       "for 5 more days. Drink plenty of fluids. Come back if you develop fever, back pain or vomiting.",
       "You were treated for a urinary tract infection. Take cefalexin 500 mg four times a day for 5 more days. "
       "Drink plenty of fluids. Come back if you develop fever, back pain or vomiting."),
    ge("dis", "reasoning_field", "Take your antibiotic until it is finished, and return if the fever comes back.",
       "Take your antibiotic until it is finished, and return if the fever comes back.",
       reasoning_content="Simple, lay language. Antibiotic completion, return precautions."),
    ge("cough", "think_word_in_answer", "I think so: ACE inhibitors such as lisinopril commonly cause a dry cough. "
       "Tell your doctor if it persists.", "I think so: ACE inhibitors such as lisinopril commonly cause a dry "
       "cough. Tell your doctor if it persists.", note="the word think is not a reasoning tag"),
]
