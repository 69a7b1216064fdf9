"""A seeded generator of synthetic clinical notes with annotated surrogate PHI, for tests and bench/phi.py.

Styles: ALL-CAPS nursing notes with shorthand, mixed-case discharge summaries, dialogue transcripts
(lower-case "[doctor]" style or "Doctor:" style), and model-written summaries. One note in five uses
names and towns that are in no shipped dictionary, so the measure also covers what only cues can find.
Notes carry non-PHI look-alikes on purpose: vitals, blood gases, scores, times, doses, eponyms.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from medhelm_local.redact.dictionaries import read_words
from medhelm_local.redact.types import PhiType, Span

STYLES = ("nursing", "discharge", "dialogue", "model_output")

# Written for this generator; checked against the dictionaries at load so they stay out of them.
_UNSEEN_SURNAMES = ("Okonkwo Adeyemi Nwachukwu Wojcikiewicz Szczepanski Thorvaldsen Papadimitriou Raghunathan "
                    "Venkataraman Chakraborty Oyelaran Tshabalala Haugland Lindqvist Aaltonen Nakashima Ekwueme "
                    "Achterberg Kowalczyk Grzegorczyk Przybylski Dziedzic Olawale Bhattacharjee Oyelowo "
                    "Quartermaine Fenwicke Ravensworth Delacourt Marchetti-Vance Ashworth-Pike Okafor Iwuchukwu "
                    "Vasquez-Oduya").split()
_UNSEEN_FIRST = ("Oluwaseun Chiamaka Siobhan Niamh Saoirse Aoife Tadhg Eero Ilkka Kaveri Prasanth Thandiwe Xiaoling "
                 "Zeynep Ngozi Sigrid Anneliese Jolanta Wojciech Dagny Ximena Itzel Mehmet Priyanka Ifeoma Chidi "
                 "Oisin Leilani Keanu Anouk").split()
_UNSEEN_TOWNS = ("Fennimore Glen|Westbridge Landing|Oakhaven|Pinecrest Hollow|Harlowe|Marrowstone|Quillby|"
                 "Ashgrove").split("|")
_TREES = "Elm Maple Oak Cedar Pine Birch Willow Chestnut Main Church Mill River Lake Park Washington Lincoln".split()
_SUFFIXES = "Street St Avenue Ave Road Rd Drive Dr Lane Ln Court Ct Boulevard Blvd Way Place".split()
_STATES = "MA NY CA TX FL IL OH PA GA NC MI NJ VA WA AZ".split()
_MONTHS = "January February March April May June July August September October November December".split()
_RELATIONS = "wife husband son daughter sister brother niece nephew mother father partner friend".split()


@dataclass(frozen=True)
class SyntheticNote:
    """One generated note: its text and the gold PHI spans in it."""

    id: str
    style: str
    text: str
    spans: tuple[Span, ...]


class _Pools:
    """Surrogate values drawn from the shipped dictionaries plus the unseen lists above."""

    def __init__(self, folder: Path) -> None:
        first = read_words(folder / "first_names.txt")
        last = read_words(folder / "surnames.txt")
        cities = read_words(folder / "cities_us.txt") | read_words(folder / "cities_world.txt")
        self.first = sorted(first)
        self.last = [w for w in (folder / "surnames.txt").read_text().split()[:5000]]
        self.cities = sorted(c for c in read_words(folder / "cities_us.txt") if 4 <= len(c) <= 16)
        self.unseen_last = [w for w in _UNSEEN_SURNAMES if w.lower().replace("-", "") not in last]
        self.unseen_first = [w for w in _UNSEEN_FIRST if w.lower() not in first]
        self.unseen_towns = [t for t in _UNSEEN_TOWNS if t.lower() not in cities]


class _Note:
    """Builds one note: literal text and PHI values, recording each value's span."""

    def __init__(self, rng: random.Random, pools: _Pools, unseen: bool) -> None:
        self.rng, self.pools, self.unseen = rng, pools, unseen
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.length = 0
        self.pt_first, self.pt_last = self.first(), self.last()
        self.dr, self.dr2, self.rel_name = self.last(), self.last(), self.first()
        self.rn, self.relation, self.city = self.first(), rng.choice(_RELATIONS), self.town()

    def first(self) -> str:
        pool = self.pools.unseen_first if self.unseen and self.rng.random() < 0.5 else self.pools.first
        return self.rng.choice(pool).title()

    def last(self) -> str:
        pool = self.pools.unseen_last if self.unseen and self.rng.random() < 0.5 else self.pools.last
        return self.rng.choice(pool).title().replace("'", "")

    def town(self) -> str:
        pool = self.pools.unseen_towns if self.unseen and self.rng.random() < 0.5 else self.pools.cities
        return self.rng.choice(pool).title()

    def add(self, text: str, kind: PhiType | None = None) -> None:
        if kind is not None:
            self.spans.append(Span(self.length, self.length + len(text), kind))
        self.parts.append(text)
        self.length += len(text)

    def fill(self, template: str) -> None:
        """Append a template: {SLOT}s become values (PHI ones annotated), the rest is literal."""
        for i, piece in enumerate(re.split(r"\{([A-Z0-9_]+)\}", template)):
            if i % 2 == 0:
                self.add(piece)
            else:
                value, kind = _SLOTS[piece](self)
                self.add(value, kind)


def _num(lo: int, hi: int) -> Callable[[_Note], tuple[str, None]]:
    return lambda n: (str(n.rng.randint(lo, hi)), None)


def _date(n: _Note) -> tuple[str, PhiType]:
    r = n.rng
    y, m, d = r.randint(1995, 2024), r.randint(1, 12), r.randint(1, 28)
    mon = _MONTHS[m - 1]
    ordinal = f"{d}{'th' if 10 <= d % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"
    forms = [f"{m}/{d}", f"{m:02d}/{d:02d}/{y}", f"{m}/{d}/{y % 100:02d}", f"{y}-{m:02d}-{d:02d}", f"{mon} {ordinal}",
             f"{mon} {d}, {y}", f"{d} {mon} {y}", f"{d:02d}-{mon[:3]}-{y}", f"{mon[:3]} {d}", f"{mon} {y}",
             f"{m}/{d}/{y}", f"{mon[:3]}. {d}, {y}", f"{ordinal} of {mon}"]
    return r.choice(forms), PhiType.DATE


def _phone(n: _Note) -> tuple[str, PhiType]:
    a, b, c = n.rng.randint(201, 989), n.rng.randint(200, 999), n.rng.randint(0, 9999)
    forms = [f"({a}) {b}-{c:04d}", f"{a}-{b}-{c:04d}", f"{a}.{b}.{c:04d}", f"{a} {b} {c:04d}", f"+1 {a} {b} {c:04d}",
             f"{b}-{c:04d}", f"{a}-{b}-{c:04d} ext. {n.rng.randint(10, 9999)}"]
    return n.rng.choice(forms), PhiType.PHONE


def _digits(n: _Note, k: int) -> str:
    return "".join(str(n.rng.randint(0, 9)) for _ in range(k))


def _letters(n: _Note, k: int) -> str:
    return "".join(n.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(k))


def _street(n: _Note) -> tuple[str, PhiType]:
    r = n.rng
    name = r.choice([r.choice(_TREES), n.last(), f"{r.randint(2, 99)}th"])
    unit = r.choice(["", "", f", Apt {r.randint(1, 40)}{r.choice('ABC')}", f" Unit {r.randint(1, 300)}"])
    return f"{r.randint(1, 9899)} {name} {r.choice(_SUFFIXES)}{unit}", PhiType.STREET


def _hospital(n: _Note) -> tuple[str, PhiType]:
    forms = [f"{n.town()} General Hospital", f"{n.last()} Memorial Hospital", f"St. {n.first()}'s Hospital",
             f"{n.town()} Medical Center", f"{n.last()} Clinic", f"{n.town()} Regional Medical Center",
             f"University of {n.town()} Hospital", f"{n.last()} Rehabilitation Center"]
    return n.rng.choice(forms), PhiType.HOSPITAL


_SLOTS: dict[str, Callable[[_Note], tuple[str, PhiType | None]]] = {
    "PT": lambda n: (f"{n.pt_first} {n.pt_last}", PhiType.NAME),
    "PT_FIRST": lambda n: (n.pt_first, PhiType.NAME), "PT_LAST": lambda n: (n.pt_last, PhiType.NAME),
    "LAST_FIRST": lambda n: (f"{n.pt_last}, {n.pt_first}", PhiType.NAME),
    "DR": lambda n: (n.dr, PhiType.NAME), "DR2": lambda n: (n.dr2, PhiType.NAME),
    "DR_FULL": lambda n: (f"{n.first()} {n.dr}", PhiType.NAME), "RN": lambda n: (n.rn, PhiType.NAME),
    "RN_FULL": lambda n: (f"{n.rn} {n.last()}", PhiType.NAME),
    "REL_NAME": lambda n: (n.rel_name, PhiType.NAME), "REL": lambda n: (n.relation, None),
    "DATE": _date, "YEAR": lambda n: (str(n.rng.randint(1990, 2023)), PhiType.DATE),
    "DATE_PARTIAL": lambda n: (f"{n.rng.randint(1, 12)}/{n.rng.randint(11, 28)}", PhiType.DATE),
    "DOB": lambda n: (f"{n.rng.randint(1, 12):02d}/{n.rng.randint(1, 28):02d}/{n.rng.randint(1925, 1990)}",
                      PhiType.DATE),
    "AGE90": lambda n: (str(n.rng.randint(90, 104)), PhiType.AGE), "AGE": _num(19, 88),
    "PHONE": _phone, "FAX": lambda n: (_phone(n)[0].split(" ext")[0], PhiType.FAX),
    "EMAIL": lambda n: (f"{n.pt_first[0].lower()}{n.pt_last.lower()}{n.rng.randint(1, 99)}@"
                        f"{n.rng.choice(['gmail.com', 'yahoo.com', 'outlook.com', 'comcast.net'])}", PhiType.EMAIL),
    "URL": lambda n: (n.rng.choice([f"https://mychart.{n.town().lower().replace(' ', '')}health.org/visit",
                                    f"www.{n.dr.lower()}clinic.com"]), PhiType.URL),
    "IP": lambda n: (f"10.{n.rng.randint(0, 255)}.{n.rng.randint(0, 255)}.{n.rng.randint(1, 254)}", PhiType.IP),
    "SSN": lambda n: (f"{_digits(n, 3)}-{_digits(n, 2)}-{_digits(n, 4)}", PhiType.SSN),
    "MRN": lambda n: (_digits(n, n.rng.choice([6, 7, 8, 9])), PhiType.MRN),
    "PLAN": lambda n: (n.rng.choice([f"{_letters(n, 3)}{_digits(n, 9)}", f"{_digits(n, 8)}{_letters(n, 1)}"]),
                       PhiType.HEALTH_PLAN),
    "ACCT": lambda n: (n.rng.choice([_digits(n, 10), f"{_digits(n, 4)}-{_digits(n, 6)}"]), PhiType.ACCOUNT),
    "LIC": lambda n: (f"{_letters(n, 2)}{_digits(n, 7)}", PhiType.LICENSE),
    "VIN": lambda n: (f"1{_letters(n, 4)}{_digits(n, 2)}{_letters(n, 2)}{_digits(n, 8)}", PhiType.VEHICLE),
    "PLATE": lambda n: (f"{_digits(n, 1)}{_letters(n, 3)}{_digits(n, 3)}", PhiType.VEHICLE),
    "DEVICE": lambda n: (f"{_letters(n, 3)}{_digits(n, 6)}", PhiType.DEVICE),
    "CITY": lambda n: (n.city, PhiType.CITY), "TOWN": lambda n: (n.town(), PhiType.CITY),
    "STREET": _street, "ZIP": lambda n: (_digits(n, 5), PhiType.ZIP),
    "STATE": lambda n: (n.rng.choice(_STATES), None),
    "HOSP": _hospital, "TIME": lambda n: (f"{n.rng.randint(0, 23):02d}{n.rng.choice(['00', '15', '30', '45'])}", None),
    "HR": _num(55, 125), "SAT": _num(88, 100),
    "BP": lambda n: (f"{n.rng.randint(95, 170)}/{n.rng.randint(50, 95)}", None),
    "PAIN": lambda n: (f"{n.rng.randint(0, 10)}/10", None), "NUM": _num(2, 9),
}

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


def generate(count: int, seed: int = 0, styles: tuple[str, ...] = STYLES,
             folder: Path | None = None) -> list[SyntheticNote]:
    """`count` notes cycling through `styles`, the same for the same seed and rule pack."""
    from medhelm_local.settings import default_redaction_dir

    pools = _Pools((folder or default_redaction_dir()) / "dictionaries")
    rng = random.Random(seed)
    notes = []
    for k in range(count):
        style = styles[k % len(styles)]
        note = _Note(rng, pools, unseen=rng.random() < 0.2)
        _WRITERS[style](note)
        text = "".join(note.parts)
        if style == "nursing":
            text = text.upper()
        elif style == "dialogue" and rng.random() < 0.5:
            text = text.lower()
        notes.append(SyntheticNote(f"{style}-{seed}-{k}", style, text, tuple(note.spans)))
    return notes


def _pick(note: _Note, templates: list[str], low: int, high: int) -> list[str]:
    chosen = note.rng.sample(templates, note.rng.randint(low, min(high, len(templates))))
    return sorted(chosen, key=templates.index)


def _nursing(note: _Note) -> None:
    for line in _pick(note, _NURSING, 6, 11):
        note.fill(line + "\n")
    note.fill("{RN_FULL}, RN\n")


def _discharge(note: _Note) -> None:
    note.fill(note.rng.choice(_DISCHARGE_HEADER) + "\n")
    for sentence in _pick(note, _DISCHARGE, 7, 12):
        note.fill(sentence + (" " if note.rng.random() < 0.6 else "\n"))


def _dialogue(note: _Note) -> None:
    bracket = note.rng.random() < 0.5
    for speaker, line in _pick_pairs(note):
        note.fill((f"[{speaker}] " if bracket else f"{speaker.title()}: ") + line + "\n")


def _pick_pairs(note: _Note) -> list[tuple[str, str]]:
    keep = sorted(note.rng.sample(range(len(_DIALOGUE)), note.rng.randint(8, len(_DIALOGUE))))
    return [_DIALOGUE[i] for i in keep]


def _model_output(note: _Note) -> None:
    for sentence in _pick(note, _MODEL_OUTPUT, 3, 6):
        note.fill(sentence + " ")


_WRITERS: dict[str, Callable[[_Note], None]] = {
    "nursing": _nursing, "discharge": _discharge, "dialogue": _dialogue, "model_output": _model_output,
}
