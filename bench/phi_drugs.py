"""False alarms on drug names in ICU nursing phrasing: the words MedicationQA's consumer questions write capitalised
in mid-sentence (mostly brands and generics: "Pacerone", "Glucophage", "Zocor"), put into phrases nurses write about
drugs ("SWITCHED FROM {} TO HEPARIN", "weaned off {} this am", "AWAITING {} FROM PHARMACY"), in capitals and in lower
case. A word flagged in a neutral phrase ("CONT {} AND MONITOR.") is left out: a month, a holiday, a town or a name
that happens to be capitalised there ("November", "Harvard"), which the detector is right to mask.

MedicationQA is in none of the sources `redaction/vocabulary` is counted from, so its brands are unknown words to
the detector, as most brands in real notes are. Its phrases were tuned on at stop 48 (the "changed from" and "from
pharmacy" readings came from this probe); a phrase added later and measured before any rule changes is the fairer
figure. Two phrases stay flagged on purpose: after "PCA" (a patient care assistant is named there too) and after
"states" (as in "WIFE STATES JOHN WILL VISIT"), an unknown word is read as a name. Prints, per
phrase, how many of the words are flagged in either case, then `drug_flags_per_1000 F` over every phrase and word.
Reads ../shared/datasets/medication_qa (or PHI_BENCH_DATASETS); nothing of it is kept.
Run: .venv/bin/python bench/phi_drugs.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from phi_sets import SHARED

from medhelm_local.redact.detector import Detector, detector_for
from medhelm_local.scenarios.spreadsheet import read_sheet_rows
from medhelm_local.settings import default_redaction_dir

WORKBOOK = SHARED / "medication_qa" / "MedInfo2019-QA-Medications.xlsx"
NEUTRAL = "CONT {} AND MONITOR."
PHRASES = ("SWITCHED FROM {} TO HEPARIN.", "changed from levo to {} overnight", "SWITCHED FROM HEPARIN TO {}.",
           "DECREASED FROM {} 10 TO 5.", "weaned off {} this am", "BACK ON {} GTT", "OFF {} SINCE 0800",
           "d/c'd {} per team", "started on {} for afib", "on {} and heparin", "NEEDS {} PRIOR TO TRANSFER",
           "{} @ 5 MCG/MIN", "PT REFUSED {}", "c/o pain, medicated w/ {}", "{} given at 1400", "pt from home on {}",
           "REQUIRED {} X2", "{} HELD FOR LOW BP, MD AWARE.", "GIVEN {} 5MG IV WITH GOOD EFFECT.",
           "converted to {} po", "transitioned to {}", "AWAITING {} FROM PHARMACY", "pt states {} helps",
           "PCA {}", "ALLERGIC TO {}")
_CAPITALISED = re.compile(r"(?<=[a-z,;] )([A-Z][a-z]{3,})\b")


def words(path: Path) -> list[str]:
    """The distinct words the workbook's cells write capitalised after a lower-case word, in lower case, in order."""
    cells = [text for _, row in read_sheet_rows(path) for text in row.values()]
    return list(dict.fromkeys(m.group(1).lower() for cell in cells for m in _CAPITALISED.finditer(cell)))


def flagged(detector: Detector, phrase: str, word: str) -> bool:
    """Whether a span covers the word in the phrase, in capitals or in lower case."""
    for text in (phrase.format(word).upper(), phrase.format(word).lower()):
        at = text.lower().index(word)
        if any(s.start <= at < s.end for s in detector.detect(text)):
            return True
    return False


def main() -> None:
    if not WORKBOOK.exists():
        sys.exit(f"{WORKBOOK} is missing: put the public datasets beside the repository (../shared/datasets, as "
                 "`medhelm-local data stage` writes them on a connected host) or name their folder in "
                 "PHI_BENCH_DATASETS")
    detector = detector_for(default_redaction_dir().resolve())
    candidates = words(WORKBOOK)
    drugs = [w for w in candidates if not flagged(detector, NEUTRAL, w)]
    print(f"{len(candidates)} words capitalised mid-sentence; {len(drugs)} unflagged in '{NEUTRAL}' are probed")
    total = 0
    for phrase in PHRASES:
        hits = [w for w in drugs if flagged(detector, phrase, w)]
        total += len(hits)
        print(f"{len(hits):4d}  {phrase:<40} {', '.join(hits[:8])}")
    print(f"drug_flags_per_1000 {1000 * total / max(1, len(drugs) * len(PHRASES)):.2f}")


if __name__ == "__main__":
    main()
