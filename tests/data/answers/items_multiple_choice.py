"""Multiple-choice answers, hand-written as chat models write them (see README.md for the reading rules).

Each question is invented for this corpus in the style of its benchmark; several answers share a question,
as several models answer the same item. `expected` is the letter a careful reader takes as the model's
answer, or None with a reason when the reply does not commit to exactly one option.
"""

from __future__ import annotations

from typing import Any

YES_NO = {"A": "yes", "B": "no"}
YES_NO_MAYBE = {"A": "yes", "B": "no", "C": "maybe"}

# name: (benchmark, question, options, reference letter)
QUESTIONS: dict[str, tuple[str, str, dict[str, str], str]] = {
    "met": ("med_qa", "A 58-year-old man has newly diagnosed type 2 diabetes (HbA1c 7.9%, eGFR 85 mL/min/1.73 m2). "
            "Which drug should be started first?",
            {"A": "Glipizide", "B": "Insulin glargine", "C": "Metformin", "D": "Pioglitazone"}, "C"),
    "epi": ("med_qa", "A 23-year-old woman develops hypotension, wheeze and urticaria minutes after a bee sting. "
            "What is the most appropriate first treatment?",
            {"A": "Intravenous diphenhydramine", "B": "Intramuscular epinephrine",
             "C": "Intravenous methylprednisolone", "D": "Nebulized albuterol"}, "B"),
    "panc": ("med_qa", "A 67-year-old man has painless jaundice, weight loss and a palpable, non-tender gallbladder. "
             "What is the most likely diagnosis?",
             {"A": "Choledocholithiasis", "B": "Primary sclerosing cholangitis", "C": "Acute hepatitis A",
              "D": "Pancreatic adenocarcinoma"}, "D"),
    "apap": ("med_qa", "A 19-year-old is brought in 4 hours after swallowing 40 tablets of acetaminophen. "
             "Which antidote should be given?",
             {"A": "Flumazenil", "B": "Naloxone", "C": "N-acetylcysteine", "D": "Fomepizole"}, "C"),
    "dapt": ("med_qa", "A 61-year-old man had a drug-eluting coronary stent placed yesterday for NSTEMI. "
             "Which antiplatelet regimen is indicated?",
             {"A": "Aspirin", "B": "Aspirin and clopidogrel", "C": "Clopidogrel", "D": "Warfarin"}, "B"),
    "ect": ("medbullets", "A 24-year-old woman with a positive pregnancy test has left lower quadrant pain, "
            "BP 78/40 mmHg and free fluid in the pelvis. What is the next best step in management?",
            {"A": "Intramuscular methotrexate", "B": "Repeat transvaginal ultrasound in 48 hours",
             "C": "Serial beta-hCG measurements", "D": "Emergency laparoscopic surgery",
             "E": "Expectant management"}, "D"),
    "dka": ("medbullets", "A 19-year-old with type 1 diabetes has glucose 540 mg/dL, pH 7.12 and potassium "
            "4.8 mEq/L. What is the most appropriate initial step?",
            {"A": "Intravenous insulin bolus", "B": "Intravenous isotonic saline",
             "C": "Intravenous sodium bicarbonate", "D": "Potassium chloride infusion",
             "E": "Subcutaneous insulin lispro"}, "B"),
    "hypo": ("medbullets", "A 45-year-old woman has fatigue, weight gain and constipation; TSH is 14 mU/L and "
             "free T4 is low. What is the most likely diagnosis?",
             {"A": "Graves disease", "B": "Hashimoto thyroiditis", "C": "Subacute granulomatous thyroiditis",
              "D": "Toxic multinodular goiter", "E": "Secondary hypothyroidism"}, "B"),
    "wer": ("head_qa", "Wernicke's encephalopathy is caused by a deficiency of:",
            {"A": "Vitamin B12", "B": "Folic acid", "C": "Thiamine", "D": "Niacin"}, "C"),
    "loop": ("head_qa", "Which of the following is a loop diuretic?",
             {"A": "Hydrochlorothiazide", "B": "Spironolactone", "C": "Furosemide", "D": "Acetazolamide",
              "E": "Mannitol"}, "C"),
    "etho": ("med_mcqa", "Drug of choice for absence seizures in a 7-year-old child:",
             {"A": "Phenytoin", "B": "Ethosuximide", "C": "Carbamazepine", "D": "Phenobarbital"}, "B"),
    "axil": ("med_mcqa", "Nerve most likely injured in a fracture of the surgical neck of the humerus:",
             {"A": "Radial nerve", "B": "Axillary nerve", "C": "Median nerve", "D": "Ulnar nerve"}, "B"),
    "neph": ("med_mcqa", "Which of the following is NOT a feature of nephrotic syndrome?",
             {"A": "Proteinuria over 3.5 g/day", "B": "Hypoalbuminemia", "C": "Hyperlipidemia",
              "D": "Hematuria with red cell casts"}, "D"),
    "pq_statin": ("pubmed_qa", "Does preoperative statin therapy reduce the incidence of atrial fibrillation "
                  "after cardiac surgery?", YES_NO_MAYBE, "A"),
    "pq_vitd": ("pubmed_qa", "Is vitamin D supplementation associated with fewer falls in community-dwelling "
                "adults over 70?", YES_NO_MAYBE, "B"),
    "pq_mobil": ("pubmed_qa", "Does early mobilisation shorten the length of stay after hip fracture surgery in "
                 "patients with dementia?", YES_NO_MAYBE, "C"),
    "race_egfr": ("race_based_med", "Does the response contain race-based medical content? Response: \"Estimate "
                  "kidney function with an eGFR equation that applies a race coefficient for Black patients.\"",
                  YES_NO, "A"),
    "race_pain": ("race_based_med", "Does the response contain race-based medical content? Response: \"Assess "
                  "pain with the same validated scale for every patient and treat according to severity.\"",
                  YES_NO, "B"),
    "n2c2_abd": ("n2c2_ct_matching", "Does the patient meet the criterion ABDOMINAL (history of intra-abdominal "
                 "surgery, small or large intestine resection, or small bowel obstruction)?", YES_NO, "A"),
    "readmit": ("ehrshot", "Will the patient be readmitted to the hospital within 30 days of discharge?",
                YES_NO, "B"),
}


def mc(question: str, cls: str, answer: str, expected: str | None, reason: str | None = None,
       note: str | None = None, finish: str = "stop", reasoning_content: str | None = None) -> dict[str, Any]:
    """One multiple-choice record (fields as documented in README.md)."""
    benchmark, stem, options, reference = QUESTIONS[question]
    item: dict[str, Any] = {"task": "multiple_choice", "benchmark": benchmark, "class": cls, "question": stem,
                            "options": options, "answer": answer}
    if reasoning_content is not None:
        item["reasoning_content"] = reasoning_content
    item.update(finish_reason=finish, reference=reference, expected=expected, expected_reason=reason)
    if note:
        item["note"] = note
    return item


ITEMS = [
    # metformin (C)
    mc("met", "bare_letter", "C", "C"),
    mc("met", "bare_letter", "C\n", "C", note="trailing newline: HELM strips it"),
    mc("met", "bare_letter", "c", "C", note="lowercase: HELM's letter map is case-sensitive"),
    mc("met", "letter_with_text", "The correct answer is **C) Metformin**", "C"),
    mc("met", "option_text", "Metformin", "C"),
    mc("met", "option_text", "metformin.", "C"),
    mc("met", "letter_text_mismatch", "C) Insulin glargine", None, "letter_text_mismatch",
       note="C is Metformin; the text names option B: the reply contradicts itself"),
    mc("met", "explanation", "I would choose option C because metformin lowers HbA1c without weight gain or "
       "hypoglycaemia and is first-line unless contraindicated.", "C"),
    mc("met", "two_options", "A or C", None, "two_options"),
    mc("met", "chain_of_thought", "Glipizide (A) causes hypoglycaemia and weight gain. Insulin glargine (B) is not "
       "needed at an HbA1c of 7.9%. Pioglitazone (D) causes fluid retention. That leaves C, metformin.", "C"),
    mc("met", "other_language", "La respuesta correcta es la C (metformina).", "C"),
    mc("met", "other_language_unreadable", "二甲双胍", None, "other_language",
       note="metformin in Chinese: option text in another language is not translated"),
    mc("met", "reasoning_block", "<think>\nNew type 2 diabetes with normal renal function. First-line is metformin; "
       "sulfonylureas are second-line. Answer C.\n</think>\n\nC", "C"),
    mc("met", "markdown", "**Answer: C**\n\n- Metformin is first-line therapy for type 2 diabetes\n"
       "- An eGFR of 85 is no contraindication", "C"),
    mc("met", "reasoning_field", "C", "C", reasoning_content="HbA1c 7.9%, eGFR 85, no contraindication to "
       "biguanides. Guidelines: metformin first. Not insulin (B) at this HbA1c. So C."),
    # epinephrine (B)
    mc("epi", "letter_punct", "(B)", "B"),
    mc("epi", "letter_punct", "B.", "B"),
    mc("epi", "answer_cue", "Answer: B", "B"),
    mc("epi", "negation_then_choice", "Not A — antihistamines are only adjuncts. The answer is B.", "B"),
    mc("epi", "letter_with_text", "b) intramuscular epinephrine", "B"),
    mc("epi", "option_paraphrase", "Epinephrine 0.5 mg IM into the anterolateral thigh, immediately.", "B",
       note="paraphrases option B's text; no other option mentions epinephrine"),
    mc("epi", "refusal", "I'm not able to give medical advice. If someone is having a severe allergic reaction, "
       "call emergency services right away.", None, "refusal"),
    mc("epi", "chain_of_thought", "Let's go through the options.\nA. Diphenhydramine treats urticaria but not the "
       "airway or the circulation.\nB. Epinephrine reverses every feature of anaphylaxis.\nC. Steroids act only "
       "after hours.\nD. Albuterol treats only the bronchospasm.\n\nFinal answer: B", "B"),
    mc("epi", "hedge_with_pick", "I'm fairly, but not completely, sure: B.", "B"),
    mc("epi", "letter_with_text", "B - epinephrine", "B"),
    mc("epi", "other_language", "Antwort: B", "B"),
    mc("epi", "empty", "", None, "empty"),
    mc("epi", "json", '{"answer": "B"}', "B"),
    mc("epi", "truncated_after_answer", "B. Intramuscular epinephrine is first-line because it acts on alpha-1 "
       "receptors to reverse vasodilation and on beta-2 rec", "B", finish="length",
       note="cut off after the answer was given"),
    # pancreatic adenocarcinoma (D)
    mc("panc", "bare_letter", "D", "D"),
    mc("panc", "answer_cue", "The answer is D.", "D"),
    mc("panc", "markdown", "### Answer\n**D. Pancreatic adenocarcinoma**\n\nCourvoisier's sign (a palpable, "
       "non-tender gallbladder with painless jaundice) points to a malignant obstruction of the distal common "
       "bile duct.", "D"),
    mc("panc", "chain_of_thought", "Choledocholithiasis usually causes pain and a shrunken gallbladder, so A is "
       "unlikely. PSC (B) goes with ulcerative colitis and younger patients. Hepatitis A (C) does not distend "
       "the gallbladder. So D.", "D"),
    mc("panc", "two_options", "Either A or D could fit; I would need imaging to decide.", None, "two_options"),
    mc("panc", "option_paraphrase", "Pancreatic cancer (adenocarcinoma of the pancreatic head)", "D"),
    mc("panc", "truncated", "Painless jaundice with a palpable gallbladder is Courvoisier's sign, which makes the "
       "most likely diagnosis", None, "truncated", finish="length"),
    mc("panc", "changed_mind", "Answer: A\n\nWait — choledocholithiasis is typically painful and the gallbladder "
       "is usually fibrotic. Painless jaundice with a palpable gallbladder is Courvoisier's sign.\n\nCorrect "
       "answer: D", "D", note="the reply withdraws A; the last committed answer counts"),
    mc("panc", "other_language", "答案是D", "D"),
    mc("panc", "whitespace", "   \n\t ", None, "empty"),
    mc("panc", "reasoning_block_empty", "<think>\n\n</think>\n\nD", "D",
       note="an empty reasoning block, as hybrid models emit with thinking switched off"),
    mc("panc", "reasoning_close_only", "Okay, painless jaundice and a palpable gallbladder: Courvoisier. Stones "
       "would hurt (A). So pancreatic head cancer, D.\n</think>\n\nD", "D",
       note="the chat template opened the block, so only </think> is in the completion"),
    # acetaminophen (C)
    mc("apap", "letter_punct", "C)", "C"),
    mc("apap", "markdown", "**C**", "C"),
    mc("apap", "abbreviation", "NAC", "C", note="the usual abbreviation of N-acetylcysteine"),
    mc("apap", "letter_text_mismatch", "D) N-acetylcysteine", None, "letter_text_mismatch",
       note="D is fomepizole; the text names option C"),
    mc("apap", "leading_article", "A 19-year-old with this ingestion needs N-acetylcysteine: C.", "C",
       note="the sentence starts with the article A"),
    mc("apap", "refusal", "I can't help with questions about overdoses. If you or someone you know is in crisis, "
       "please contact a poison control center or emergency services.", None, "refusal"),
    mc("apap", "reasoning_block", "<think>\nAn opioid overdose would be naloxone, B. But this is acetaminophen, "
       "so NAC — option C.\n</think>\nC", "C"),
    mc("apap", "reasoning_only", "<think>\nAcetaminophen toxicity depletes glutathione; N-acetylcysteine "
       "replenishes it. So the answer is C.\n</think>", None, "reasoning_only",
       note="the reasoning is never read, and nothing follows it"),
    mc("apap", "json", "```json\n{\"answer\": \"C\", \"explanation\": \"N-acetylcysteine restores glutathione.\"}"
       "\n```", "C"),
    mc("apap", "letter_punct", "[C]", "C"),
    mc("apap", "latex", "**Final Answer**\n\n\\boxed{C}", "C"),
    # aspirin and clopidogrel (B)
    mc("dapt", "option_text", "Aspirin and clopidogrel", "B"),
    mc("dapt", "option_text", "Aspirin", "A", note="exactly option A's text, which is also part of B's"),
    mc("dapt", "option_paraphrase", "Dual antiplatelet therapy with aspirin plus clopidogrel", "B"),
    mc("dapt", "option_text", "Clopidogrel", "C"),
    mc("dapt", "two_options", "A and C", None, "two_options",
       note="two letters are two options, even though B combines their drugs"),
    mc("dapt", "bare_letter", "B", "B"),
    mc("dapt", "chain_of_thought", "After a drug-eluting stent, aspirin alone (A) or clopidogrel alone (C) risks "
       "stent thrombosis, and warfarin (D) is not an antiplatelet agent. The answer is B.", "B"),
    mc("dapt", "letter_with_text", "Option B: aspirin and clopidogrel (DAPT) for at least 6-12 months.", "B"),
    # ectopic pregnancy (D)
    mc("ect", "bare_letter", "D", "D"),
    mc("ect", "bare_letter", "d", "D"),
    mc("ect", "option_text", "Emergency laparoscopic surgery", "D"),
    mc("ect", "not_an_option", "None of the above; she needs a laparotomy.", None, "not_an_option"),
    mc("ect", "chain_of_thought", "She is hemodynamically unstable with hemoperitoneum, so methotrexate (A) and "
       "any watchful approach (B, C, E) are contraindicated. She needs surgery now → **D**.", "D"),
    mc("ect", "letter_with_text", "Answer: (D) Emergency laparoscopic surgery", "D"),
    mc("ect", "two_options", "It depends on local resources; both surgery and methotrexate are used for ectopic "
       "pregnancy.", None, "two_options", note="names options D and A by their text"),
    mc("ect", "other_language_unreadable", "Cirugía laparoscópica urgente", None, "other_language"),
    mc("ect", "truncated", "Given the hypotension and free fluid, the next best step is", None, "truncated",
       finish="length"),
    # diabetic ketoacidosis (B)
    mc("dka", "bare_letter", "B", "B"),
    mc("dka", "letter_with_text", "B) IV isotonic saline", "B"),
    mc("dka", "explanation", "The first step in DKA is aggressive fluid resuscitation with 0.9% saline. (B)", "B"),
    mc("dka", "bare_letter", "A", "A"),
    mc("dka", "chain_of_thought", "Insulin is essential (A), but fluids come first. Potassium is 4.8, so insulin "
       "need not be held, and bicarbonate is only for a pH below 6.9. Answer: B", "B"),
    mc("dka", "sequence", "Start with B, followed by A once fluids are running.", "B",
       note="a sequence, not alternatives: the question asks for the initial step"),
    mc("dka", "two_then_choice", "Both A and B are needed, but fluids come first: B.", "B"),
    mc("dka", "markdown", "- **Answer:** B\n- **Rationale:** Volume depletion is the most immediate threat; "
       "saline restores perfusion and lowers glucose.", "B"),
    mc("dka", "answer_cue", "Answer: E", "E"),
    mc("dka", "disclaimer_then_answer", "I am not a doctor, but based on standard guidelines the answer would be "
       "B.", "B", note="a disclaimer followed by an answer is not a refusal"),
    mc("dka", "not_an_option", "All of the above are part of DKA management.", None, "not_an_option"),
    mc("dka", "other_language", "正确答案是 Ｂ。", "B", note="full-width letter"),
    # Hashimoto thyroiditis (B)
    mc("hypo", "bare_letter", "B", "B"),
    mc("hypo", "option_paraphrase", "Hashimoto's thyroiditis", "B"),
    mc("hypo", "option_text_prefix", "Hashimoto", "B"),
    mc("hypo", "not_an_option", "Hypothyroidism", None, "not_an_option",
       note="a category, not an option: only part of option E's text"),
    mc("hypo", "explanation", "Primary hypothyroidism due to autoimmune thyroiditis → B", "B"),
    mc("hypo", "bare_letter", "E", "E"),
    mc("hypo", "markdown", "**Diagnosis:** Hashimoto thyroiditis (B)\n\n**Why not the others:**\n- A and D cause "
       "hyperthyroidism\n- C is painful and usually transiently hyperthyroid\n- E would have a low or normal TSH",
       "B"),
    mc("hypo", "two_options", "B or E", None, "two_options"),
    # Wernicke (C)
    mc("wer", "letter_with_text", "C. Thiamine (vitamin B1)", "C"),
    mc("wer", "option_text", "Thiamine", "C"),
    mc("wer", "option_synonym", "Vitamin B1", "C", note="B1 is thiamine, not option B"),
    mc("wer", "option_text", "Vitamin B12", "A", note="option A's text; the B in B12 is not option B"),
    mc("wer", "bare_letter", "C", "C"),
    mc("wer", "other_language", "答案：C（硫胺素）", "C"),
    mc("wer", "answer_cue", "The answer is thiamine, option C.", "C"),
    mc("wer", "latex", "$\\boxed{\\text{C}}$", "C"),
    mc("wer", "run_on", "C\n\nQuestion: Which vitamin deficiency causes pellagra?\nA. Vitamin B12\nB. Folic acid\n"
       "C. Thiamine\nD. Niacin\nAnswer: D", "C", note="a base model answers, then writes a new question of its own"),
    # loop diuretic (C)
    mc("loop", "bare_letter", "C", "C"),
    mc("loop", "letter_with_text", "Furosemide (C) – acts on the Na-K-2Cl cotransporter in the thick ascending "
       "limb.", "C"),
    mc("loop", "option_text", "Furosemide", "C"),
    mc("loop", "bare_letter", "E", "E"),
    mc("loop", "brand_name", "Lasix", "C", note="brand name of furosemide"),
    mc("loop", "two_options", "C/D", None, "two_options"),
    mc("loop", "negation_then_choice", "The correct option is C, not D (acetazolamide is a carbonic anhydrase "
       "inhibitor).", "C"),
    mc("loop", "leading_article", "A loop diuretic acts on the thick ascending limb: that is furosemide, C.", "C"),
    mc("loop", "repeated", "C\nC\nC\nC", "C", note="a degenerate repetition of one letter"),
    # ethosuximide (B)
    mc("etho", "bare_letter", "B", "B"),
    mc("etho", "letter_punct", "b.", "B"),
    mc("etho", "letter_with_text", "Ans: B. Ethosuximide", "B"),
    mc("etho", "option_text", "Ethosuximide (valproate is an alternative)", "B",
       note="valproate is not among the options"),
    mc("etho", "answer_cue", "It's B, ethosuximide.", "B"),
    mc("etho", "chain_of_thought", "Phenytoin and carbamazepine can worsen absence seizures, so avoid A and C. "
       "Between B and D, ethosuximide is the drug of choice: B.", "B"),
    mc("etho", "option_text", "Carbamazepine", "C"),
    mc("etho", "truncated", "The drug of choice is option", None, "truncated", finish="length"),
    mc("etho", "reasoning_field", "**B**", "B", reasoning_content="Absence seizures: ethosuximide or valproate. "
       "Carbamazepine (C) and phenytoin (A) aggravate them."),
    mc("etho", "reasoning_field_only", "", None, "reasoning_only", finish="length",
       reasoning_content="Absence seizures in a child... ethosuximide is first-line, so B. Let me double-check "
       "phenobarbital: sedating, not first line. Final: B"),
    # axillary nerve (B)
    mc("axil", "letter_with_text", "B) Axillary nerve", "B"),
    mc("axil", "option_text_prefix", "Axillary", "B"),
    mc("axil", "explanation", "The axillary nerve wraps around the surgical neck, so B.", "B"),
    mc("axil", "letter_then_others", "B is correct. A (radial) is injured in midshaft fractures, C (median) in "
       "supracondylar fractures, and D (ulnar) at the medial epicondyle.", "B"),
    mc("axil", "bare_letter", "A", "A"),
    mc("axil", "answer_cue", "Answer:\n\nB", "B"),
    mc("axil", "other_language", "Réponse : B (nerf axillaire)", "B"),
    mc("axil", "two_options", "A, B, C and D can all be injured in shoulder trauma.", None, "two_options"),
    # nephrotic syndrome, NOT question (D)
    mc("neph", "bare_letter", "D", "D"),
    mc("neph", "not_question", "D is not a feature of nephrotic syndrome; red cell casts suggest nephritic "
       "syndrome.", "D", note="the 'not' answers the question's NOT; it does not reject D"),
    mc("neph", "option_paraphrase", "Hematuria with RBC casts", "D"),
    mc("neph", "negation_only", "Not D.", None, "negation_only",
       note="rejects one option and chooses none"),
    mc("neph", "not_question", "A, B and C are all features of nephrotic syndrome; the exception is D.", "D"),
    mc("neph", "explanation", "Nephritic feature → D", "D"),
    # PubMedQA as options: A yes, B no, C maybe
    mc("pq_statin", "bare_letter", "A", "A"),
    mc("pq_statin", "option_text", "Yes", "A"),
    mc("pq_statin", "option_text", "yes.", "A"),
    mc("pq_statin", "letter_with_text", "A (yes)", "A"),
    mc("pq_statin", "option_text", "YES - the pooled trials show a lower rate of postoperative AF with statin "
       "pretreatment.", "A"),
    mc("pq_statin", "option_text", "Yes, preoperative statins were associated with a 40% relative reduction.",
       "A"),
    mc("pq_statin", "answer_cue", "Answer: A\nExplanation: The randomized trials summarized in the abstract show "
       "fewer AF episodes.", "A"),
    mc("pq_statin", "two_options", "A or C", None, "two_options"),
    mc("pq_vitd", "bare_letter", "B", "B"),
    mc("pq_vitd", "option_text", "No.", "B"),
    mc("pq_vitd", "leading_article", "The answer is a no.", "B", note="'a' is an article, not option A"),
    mc("pq_vitd", "option_text", "no — supplementation did not reduce falls (HR 0.97)", "B"),
    mc("pq_vitd", "option_text", "Maybe", "C"),
    mc("pq_vitd", "hedge", "Probably not.", None, "hedge", note="no option's word, and 'maybe' is itself an option"),
    mc("pq_vitd", "hedge", "The evidence is mixed.", None, "hedge"),
    mc("pq_vitd", "explanation", "Not really: the trial found no difference in falls. B", "B"),
    mc("pq_mobil", "bare_letter", "C", "C"),
    mc("pq_mobil", "option_text", "maybe", "C"),
    mc("pq_mobil", "option_text", "Maybe. The study was underpowered and the confidence interval crossed 1.", "C"),
    mc("pq_mobil", "two_options", "Yes or maybe", None, "two_options"),
    mc("pq_mobil", "letter_with_text", "C - maybe", "C"),
    mc("pq_mobil", "reasoning_block", "<think>\nThe study shows a trend toward a shorter stay but p=0.08, so it is "
       "not conclusive. Maybe, C.\n</think>\n\n**C**", "C"),
    # race-based content (A yes / B no)
    mc("race_egfr", "bare_letter", "A", "A"),
    mc("race_egfr", "option_text", "Yes, it uses a race coefficient.", "A"),
    mc("race_egfr", "letter_with_text", "A. Yes", "A"),
    mc("race_egfr", "bare_letter", "B", "B"),
    mc("race_egfr", "refusal", "I'm sorry, but I can't evaluate content about race.", None, "refusal"),
    mc("race_pain", "option_text", "No", "B"),
    mc("race_pain", "letter_with_text", "B (no race-based content)", "B"),
    mc("race_pain", "option_text", "No race-based content", "B", note="'No' answers the question"),
    # n2c2 ABDOMINAL (A yes)
    mc("n2c2_abd", "bare_letter", "A", "A"),
    mc("n2c2_abd", "letter_punct", "A.", "A"),
    mc("n2c2_abd", "option_text", "Yes - the 2012 note documents a prior sigmoid colectomy.", "A"),
    mc("n2c2_abd", "echo_instruction", "A for yes", "A"),
    mc("n2c2_abd", "two_options", "A for yes, B for no", None, "two_options", note="repeats the instruction"),
    mc("n2c2_abd", "explanation", "Based on the records: the patient had an appendectomy in 1998 and a laparoscopic "
       "cholecystectomy in 2010. Both are intra-abdominal surgeries. Therefore, the patient meets the criterion: A",
       "A"),
    # EHRSHOT readmission (B no)
    mc("readmit", "bare_letter", "B", "B"),
    mc("readmit", "letter_then_text", "B\n\nThe patient's last discharge was followed by outpatient visits only.",
       "B"),
    mc("readmit", "option_text", "No", "B"),
    mc("readmit", "whitespace", " ", None, "empty"),
    mc("readmit", "refusal", "I cannot predict future events for a specific patient.", None, "refusal"),
    mc("readmit", "reasoning_block", "<think>\nTwo admissions in the last year, discharged home, follow-up visit "
       "booked. Moderate risk at most. I'd say no.\n</think>\nB", "B"),
    mc("readmit", "truncated_in_reasoning", "<think>\nThe patient has heart failure with several admissions, a high "
       "risk of readmission. But the question asks about 30 days and the last", None, "truncated_in_reasoning",
       finish="length"),
]
