"""Classification answers, hand-written as chat models write them (see README.md for the reading rules).

Label sets come from the built-in MedHallu card, the example cards of docs/ (sepsis_triage, shc_ptbm_med) and
three hospital-style cards (PubMedQA read as labels, radiology triage, a lab result). `lettered` says whether
the prompt letters the labels (the card's template places {options}), so that a letter may name a label.
`expected` is the label a careful reader takes as the model's answer, or None with a reason.
"""

from __future__ import annotations

from typing import Any

_PQA = ["yes", "no", "maybe"]
_HALLU_SYNONYMS = {"factual": "0", "not hallucinated": "0", "non-hallucinated": "0", "grounded": "0",
                   "hallucinated": "1", "hallucination": "1", "not factual": "1", "non-factual": "1",
                   "nonfactual": "1"}
_URGENCY_SYNONYMS = {"not urgent": "non-urgent", "emergent": "urgent", "routine": "non-urgent"}
_COVID_SYNONYMS = {"detected": "positive", "not detected": "negative", "inconclusive": "indeterminate"}

# name: (benchmark, question, labels, synonyms, lettered, reference label)
QUESTIONS: dict[str, tuple[str, str, list[str], dict[str, str], bool, str]] = {
    "beta": ("pubmed_qa_labels", "Do preoperative beta-blockers reduce 30-day mortality after non-cardiac surgery?",
             _PQA, {}, False, "no"),
    "frail": ("pubmed_qa_labels", "Is frailty associated with delirium after elective surgery in older adults?",
              _PQA, {}, False, "yes"),
    "music": ("pubmed_qa_labels", "Does music therapy reduce anxiety during colonoscopy?", _PQA, {}, False, "maybe"),
    "beta_l": ("pubmed_qa_lettered", "Do preoperative beta-blockers reduce 30-day mortality after non-cardiac "
               "surgery? A. yes B. no C. maybe", _PQA, {}, True, "no"),
    "frail_l": ("pubmed_qa_lettered", "Is frailty associated with delirium after elective surgery in older adults? "
                "A. yes B. no C. maybe", _PQA, {}, True, "yes"),
    "music_l": ("pubmed_qa_lettered", "Does music therapy reduce anxiety during colonoscopy? A. yes B. no C. maybe",
                _PQA, {}, True, "maybe"),
    "dex_fab": ("medhallu", "#Question#: Does intraoperative dexmedetomidine reduce postoperative delirium? "
                "#Answer#: Yes; in a 2019 trial of 4,812 patients delirium fell from 23% to 4%.",
                ["0", "1"], _HALLU_SYNONYMS, False, "1"),
    "dex_true": ("medhallu", "#Question#: Does intraoperative dexmedetomidine reduce postoperative delirium? "
                 "#Answer#: The abstract reports a lower incidence of delirium with dexmedetomidine in elderly "
                 "cardiac surgery patients.", ["0", "1"], _HALLU_SYNONYMS, False, "0"),
    "sepsis_pos": ("sepsis_triage", "Triage note: T 39.2 C, HR 124, RR 26, BP 88/52, new confusion, productive "
                   "cough. Does this patient meet sepsis screening criteria? Answer yes or no.",
                   ["yes", "no"], {}, False, "yes"),
    "sepsis_neg": ("sepsis_triage", "Triage note: T 37.1 C, HR 82, RR 16, BP 128/76, inversion injury of the left "
                   "ankle. Does this patient meet sepsis screening criteria? Answer yes or no.",
                   ["yes", "no"], {}, False, "no"),
    "ptbm_yes": ("shc_ptbm_med", "Note: 5-year-old with ADHD, combined type; family referred to a parent training "
                 "program. Does the note recommend parent training in behavior management? Answer A for yes or B "
                 "for no.", ["A", "B"], {"yes": "A", "no": "B"}, True, "A"),
    "ptbm_no": ("shc_ptbm_med", "Note: 6-year-old with ADHD; methylphenidate increased to 10 mg twice daily. Does "
                "the note recommend parent training in behavior management? Answer A for yes or B for no.",
                ["A", "B"], {"yes": "A", "no": "B"}, True, "B"),
    "rad_urgent": ("radiology_triage", "Impression: new large left MCA territory infarct with 6 mm midline shift. "
                   "Classify the report as urgent or non-urgent.", ["urgent", "non-urgent"], _URGENCY_SYNONYMS,
                   False, "urgent"),
    "rad_routine": ("radiology_triage", "Impression: stable 4 mm right upper lobe nodule, unchanged since 2021. "
                    "Classify the report as urgent or non-urgent.", ["urgent", "non-urgent"], _URGENCY_SYNONYMS,
                    False, "non-urgent"),
    "covid_pos": ("covid_result", "Lab comment: SARS-CoV-2 RNA amplified, N gene Ct 21, E gene Ct 23. Classify "
                  "the result.", ["positive", "negative", "indeterminate"], _COVID_SYNONYMS, False, "positive"),
    "covid_neg": ("covid_result", "Lab comment: no SARS-CoV-2 target amplified; internal control valid. Classify "
                  "the result.", ["positive", "negative", "indeterminate"], _COVID_SYNONYMS, False, "negative"),
    "covid_ind": ("covid_result", "Lab comment: N gene Ct 38, E gene not amplified; internal control valid. "
                  "Classify the result.", ["positive", "negative", "indeterminate"], _COVID_SYNONYMS, False,
                  "indeterminate"),
}


def cl(question: str, cls: str, answer: str, expected: str | None, reason: str | None = None,
       note: str | None = None, finish: str = "stop", reasoning_content: str | None = None) -> dict[str, Any]:
    """One classification record (fields as documented in README.md)."""
    benchmark, stem, labels, synonyms, lettered, reference = QUESTIONS[question]
    item: dict[str, Any] = {"task": "classification", "benchmark": benchmark, "class": cls, "question": stem,
                            "labels": labels, "synonyms": synonyms, "lettered": lettered, "answer": answer}
    if reasoning_content is not None:
        item["reasoning_content"] = reasoning_content
    item.update(finish_reason=finish, reference=reference, expected=expected, expected_reason=reason)
    if note:
        item["note"] = note
    return item


ITEMS = [
    # PubMedQA read as labels (not lettered)
    cl("frail", "bare_label", "yes", "yes"),
    cl("frail", "label_case", "Yes", "yes", note="HELM compares case-sensitively"),
    cl("frail", "label_case", "YES", "yes"),
    cl("frail", "label_punct", "Yes.", "yes"),
    cl("frail", "label_with_reason", "Answer: yes, because frail patients had twice the odds of delirium "
       "(OR 2.1).", "yes"),
    cl("frail", "markdown", "**Answer:** yes", "yes"),
    cl("frail", "label_then_text", "yes\n\nThe cohort study found an independent association after adjustment.",
       "yes"),
    cl("frail", "hedge_with_label", "Probably yes", "yes", note="a hedge that still names one label"),
    cl("frail", "other_language", "Sí", None, "other_language"),
    cl("frail", "other_language", "Ja, Gebrechlichkeit war mit einem Delir assoziiert.", None, "other_language"),
    cl("frail", "reasoning_block", "<think>\nThe abstract reports OR 2.1 (95% CI 1.4-3.2): a clear association. "
       "Yes.\n</think>\n\nyes", "yes"),
    cl("beta", "label_case", "No", "no"),
    cl("beta", "label_punct", "no.", "no"),
    cl("beta", "label_with_reason", "No, the pooled trials showed no mortality benefit and more strokes.", "no"),
    cl("beta", "label_with_reason", "NO - beta-blockade started on the day of surgery increased mortality in "
       "POISE.", "no"),
    cl("beta", "answer_cue", "The answer is no.", "no"),
    cl("beta", "markdown", "Based on the abstract, the answer is: **no**", "no"),
    cl("beta", "hedge", "Not necessarily.", None, "hedge"),
    cl("beta", "reasoning_only", "<think>\nMortality was not reduced; strokes increased. So no.\n</think>\n", None,
       "reasoning_only"),
    cl("beta", "empty", "", None, "empty"),
    cl("beta", "letter_unlettered", "A", None, "not_a_label", note="the labels are not lettered in this prompt"),
    cl("beta", "final_answer", "The study concludes that early beta-blocker use does not lower mortality. "
       "Final answer: no", "no"),
    cl("beta", "refusal", "I'm sorry, I can't provide medical advice.", None, "refusal"),
    cl("beta", "json", '{"label": "no"}', "no"),
    cl("beta", "label_with_reason", "no (p = 0.41)", "no"),
    cl("music", "bare_label", "maybe", "maybe"),
    cl("music", "label_with_reason", "Maybe — the trial was small and the effect was not significant after "
       "adjustment.", "maybe"),
    cl("music", "answer_cue", "It's a maybe.", "maybe"),
    cl("music", "two_labels", "yes and no", None, "two_labels"),
    cl("music", "two_labels", "Yes or maybe, depending on how anxiety is measured.", None, "two_labels"),
    cl("music", "no_answer", "I can't determine that from the abstract alone.", None, "no_answer"),
    cl("music", "two_labels", "yes\nno\nmaybe", None, "two_labels", note="lists every label"),
    cl("music", "answer_cue", "My answer: maybe (insufficient evidence)", "maybe"),
    # PubMedQA read as labels, lettered A. yes B. no C. maybe
    cl("frail_l", "lettered_label", "A", "yes"),
    cl("beta_l", "lettered_label", "B. no", "no"),
    cl("music_l", "lettered_label", "(C)", "maybe"),
    cl("music_l", "lettered_label", "C - maybe", "maybe"),
    cl("beta_l", "letter_text_mismatch", "A) no", None, "letter_text_mismatch", note="A is yes; the text says no"),
    cl("frail_l", "bare_label", "yes", "yes"),
    cl("frail_l", "two_labels", "A or B", None, "two_labels"),
    cl("beta_l", "answer_cue", "The answer is B.", "no"),
    # MedHallu: 0 factual, 1 hallucinated
    cl("dex_fab", "bare_label", "1", "1"),
    cl("dex_fab", "label_punct", "1.", "1"),
    cl("dex_true", "bare_label", "0", "0"),
    cl("dex_true", "markdown", "**0**", "0"),
    cl("dex_fab", "answer_cue", "Your Judgment: 1", "1"),
    cl("dex_fab", "label_with_reason", "1 - the answer fabricates a trial of 4,812 patients.", "1",
       note="the numbers after the label are the answer's invented figures"),
    cl("dex_fab", "synonym", "Hallucinated", "1"),
    cl("dex_true", "synonym", "factual", "0"),
    cl("dex_true", "negated_synonym", "Not hallucinated.", "0", note="contains 'hallucinated', which names 1"),
    cl("dex_fab", "negated_synonym", "The answer is not factual; it invents statistics.", "1",
       note="contains 'factual', which names 0"),
    cl("dex_fab", "two_labels", "0 or 1", None, "two_labels"),
    cl("dex_fab", "numbers_before_label", "The answer cites a 2019 trial with 4812 patients and a drop from 23% to "
       "4% that do not appear in the knowledge. Judgment: 1", "1"),
    cl("dex_true", "label_with_reason", "I judge this answer to be grounded in the provided knowledge, so 0.", "0"),
    cl("dex_true", "answer_cue", "Integer: 0", "0"),
    cl("dex_fab", "label_then_text", "1\n\nExplanation: Methodological and Evidence Fabrication.", "1"),
    cl("dex_true", "reasoning_block", "<think>\nThe knowledge says delirium was reduced in the elderly cardiac "
       "group. The answer matches it: factual.\n</think>\n0", "0"),
    cl("dex_fab", "reasoning_only", "<think>\nThe 4,812-patient trial is not in the context. Hallucinated, so 1."
       "\n</think>", None, "reasoning_only"),
    cl("dex_true", "empty", "", None, "empty"),
    cl("dex_fab", "synonym", "hallucination", "1"),
    cl("dex_fab", "synonym", "This is a non-factual answer.", "1"),
    cl("dex_fab", "not_a_label", "2", None, "not_a_label"),
    cl("dex_true", "not_a_label", "True", None, "not_a_label", note="not a label and not one of the card's synonyms"),
    cl("dex_fab", "json", '{"judgment": 1}', "1"),
    cl("dex_true", "label_with_reason", "Answer: 0 (factual)", "0"),
    cl("dex_fab", "refusal", "I'm unable to verify medical claims.", None, "refusal"),
    cl("dex_true", "reasoning_field", "0", "0", reasoning_content="Context: dexmedetomidine lowered delirium in "
       "elderly cardiac surgery patients. The answer restates it without new numbers. Factual."),
    cl("dex_fab", "truncated", "Looking at the claimed trial of 4,812 patients, the", None, "truncated",
       finish="length"),
    # sepsis triage: yes / no
    cl("sepsis_pos", "bare_label", "yes", "yes"),
    cl("sepsis_pos", "label_with_reason", "Yes — meets SIRS and qSOFA criteria (RR 26, SBP 88, altered "
       "mentation).", "yes"),
    cl("sepsis_neg", "label_punct", "No.", "no"),
    cl("sepsis_neg", "label_first_word", "no sepsis criteria met", "no"),
    cl("sepsis_pos", "label_prefix", "Y", "yes", note="the one-letter prefix of one label"),
    cl("sepsis_pos", "numbers_before_label", "The patient meets 3 of 4 SIRS criteria and is hypotensive; answer: "
       "yes", "yes"),
    cl("sepsis_neg", "answer_cue", "Does not meet criteria: no", "no"),
    cl("sepsis_pos", "no_answer", "Cannot be determined without a lactate level.", None, "no_answer"),
    cl("sepsis_pos", "reasoning_block", "<think>\nHR 124, RR 26, SBP 88 — qSOFA 3. Yes.\n</think>\nYes", "yes"),
    cl("sepsis_neg", "bare_label", "no\n", "no"),
    cl("sepsis_pos", "truncated_in_reasoning", "<think>\nTemperature 39.2, heart rate 124, respiratory rate 26. "
       "SIRS needs two of", None, "truncated_in_reasoning", finish="length"),
    # shc_ptbm_med: labels A / B, synonyms yes -> A, no -> B
    cl("ptbm_yes", "bare_label", "A", "A"),
    cl("ptbm_yes", "label_punct", "A.", "A"),
    cl("ptbm_yes", "synonym", "yes", "A"),
    cl("ptbm_no", "bare_label", "B", "B"),
    cl("ptbm_no", "synonym", "No, the note only discusses medication titration.", "B"),
    cl("ptbm_yes", "label_with_reason", "A (yes)", "A"),
    cl("ptbm_no", "label_with_reason", "B - no mention of parent training", "B"),
    cl("ptbm_no", "two_labels", "A or B", None, "two_labels"),
    cl("ptbm_yes", "leading_article", "The note says the family was referred to a parent training program, so A.",
       "A", note="the articles 'a' in the sentence are not the label A"),
    cl("ptbm_yes", "answer_cue", "Answer: a", "A"),
    # radiology triage: urgent / non-urgent
    cl("rad_urgent", "bare_label", "urgent", "urgent"),
    cl("rad_routine", "label_case", "Non-urgent", "non-urgent"),
    cl("rad_routine", "bare_label", "non-urgent", "non-urgent", note="contains the other label, urgent"),
    cl("rad_routine", "synonym", "Not urgent.", "non-urgent"),
    cl("rad_urgent", "label_with_reason", "URGENT - midline shift requires immediate neurosurgical notification.",
       "urgent"),
    cl("rad_urgent", "synonym", "Emergent", "urgent"),
    cl("rad_routine", "synonym", "Routine follow-up per Fleischner guidelines.", "non-urgent"),
    cl("rad_routine", "negated_label", "This is not an urgent finding.", "non-urgent",
       note="negates urgent without using the synonym's exact words"),
    cl("rad_routine", "two_labels", "Could be urgent or non-urgent depending on the clinical context.", None,
       "two_labels"),
    cl("rad_urgent", "markdown", "Classification: **urgent**", "urgent"),
    cl("rad_routine", "label_spelling", "nonurgent", "non-urgent"),
    # lab result: positive / negative / indeterminate
    cl("covid_pos", "bare_label", "positive", "positive"),
    cl("covid_pos", "label_punct", "Positive.", "positive"),
    cl("covid_pos", "synonym", "Detected", "positive"),
    cl("covid_neg", "negated_synonym", "Not detected", "negative", note="contains 'detected', which names positive"),
    cl("covid_neg", "bare_label", "negative", "negative"),
    cl("covid_neg", "answer_cue", "The result is negative for SARS-CoV-2.", "negative"),
    cl("covid_ind", "synonym", "Inconclusive - repeat testing recommended.", "indeterminate"),
    cl("covid_ind", "bare_label", "indeterminate", "indeterminate"),
    cl("covid_ind", "two_labels", "Positive or indeterminate; a Ct of 38 is borderline.", None, "two_labels"),
    cl("covid_neg", "label_prefix", "neg", "negative", note="the laboratory abbreviation, a prefix of one label"),
    cl("covid_neg", "other_language", "结果：阴性", None, "other_language"),
    cl("covid_ind", "reasoning_block", "<think>\nCt 38 on one target, the other target not detected. The lab calls "
       "this inconclusive.\n</think>\n\nindeterminate", "indeterminate",
       note="the reasoning names other labels' synonyms; only the answer is read"),
    # readable answers that pick the wrong label
    cl("frail", "wrong_label", "no", "no"),
    cl("music", "wrong_label", "Yes, music reduced anxiety scores.", "yes"),
    cl("dex_true", "wrong_label", "1", "1"),
    cl("rad_urgent", "wrong_label", "non-urgent", "non-urgent"),
    cl("covid_ind", "wrong_label", "Negative", "negative"),
    cl("ptbm_no", "wrong_label", "A", "A"),
]
