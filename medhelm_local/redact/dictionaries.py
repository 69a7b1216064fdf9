"""Name and place dictionaries shipped as text files in `redaction/dictionaries/` (see SOURCES.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from medhelm_local.redact.patterns import RedactionRuleError
from medhelm_local.redact.tokens import fold

FILES = ("first_names.txt", "surnames.txt", "cities_us.txt", "cities_world.txt", "common_clinical_words.txt",
         "everyday_words.txt", "clinical_terms.txt")


class Ambiguity(IntEnum):
    """How far a dictionary word can be trusted alone: a name-only word, an English word, a clinical word."""

    NAME_ONLY = 0  # "kowalski", "martha": not an English word, so a name wherever it stands
    EVERYDAY = 1  # "smith", "baker": English words rarely used in clinical writing
    CLINICAL = 2  # "white", "stone", "may", "foley": common in notes; a name only with a cue


@dataclass(frozen=True)
class Dictionaries:
    """Lower-case word sets: first names, surnames, cities (words joined by one space), ambiguity tiers.

    `clinical` holds every word common in clinical writing; `clinical_terms` the hand-written shorthand,
    drug and eponym list, which no rule but a title ("Dr.") overrides.
    """

    first_names: frozenset[str]
    surnames: frozenset[str]
    cities: frozenset[str]
    everyday: frozenset[str]
    clinical: frozenset[str]
    clinical_terms: frozenset[str]
    city_max_words: int

    def ambiguity(self, word: str) -> Ambiguity:
        """The tier of a lower-case word."""
        if word in self.clinical:
            return Ambiguity.CLINICAL
        if word in self.everyday:
            return Ambiguity.EVERYDAY
        return Ambiguity.NAME_ONLY

    def is_name(self, word: str) -> bool:
        """Whether a lower-case word is a known first name or surname."""
        return word in self.first_names or word in self.surnames


def read_words(path: Path) -> frozenset[str]:
    """One lower-case entry a line; blank lines and `#` comments skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RedactionRuleError(f"cannot read a redaction dictionary ({exc.strerror})", where=str(path),
                                 fix="check the redaction_dir setting and that the rule pack is complete") from None
    entries = (fold(line.strip().lower()) for line in text.splitlines())
    return frozenset(w for w in entries if w and not w.startswith("#"))


def load_dictionaries(folder: Path) -> Dictionaries:
    """Read every dictionary file of a rule pack."""
    words = {name: read_words(folder / name) for name in FILES}
    cities = frozenset(" ".join(c.replace(".", " ").replace("-", " ").split())
                       for c in words["cities_us.txt"] | words["cities_world.txt"])
    return Dictionaries(
        first_names=words["first_names.txt"],
        surnames=words["surnames.txt"],
        cities=cities,
        everyday=words["everyday_words.txt"],
        clinical=words["common_clinical_words.txt"] | words["clinical_terms.txt"],
        clinical_terms=words["clinical_terms.txt"],
        city_max_words=min(4, max((c.count(" ") + 1 for c in cities), default=1)),
    )
