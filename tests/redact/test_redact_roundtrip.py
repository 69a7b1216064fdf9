"""The export gate's rescan: masked text must come back clean, masks themselves are never PHI."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from support.synthetic_notes import STYLES, generate

from medhelm_local.redact import Detector, PhiType, detect, load_policy, mask
from medhelm_local.settings import default_redaction_dir

PACK = default_redaction_dir()
MASK_FORMAT = load_policy(PACK / "surrogates.yaml").mask_format


def leftovers(text: str, mask_format: str = MASK_FORMAT, detector: Detector | None = None) -> list[str]:
    """What a rescan of the masked text finds outside the masks (the gate refuses an export if any)."""
    find = detector.detect if detector is not None else detect
    masked = mask(text, find(text), mask_format)
    kinds = "|".join(t.value for t in PhiType)
    before, _, after = mask_format.partition("{type}")
    inserted = [m.span() for m in re.finditer(f"{re.escape(before)}(?:{kinds}){re.escape(after)}", masked)]
    return [masked[s.start:s.end] for s in find(masked)
            if not any(a <= s.start and s.end <= b for a, b in inserted)]


@pytest.mark.parametrize("style", STYLES)
def test_masked_synthetic_notes_rescan_clean(style: str) -> None:
    notes = generate(60, seed=21, styles=(style,))
    found = {n.id: leftovers(n.text) for n in notes}
    assert {k: v for k, v in found.items() if v} == {}


TRICKY = [
    "Dr. John Smith saw Mr. Smith; SMITH, JOHN A. signed. cc: J. Smith, MD",
    "Seen by Dr. O'Brien-Kowalczyk with her husband Oluwaseun (cell 617 555 0199) on 7/22 at 14:30.",
    "PT LIVES AT 42 ELM ST APT 4, SPRINGFIELD MA 01103 WITH WIFE JANE KOWALSKI. HOME PHONE 617-555-1234.",
    "Address: 6750 Koskikatu 25 Apt. 864\nArtilleros\n, CO\n Uruguay 64677\nPhone: +46 (0)8 928 571 38",
    "Transferred from St. Mary's Hospital to Hospital Universitario de La Princesa, Madrid, on 3 March 2021.",
    "Domicilio: Av. Castilla y Leon. 23.\nLocalidad/ Provincia: Asturias.\nCP: 33001.\nNHC: 4375280.",
    "Remitido por: Dra. María Pilar Bahílo Mateu. Calle Strachan, 4 -2º piso 29015- Badajoz (España).",
    "Member ID: XJH448190203, MRN 0048213, SSN 123-45-6789, NASS: 14 9096265001 02, NºCol: 46 28 52938.",
    "[doctor] hi martha , i'm dr. lee . [patient] my son david drove me from ashgrove , we live on maple avenue .",
    "Patient [NAME] was seen by Dr. [NAME] at [HOSPITAL] on [DATE]; call [PHONE].",
    # Both once left a street or a postcode behind: the masks changed what stood around them.
    "Zoltan Kudrasz\n\n418 Petőfi tér 7.\n Suite 12\n Kiskunhalas\n Hungary 60400",
    "Remitido por: Dr. Pablo Guzmán. Pz. de Pontevedra,2 Ed. ICA, Esc. 2º, 5ºC 30009 Murcia. (España)",
]


@pytest.mark.parametrize("text", TRICKY)
def test_masked_tricky_texts_rescan_clean(text: str) -> None:
    assert leftovers(text) == []


@pytest.mark.parametrize("kind", list(PhiType))
def test_masks_are_never_detected(kind: PhiType) -> None:
    token = MASK_FORMAT.format(type=kind.value)
    for text in (f"Dr. {token} Smith", f"{token}, MD", f"lives at {token}, {token} {token}",
                 f"{token.upper()} AWARE. {token} 12345", f"Name: {token}\n{token}\n{token}"):
        spans = detect(text)
        start = text.index(token)
        assert not any(s.start < start + len(token) and start < s.end for s in spans), (text, spans)


def test_masks_do_not_change_how_the_words_around_them_read() -> None:
    # Without the masks this line is mixed case; read with them as capitals it would look ALL-CAPS,
    # and "nan" and "ed" (names in the census lists) would be taken for names.
    assert detect("[NAME] [NAME] [STREET] [CITY] [ZIP] per nan and ed") == []


def test_masking_is_idempotent() -> None:
    for note in generate(24, seed=4):
        once = mask(note.text, detect(note.text))
        assert mask(once, detect(once)) == once


def test_the_packs_own_mask_format_is_recognised(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    policy = (pack / "surrogates.yaml").read_text(encoding="utf-8")
    (pack / "surrogates.yaml").write_text(policy.replace('mask_format: "[{type}]"', 'mask_format: "<<{type}>>"'),
                                          encoding="utf-8")
    detector = Detector.from_dir(pack)
    text = "Lives at 42 Elm Street, Apt 3B with wife Jane Kowalski, phone 617-555-1234, since 7/22."
    assert leftovers(text, "<<{type}>>", detector) == []
    assert detector.detect("Dr. <<NAME>> AWARE, <<NAME>>, MD") == []
