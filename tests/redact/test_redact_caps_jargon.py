"""Issue 32, fourth round: in an ICU note written all in capitals or all in lower case, eponyms, devices, organisms,
long procedure words and services after "per" stay readable while the people, the ward and the phone are masked."""

from __future__ import annotations

import pytest

from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir

NOTE = """NPN 7P-7A
NEURO: LEFT SIDED WEAKNESS AFTER SZ, ? TODD PARALYSIS VS NEW CVA. HUMPHREY VISUAL FIELDS WHEN ABLE.
CV: PICCO IN PLACE, FACTOR V LEIDEN POSITIVE PER HEME, ON HEPARIN GTT.
ID: CANDIDA ALBICANS IN URINE, EPSTEIN-BARR VIRUS TITERS SENT. AUER RODS ON SMEAR PER ONC.
GI: S/P ABDOMINOSACROCOLPOPEXY, HX SPHINCTER OF ODDI DYSFUNCTION. TAY-SACHS CARRIER.
SOCIAL: WIFE MARGARET CALLED, UPDATED BY DR KOWALCZYK. SON DENNIS CELL 617-555-0148.
PLAN: OOB TO BRODA CHAIR, TRANSFER TO BAKER 4 WHEN BED AVAILABLE.
-J. PELLETIER RN"""

JARGON = ["TODD", "HUMPHREY", "PICCO", "LEIDEN", "CANDIDA", "EPSTEIN", "BARR", "AUER", "ONC", "ABDOMINOSACROCOLPOPEXY",
          "ODDI", "TAY", "SACHS", "BRODA"]
PHI = ["MARGARET", "KOWALCZYK", "DENNIS", "617-555-0148", "BAKER 4", "PELLETIER"]


@pytest.mark.parametrize("case", ["upper", "lower"])
def test_jargon_stays_while_people_ward_and_phone_are_masked(case: str) -> None:
    text = NOTE if case == "upper" else NOTE.lower()
    spans = detector_for(default_redaction_dir().resolve()).detect(text)

    def masked(word: str) -> bool:
        start = text.index(word if case == "upper" else word.lower())
        return any(s.start <= start < s.end for s in spans)

    assert [w for w in JARGON if masked(w)] == []
    assert [w for w in PHI if not masked(w)] == []


def test_a_person_named_like_an_eponym_is_still_masked_after_a_cue() -> None:
    """The eponym pairs and nouns read what follows a name, not the name alone: a relative stays a relative."""
    detector = detector_for(default_redaction_dir().resolve())
    for text, name in [("DTR CANDIDA CALLED, UPDATED.", "CANDIDA"), ("WIFE ANNE-MARIE CELL 617-555-0142", "ANNE"),
                       ("son todd and dtr may-lee at bedside", "todd")]:
        start = text.index(name)
        assert any(s.start <= start < s.end for s in detector.detect(text)), text
