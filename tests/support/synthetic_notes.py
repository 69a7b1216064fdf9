"""A seeded generator of synthetic clinical notes with annotated surrogate PHI, for tests and bench/phi.py.

Styles: ALL-CAPS nursing notes with shorthand, mixed-case discharge summaries, dialogue transcripts
(lower-case "[doctor]" style or "Doctor:" style), and model-written summaries. About a third of the names,
towns and street names come from outside every shipped word list (real ones no list holds, and made-up
ones), so the measure is not flattered by the detector's own dictionaries; each note records which of its
gold spans those are. Every note also carries sentences of hard negatives (vitals, labs, doses, scores,
times, eponyms) whose ranges it records, so false alarms on them can be counted.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.redact.types import Span
from support.synthetic_values import Note, pools_for

STYLES = ("nursing", "discharge", "dialogue", "model_output")
UNSEEN_SHARE = 0.35  # of names, towns and street names drawn from outside the shipped lists


@dataclass(frozen=True)
class SyntheticNote:
    """One generated note: its text, the gold PHI spans, those of them no shipped list holds, and the
    character ranges of hard-negative sentences (nothing in them is PHI)."""

    id: str
    style: str
    text: str
    spans: tuple[Span, ...]
    unseen: tuple[Span, ...] = ()
    negatives: tuple[tuple[int, int], ...] = ()


_NURSING = [
    "{TIME} Pt A&O x3, O2 sat {SAT}% on 2L NC. HR {HR}, BP {BP}. Pain {PAIN}, Tylenol 650 mg PO given.",
    "{TIME} ABG 7.35/45/88. Lungs diminished bilat. Ambulated x2 in hall with PT. Tolerating PO diet.",
    "{TIME} Spoke with {REL} {REL_NAME} at {PHONE} re: d/c planning.",
    "{TIME} Dr. {DR} aware of K 3.2, 40 mEq KCl PO given. Will recheck lytes in AM.",
    "{TIME} Pt resting, call light in reach. Foley draining clear yellow urine, 350 cc out.",
    "{TIME} Lasix 40 mg IV given per MD order. Strength 5/5 BUE, 4/5 BLE. Skin intact.",
    "{TIME} {REL} at bedside, updated on plan of care. Pt states {REL_NAME} will bring clothes.",
    "Pt {PT} admitted {DATE_PARTIAL} from {HOSP} for CHF exacerbation, MRN {MRN}.",
    "{TIME} Paged Dr. {DR2} re: BP {BP}, new orders received. Metoprolol 25 mg PO given.",
    "{TIME} Report given to {RN}, RN. Pt stable, VSS, no acute distress.",
    "Pt lives at {STREET}, {CITY}, {STATE} {ZIP} with {REL}. Home phone {PHONE}.",
    "{TIME} Fingerstick 182, 4 units insulin SQ given. Denies N/V. BM x1.",
    "{TIME} Pt {AGE90} yo, fall risk, bed alarm on. Last fall {DATE}.",
    "{TIME} Wound vac to sacrum intact, -125 mmHg. WBC 12.3, Hgb 9.8, INR 2.3.",
    "Care conference scheduled {DATE} with {REL} {REL_NAME} {PT_LAST} and SW.",
    "{TIME} Pacemaker serial {DEVICE} interrogated, functioning. Rhythm NSR on tele.",
    "{TIME} Pt confused, reoriented x2. Sitter at bedside. CIWA 4.",
]
_DISCHARGE_HEADER = [
    "DISCHARGE SUMMARY\nPatient: {PT}    MRN: {MRN}    DOB: {DOB}\nAdmission Date: {DATE}    Discharge Date: {DATE}\n"
    "Attending: {DR_FULL}, MD    PCP: Dr. {DR2}\n",
    "Name: {LAST_FIRST}\nMedical record number: {MRN}\nAccount #: {ACCT}\nDate of admission: {DATE}\n"
    "Service: Medicine    Attending physician: Dr. {DR}\n",
]
_DISCHARGE = [
    "HPI: {PT_FIRST} {PT_LAST} is a {AGE}-year-old woman with hypertension, type 2 diabetes and CKD stage 3 who "
    "presented to the Emergency Department on {DATE} with two days of dyspnea.",
    "Mr. {PT_LAST} is a {AGE90}-year-old man with Parkinson's disease and atrial fibrillation on Coumadin.",
    "She was transferred from {HOSP} where a CT of the chest showed bilateral effusions.",
    "Hospital course: Diuresed with Lasix 40 mg IV BID with good response. Creatinine peaked at 1.9 on {DATE_PARTIAL}.",
    "A Foley catheter was placed and removed on hospital day 3. Glasgow Coma Scale 15 throughout.",
    "Cardiology (Dr. {DR2}) was consulted; echocardiogram showed an EF of 35% and a 2/6 systolic murmur.",
    "Labs on discharge: Na 138, K 4.1, Cr 1.4, WBC 8.2, Hgb 10.1, platelets 245.",
    "Follow-up: Dr. {DR} at {HOSP} on {DATE}, phone {PHONE}, fax {FAX}.",
    "Her {REL}, {REL_NAME} {PT_LAST}, is the health care proxy and can be reached at {PHONE}.",
    "Patient lives at {STREET}, {TOWN}, {STATE} {ZIP}. Insurance: Member ID {PLAN}.",
    "Portal account created at {URL}; e-mail {EMAIL}.",
    "Social: Retired teacher, quit smoking in {YEAR}, drinks 2 glasses of wine per week. Lives with {REL}.",
    "Prior surgeries: CABG in {YEAR}, right hip replacement {DATE}.",
    "White count trended down. Black stools resolved. May resume aspirin after GI follow-up.",
    "SSN: {SSN}. Driver's license: {LIC}.",
    "Referring provider NPI {NPI}; Medicare ID {PLAN}; vehicle plate {PLATE} (parking voucher).",
    "Dictated by {DR_FULL}, MD on {DATE}. Transcribed by {RN_FULL}.",
    "Pain 3/10 at discharge; strength 5/5 in all extremities. Ambulating with a walker.",
]
_DIALOGUE = [
    ("doctor", "hi {PT_FIRST}, how are you doing today?"), ("patient", "i'm okay. my {REL} {REL_NAME} drove me here."),
    ("doctor", "good. so i'm Dr. {DR}, and this is my nurse {RN}."), ("patient", "nice to meet you."),
    ("doctor", "when did the chest pain start?"), ("patient", "around {DATE}, after we got back from {TOWN}."),
    ("doctor", "and you saw Dr. {DR2} at {HOSP} for that?"), ("patient", "yes, in {YEAR}. they did a stress test."),
    ("doctor", "okay. your pressure today is {BP} and your oxygen is {SAT} percent."),
    ("patient", "my {REL} says i should call you at {PHONE} if it gets worse."),
    ("doctor", "yes, and i'll send the lab order to {EMAIL}. any shortness of breath?"),
    ("patient", "only when i climb stairs. i'm {AGE90} now, you know."),
    ("doctor", "let's start metoprolol 25 mg twice a day and see you back on {DATE}."),
    ("patient", "we moved to {STREET} last month, is that address on file?"),
    ("doctor", "thanks {PT_FIRST}. we'll update it. take care."),
]
_MODEL_OUTPUT = [
    "Summary: {PT} (MRN {MRN}), a {AGE90}-year-old man, was admitted on {DATE} with pneumonia.",
    "The patient, Mrs. {PT_LAST}, reports worsening edema since {DATE}. Her {REL} {REL_NAME} is involved in care.",
    "Plan: continue ceftriaxone, follow up with Dr. {DR} on {DATE} at {HOSP}.",
    "Key findings: troponin 0.04, BNP 880, chest X-ray with bilateral infiltrates, SpO2 92% on room air.",
    "Contact: {PHONE}. Address on file: {STREET}, {TOWN}.",
    "Assessment: 1. Acute on chronic HFrEF. 2. AKI, likely prerenal. 3. Type 2 diabetes, A1c 8.2%.",
]


# Hard negatives: PHI look-alikes a clinical note is full of. Nothing here may be flagged.
NEGATIVES = [
    "BP 132/84, HR 88, RR 18, T 98.6 F, SpO2 97% on RA.",
    "ABG 7.32/48/72/24 on 40% FiO2; lactate 2.1.",
    "Na 138, K 4.1, Cl 101, HCO3 24, BUN 22, Cr 1.2, Glu 145, A1c 7.2%.",
    "INR 2.3, PT 14.2, PTT 32; plt 245, WBC 11.4, Hgb 9.8.",
    "Metoprolol tartrate 25 mg PO BID, lisinopril 10 mg daily, heparin 5000 units SQ q8h.",
    "Insulin glargine 20 units qHS plus sliding scale; Lasix 40 mg IV x1 at 1400.",
    "Take 1/2 tab PO q6h prn, max 4 doses in 24 h.",
    "GCS 15 (E4V5M6), NIHSS 3, CHA2DS2-VASc 4, HAS-BLED 2, Wells score 1.5.",
    "Pain 6/10, strength 4/5 RUE and 5/5 LUE, reflexes 2+ and symmetric.",
    "APGAR 8/9; G2P1 at 38 weeks, EBL 350 mL.",
    "PHQ-9 score 12, GAD-7 score 9, MoCA 24/30.",
    "History of Parkinson disease, Graves disease and Hodgkin lymphoma in remission.",
    "Babinski sign absent, Romberg negative, McMurray test negative, Murphy sign positive.",
    "Status post Whipple procedure and Nissen fundoplication; Swan-Ganz catheter removed.",
    "Known Hashimoto thyroiditis, Barrett esophagus and Raynaud phenomenon.",
    "Cushing syndrome was excluded; Addison disease ruled out by cosyntropin test.",
    "Gleason 3+4=7, Mallampati class II, NYHA class III, ASA 3, Tanner stage 4.",
    "EF 55-60%, QTc 452 ms, PR 0.18 s, BMI 31.2.",
    "MRI of L4-L5 and C5-6 shows mild stenosis; T12 compression fracture.",
    "Repositioned q2h; turned at 0200, 0400 and 0600; I/O 1200/850.",
    "18G IV in L AC placed; 7.5 ETT at 23 cm at the lip.",
    "Follow up in 2-3 weeks; labs in 4-6 weeks; return if symptoms recur x2.",
    "Foley catheter 16 Fr, 350 cc clear yellow urine; Bell palsy improving.",
    "Trial of CPAP 10/5; O2 weaned from 4 L to 2 L NC.",
]


def generate(count: int, seed: int = 0, styles: tuple[str, ...] = STYLES,
             folder: Path | None = None) -> list[SyntheticNote]:
    """`count` notes cycling through `styles`, the same for the same seed and rule pack."""
    from medhelm_local.settings import default_redaction_dir

    pools = pools_for(((folder or default_redaction_dir()) / "dictionaries").resolve())
    rng = random.Random(seed)
    notes = []
    for k in range(count):
        style = styles[k % len(styles)]
        note = Note(rng, pools, UNSEEN_SHARE)
        _WRITERS[style](note)
        text = "".join(note.parts)
        if style == "nursing":
            text = text.upper()
        elif style == "dialogue" and rng.random() < 0.5:
            text = text.lower()
        notes.append(SyntheticNote(f"{style}-{seed}-{k}", style, text, tuple(note.spans), tuple(note.unseen_spans),
                                   tuple(note.negatives)))
    return notes


def _pick(note: Note, templates: list[str], low: int, high: int) -> list[str]:
    chosen = note.rng.sample(templates, note.rng.randint(low, min(high, len(templates))))
    return sorted(chosen, key=templates.index)


def _negatives(note: Note, low: int, high: int, end: str) -> None:
    for sentence in note.rng.sample(NEGATIVES, note.rng.randint(low, high)):
        note.negative(sentence)
        note.add(end)


def _nursing(note: Note) -> None:
    for line in _pick(note, _NURSING, 6, 11):
        note.fill(line + "\n")
    _negatives(note, 1, 3, "\n")
    note.fill("{RN_FULL}, RN\n")


def _discharge(note: Note) -> None:
    note.fill(note.rng.choice(_DISCHARGE_HEADER) + "\n")
    for sentence in _pick(note, _DISCHARGE, 7, 12):
        note.fill(sentence + (" " if note.rng.random() < 0.6 else "\n"))
    _negatives(note, 2, 4, " ")


def _dialogue(note: Note) -> None:
    bracket = note.rng.random() < 0.5
    for speaker, line in _pick_pairs(note):
        note.fill((f"[{speaker}] " if bracket else f"{speaker.title()}: ") + line + "\n")
    note.add("[doctor] " if bracket else "Doctor: ")
    _negatives(note, 1, 2, " ")
    note.add("\n")


def _pick_pairs(note: Note) -> list[tuple[str, str]]:
    keep = sorted(note.rng.sample(range(len(_DIALOGUE)), note.rng.randint(8, len(_DIALOGUE))))
    return [_DIALOGUE[i] for i in keep]


def _model_output(note: Note) -> None:
    for sentence in _pick(note, _MODEL_OUTPUT, 3, 6):
        note.fill(sentence + " ")
    _negatives(note, 1, 2, " ")


_WRITERS: dict[str, Callable[[Note], None]] = {
    "nursing": _nursing, "discharge": _discharge, "dialogue": _dialogue, "model_output": _model_output,
}
