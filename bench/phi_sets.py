"""The evaluation sets of bench/phi.py, each read into (text, gold spans) documents.

Public sets come from ../shared/datasets when present (or the folder PHI_BENCH_DATASETS names, for a
worktree that does not sit beside it); the hand-annotated sets and the synthetic generator from tests/
(test helpers, not shipped in the package).
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PHI_BENCH_DATASETS") or REPO.parent / "shared" / "datasets")
sys.path.insert(0, str(REPO / "tests"))  # the note generator and the annotated sets' reader are test helpers
from support import phi_notes  # noqa: E402
from support.phi_scoring import Doc  # noqa: E402

WEEKDAY = re.compile(r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day")

PRESIDIO_TYPES = {"PERSON": "NAME", "STREET_ADDRESS": "STREET", "GPE": "GPE", "DATE_TIME": "DATE",
                  "PHONE_NUMBER": "PHONE", "EMAIL_ADDRESS": "EMAIL", "ZIP_CODE": "ZIP", "DOMAIN_NAME": "URL",
                  "IBAN_CODE": "ACCOUNT", "CREDIT_CARD": "ACCOUNT", "US_SSN": "SSN", "IP_ADDRESS": "IP",
                  "US_DRIVER_LICENSE": "LICENSE"}
MEDDOCAN_TYPES = {"NOMBRE_SUJETO_ASISTENCIA": "NAME", "NOMBRE_PERSONAL_SANITARIO": "NAME", "FECHAS": "DATE",
                  "CALLE": "STREET", "TERRITORIO": "CITY", "HOSPITAL": "HOSPITAL", "INSTITUCION": "HOSPITAL",
                  "CENTRO_SALUD": "HOSPITAL", "ID_SUJETO_ASISTENCIA": "MRN", "ID_TITULACION_PERSONAL_SANITARIO":
                  "LICENSE", "ID_ASEGURAMIENTO": "HEALTH_PLAN", "ID_CONTACTO_ASISTENCIAL": "ACCOUNT",
                  "CORREO_ELECTRONICO": "EMAIL", "NUMERO_TELEFONO": "PHONE", "NUMERO_FAX": "FAX",
                  "URL_WEB": "URL", "DIRECCION_IP": "IP", "IDENTIF_VEHICULOS_NRSERIE_PLACAS": "VEHICLE",
                  "IDENTIF_DISPOSITIVOS_NRSERIE": "DEVICE", "OTROS_SUJETO_ASISTENCIA": "ID"}


def hand_annotated(name: str, style: str | None = None) -> list[Doc]:
    """A hand-annotated set of tests/data/phi_notes (a name of `phi_notes.SETS`), or its notes of one style."""
    return [(n.text, [(s.start, s.end, "" if s.type == phi_notes.NEUTRAL else s.type, s.cls) for s in n.spans])
            for n in phi_notes.load(name) if style is None or n.style == style]


def styles(name: str) -> list[str]:
    """The styles of a hand-annotated set, in the order they first appear."""
    return list(dict.fromkeys(n.style for n in phi_notes.load(name)))


def synthetic(count: int, seed: int, styles: tuple[str, ...] | None = None) -> list[Doc]:
    """The generator's notes as scored documents."""
    from support.synthetic_notes import generate

    notes = generate(count, seed) if styles is None else generate(count, seed, styles)
    return [(n.text, [(s.start, s.end, s.type.value, "") for s in n.spans]) for n in notes]


def presidio(path: Path) -> list[Doc]:
    """presidio_synth_pii: a JSON list of {full_text, spans: [{entity_type, start_position, end_position}]}.
    A DATE_TIME that is only a weekday ("Friday") is neutral: Safe Harbor's date elements are day, month and
    year, not the day of the week."""
    docs = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        text, gold = item["full_text"], []
        for s in item["spans"]:
            start, end = s["start_position"], s["end_position"]
            kind = "" if WEEKDAY.fullmatch(text[start:end]) else PRESIDIO_TYPES.get(s["entity_type"], "")
            gold.append((start, end, kind, ""))
        docs.append((text, gold))
    return docs


def meddocan(folder: Path) -> list[Doc]:
    """MEDDOCAN BRAT: NAME.txt and NAME.ann with lines 'T1<TAB>TYPE START END<TAB>text'."""
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        gold = []
        for line in txt.with_suffix(".ann").read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                kind, start, end = line.split("\t")[1].split(" ")[:3]
                gold.append((int(start), int(end.split(";")[0]), MEDDOCAN_TYPES.get(kind, ""), ""))
        docs.append((txt.read_text(encoding="utf-8"), gold))
    return docs


def aci_dialogues(folder: Path) -> list[tuple[str, set[str]]]:
    """ACI-Bench dialogues (CC BY 4.0) with the lower-case name words of their patient and doctor."""
    out = []
    for meta_path in sorted(folder.glob("*_metadata.csv")):
        transcripts = meta_path.with_name(meta_path.name.replace("_metadata", ""))
        dialogues = {r["encounter_id"]: r["dialogue"] for r in csv.DictReader(transcripts.open(encoding="utf-8"))}
        for row in csv.DictReader(meta_path.open(encoding="utf-8")):
            names = {w.lower() for key in ("patient_firstname", "patient_familyname", "doctor_name")
                     for w in re.findall(r"[^\W_]+", row.get(key) or "") if len(w) > 1}
            out.append((dialogues.get(row["encounter_id"], ""), names - {"dr", "md"}))
    return out


def vignettes(path: Path, limit: int = 1000) -> list[str]:
    """MedBullets question vignettes: vitals, labs, doses and eponyms, and no PHI."""
    return [row["question"] for row in list(csv.DictReader(path.open(encoding="utf-8")))[:limit]]


def halves(docs: list[Doc], by_parity: bool) -> dict[str, list[Doc]]:
    """The development half (rules were tuned on it) and the held-out half (only measured)."""
    if by_parity:
        return {"development half (even items)": docs[0::2], "HELD-OUT half (odd items)": docs[1::2]}
    mid = len(docs) // 2
    return {"development half (first files by name)": docs[:mid], "HELD-OUT half (last files by name)": docs[mid:]}
