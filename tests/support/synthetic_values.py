"""Values for the synthetic notes: surrogate PHI in many written forms, half of the names and towns from
outside every shipped word list, and the note builder that records where each value lands."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from medhelm_local.redact.dictionaries import FILES, read_table, read_words
from medhelm_local.redact.types import PhiType, Span

# Real names and towns that no shipped list holds (checked at load), and syllables for made-up ones:
# the detector can find these only through cues, case and shape, never by looking them up.
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
_ONSETS = "b br ch d dr f g gr h j k kr l m n p qu r s sh st t tr v w z th".split()
_VOWELS = "a e i o u ai ei ou ia".split()
_CODAS = ["", "", "", "n", "r", "l", "s", "k", "m", "nd", "rt", "sk", "v"]
_TOWN_ENDS = ["ville", "ford", "ton", "bury", "dale", " Falls", " Springs", "wick", "mouth", " Creek"]

TREES = "Elm Maple Oak Cedar Pine Birch Willow Chestnut Main Church Mill River Lake Park Washington Lincoln".split()
SUFFIXES = "Street St Avenue Ave Road Rd Drive Dr Lane Ln Court Ct Boulevard Blvd Way Place Terrace Circle".split()
STATES = "MA NY CA TX FL IL OH PA GA NC MI NJ VA WA AZ".split()
MONTHS = "January February March April May June July August September October November December".split()
RELATIONS = "wife husband son daughter sister brother niece nephew mother father partner friend".split()


class Pools:
    """Surrogate values from the shipped lists, plus a check that made-up ones are in none of them."""

    def __init__(self, folder: Path) -> None:
        every = {name: read_words(folder / name) for name in FILES}
        learned = frozenset(row[0] for row in read_table(folder.parent / "vocabulary" / "clinical_words.tsv"))
        self.known = frozenset().union(*every.values(), learned)
        self.first = sorted(every["first_names.txt"])
        self.last = (folder / "surnames.txt").read_text(encoding="utf-8").split()[:5000]
        self.cities = sorted(c for c in every["cities_us.txt"] if 4 <= len(c) <= 16)
        self.unseen_last = [w for w in _UNSEEN_SURNAMES if not self.listed(w)]
        self.unseen_first = [w for w in _UNSEEN_FIRST if not self.listed(w)]
        self.unseen_towns = [t for t in _UNSEEN_TOWNS if not self.listed(t)]

    def listed(self, value: str) -> bool:
        """Whether any word of `value` is in a shipped list (names, places, English or clinical words)."""
        return any(w in self.known for w in re.findall(r"[a-z]+", value.lower()))

    def made_up(self, rng: random.Random, syllables: int, ends: list[str] | None = None) -> str:
        """A pronounceable word that is in no shipped list ("Tavoreni", "Kesumbra", "Drailford")."""
        while True:
            word = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(syllables))
            word = word.title() + (rng.choice(ends) if ends else "")
            if 4 <= len(word) <= 16 and not self.listed(word):
                return word


@lru_cache(maxsize=2)
def pools_for(folder: Path) -> Pools:
    """Pools for a dictionary folder, read once."""
    return Pools(folder)


class Note:
    """Builds one note: literal text and values, recording PHI spans, out-of-list spans and hard negatives."""

    def __init__(self, rng: random.Random, pools: Pools, unseen_share: float) -> None:
        self.rng, self.pools, self.unseen_share = rng, pools, unseen_share
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.unseen_spans: list[Span] = []
        self.negatives: list[tuple[int, int]] = []
        self.unseen_words: set[str] = set()
        self.length = 0
        self.pt_first, self.pt_last = self.first(), self.last()
        self.dr, self.dr2, self.rel_name = self.last(), self.last(), self.first()
        self.rn, self.relation, self.city = self.first(), rng.choice(RELATIONS), self.town()

    def _unseen(self, value: str) -> str:
        self.unseen_words.update(re.findall(r"[a-z]+", value.lower()))
        return value

    def first(self) -> str:
        if self.rng.random() < self.unseen_share:
            pick = self.rng.choice(self.pools.unseen_first) if self.rng.random() < 0.4 else \
                self.pools.made_up(self.rng, self.rng.choice([2, 3]))
            return self._unseen(pick)
        return self.rng.choice(self.pools.first).title()

    def last(self) -> str:
        if self.rng.random() < self.unseen_share:
            pick = self.rng.choice(self.pools.unseen_last) if self.rng.random() < 0.4 else \
                self.pools.made_up(self.rng, self.rng.choice([2, 3]))
            return self._unseen(pick)
        return self.rng.choice(self.pools.last).title().replace("'", "")

    def town(self) -> str:
        if self.rng.random() < self.unseen_share:
            pick = self.rng.choice(self.pools.unseen_towns) if self.rng.random() < 0.3 else \
                self.pools.made_up(self.rng, 2, _TOWN_ENDS)
            return self._unseen(pick)
        return self.rng.choice(self.pools.cities).title()

    def street_name(self) -> str:
        if self.rng.random() < self.unseen_share:
            return self._unseen(self.pools.made_up(self.rng, 2))
        return self.rng.choice(TREES)

    def add(self, text: str, kind: PhiType | None = None) -> None:
        """Append literal text, or a value of `kind` (recorded as gold)."""
        if kind is not None:
            span = Span(self.length, self.length + len(text), kind)
            self.spans.append(span)
            if self.unseen_words.intersection(re.findall(r"[a-z]+", text.lower())):
                self.unseen_spans.append(span)
        self.parts.append(text)
        self.length += len(text)

    def fill(self, template: str) -> None:
        """Append a template: {SLOT}s become values (PHI ones annotated), the rest is literal."""
        for i, piece in enumerate(re.split(r"\{([A-Z0-9_]+)\}", template)):
            if i % 2 == 0:
                self.add(piece)
            else:
                value, kind = SLOTS[piece](self)
                self.add(value, kind)

    def negative(self, text: str) -> None:
        """Append a sentence of PHI look-alikes (vitals, doses, scores, eponyms): nothing in it is PHI."""
        self.negatives.append((self.length, self.length + len(text)))
        self.add(text)


def _num(lo: int, hi: int) -> Callable[[Note], tuple[str, None]]:
    return lambda n: (str(n.rng.randint(lo, hi)), None)


def _ordinal(d: int) -> str:
    return f"{d}{'th' if 10 <= d % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(d % 10, 'th')}"


def _date(n: Note) -> tuple[str, PhiType]:
    r = n.rng
    y, m, d = r.randint(1995, 2024), r.randint(1, 12), r.randint(1, 28)
    mon, hh, mm = MONTHS[m - 1], r.randint(0, 23), r.choice([0, 5, 15, 30, 45])
    forms = [f"{m}/{d}", f"{m:02d}/{d:02d}/{y}", f"{m}/{d}/{y % 100:02d}", f"{y}-{m:02d}-{d:02d}",
             f"{mon} {_ordinal(d)}", f"{mon} {d}, {y}", f"{d} {mon} {y}", f"{d:02d}-{mon[:3]}-{y}", f"{mon[:3]} {d}",
             f"{mon} {y}",
             f"{m}/{d}/{y}", f"{mon[:3]}. {d}, {y}", f"{_ordinal(d)} of {mon}",
             # less common but real: dotted and compact ISO, month-first with dashes, day-first, with a time
             f"{y}.{m:02d}.{d:02d}", f"{y}{m:02d}{d:02d}", f"{mon[:3]}-{d:02d}-{y}", f"{d}/{m}/{y}",
             f"{m:02d}/{d:02d}/{y} {hh:02d}:{mm:02d}", f"{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}",
             f"{m}-{d}-{y % 100:02d}",
             f"{mon} {_ordinal(d)}, {y}", f"{d}-{mon[:3]}-{y % 100:02d}"]
    return r.choice(forms), PhiType.DATE


def _phone(n: Note) -> tuple[str, PhiType]:
    r = n.rng
    a, b, c = r.randint(201, 989), r.randint(200, 999), r.randint(0, 9999)
    forms = [f"({a}) {b}-{c:04d}", f"{a}-{b}-{c:04d}", f"{a}.{b}.{c:04d}", f"{a} {b} {c:04d}", f"+1 {a} {b} {c:04d}",
             f"{b}-{c:04d}", f"{a}-{b}-{c:04d} ext. {r.randint(10, 9999)}", f"({a}){b}-{c:04d}", f"1-{a}-{b}-{c:04d}",
             f"+1 ({a}) {b}-{c:04d}", f"{a}/{b}-{c:04d}", f"+44 20 {r.randint(7000, 8999)} {c:04d}"]
    return r.choice(forms), PhiType.PHONE


def _digits(n: Note, k: int) -> str:
    return "".join(str(n.rng.randint(0, 9)) for _ in range(k))


def _letters(n: Note, k: int) -> str:
    return "".join(n.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(k))


def _mrn(n: Note) -> tuple[str, PhiType]:
    forms = [_digits(n, n.rng.choice([6, 7, 8, 9])), f"{_letters(n, 1)}{_digits(n, 7)}",
             f"{_digits(n, 2)}-{_digits(n, 3)}-{_digits(n, 3)}", f"{_digits(n, 3)}-{_digits(n, 2)}-{_digits(n, 2)}"]
    return n.rng.choice(forms), PhiType.MRN


def _plan(n: Note) -> tuple[str, PhiType]:
    forms = [f"{_letters(n, 3)}{_digits(n, 9)}", f"{_digits(n, 8)}{_letters(n, 1)}",
             f"{_digits(n, 1)}{_letters(n, 2)}{_digits(n, 1)}-{_letters(n, 2)}{_digits(n, 1)}-"  # a Medicare MBI
             f"{_letters(n, 2)}{_digits(n, 2)}"]
    return n.rng.choice(forms), PhiType.HEALTH_PLAN


def _street(n: Note) -> tuple[str, PhiType]:
    r = n.rng
    name = r.choice([r.choice(TREES), n.last(), f"{r.randint(2, 99)}th", n.street_name()])
    unit = r.choice(["", "", f", Apt {r.randint(1, 40)}{r.choice('ABC')}", f" Unit {r.randint(1, 300)}",
                     f" #{r.randint(1, 30)}", f", Suite {r.randint(100, 900)}"])
    return f"{r.randint(1, 9899)} {name} {r.choice(SUFFIXES)}{unit}", PhiType.STREET


def _hospital(n: Note) -> tuple[str, PhiType]:
    forms = [f"{n.town()} General Hospital", f"{n.last()} Memorial Hospital", f"St. {n.first()}'s Hospital",
             f"{n.town()} Medical Center", f"{n.last()} Clinic", f"{n.town()} Regional Medical Center",
             f"University of {n.town()} Hospital", f"{n.last()} Rehabilitation Center"]
    return n.rng.choice(forms), PhiType.HOSPITAL

SLOTS: dict[str, Callable[[Note], tuple[str, PhiType | None]]] = {
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
    "MRN": _mrn, "PLAN": _plan,
    "ACCT": lambda n: (n.rng.choice([_digits(n, 10), f"{_digits(n, 4)}-{_digits(n, 6)}"]), PhiType.ACCOUNT),
    "LIC": lambda n: (f"{_letters(n, 2)}{_digits(n, 7)}", PhiType.LICENSE),
    "NPI": lambda n: (_digits(n, 10), PhiType.LICENSE),
    "VIN": lambda n: (f"1{_letters(n, 4)}{_digits(n, 2)}{_letters(n, 2)}{_digits(n, 8)}", PhiType.VEHICLE),
    "PLATE": lambda n: (f"{_digits(n, 1)}{_letters(n, 3)}{_digits(n, 3)}", PhiType.VEHICLE),
    "DEVICE": lambda n: (f"{_letters(n, 3)}{_digits(n, 6)}", PhiType.DEVICE),
    "CITY": lambda n: (n.city, PhiType.CITY), "TOWN": lambda n: (n.town(), PhiType.CITY),
    "STREET": _street,
    "ZIP": lambda n: (n.rng.choice([_digits(n, 5), f"{_digits(n, 5)}-{_digits(n, 4)}"]), PhiType.ZIP),
    "STATE": lambda n: (n.rng.choice(STATES), None),
    "HOSP": _hospital, "TIME": lambda n: (f"{n.rng.randint(0, 23):02d}{n.rng.choice(['00', '15', '30', '45'])}", None),
    "HR": _num(55, 125), "SAT": _num(88, 100),
    "BP": lambda n: (f"{n.rng.randint(95, 170)}/{n.rng.randint(50, 95)}", None),
    "PAIN": lambda n: (f"{n.rng.randint(0, 10)}/10", None), "NUM": _num(2, 9),
}
