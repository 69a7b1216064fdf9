"""Name and place dictionaries (`redaction/dictionaries/`) and the clinical vocabularies learned from public
medical text (`redaction/vocabulary/`), shipped as text files (see SOURCES.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from medhelm_local.redact.patterns import RedactionRuleError
from medhelm_local.redact.tokens import fold
from medhelm_local.safe_parse import Limits, decode, read_bounded

FILES = ("first_names.txt", "surnames.txt", "cities_us.txt", "cities_world.txt", "everyday_words.txt",
         "clinical_terms.txt", "icu_terms.txt")
COUNTRIES = "countries.txt"  # not PHI under Safe Harbor: read apart (the detector drops a bare country span)
FACILITIES = "facilities.txt"  # read apart from FILES: the synthetic notes' made-up names are checked against FILES
LOCAL_PLACES = "places_local.txt"  # the region's villages, neighbourhoods and landmarks: read apart for the same reason
WARD_NAMES = "ward_names.txt"  # the hospital's buildings and wards ("feldberg", "white"): a site's own list
NICKNAMES = "nicknames.txt"  # short forms the census list lacks ("norm", "dev"): read apart for the same reason
CASELESS_TERMS = "caseless_terms.txt"  # jargon that is a name too ("perla", "judkins"): clinical only without case
# Endings of procedures, findings and drug classes (general knowledge of medical word-building). Left out: "-itis",
# "-oma", "-emia", "-uria" and "-pathy", which end surnames and towns too ("Kalvaitis", "Tullahoma", "Santaeufemia",
# "Manduria", "Karpathy" once its accent is folded).
MEDICAL_ENDINGS = ("ectomy", "ectomies", "otomy", "otomies", "ostomy", "ostomies", "oscopy", "oscopies", "oplasty",
                   "oplasties", "orrhaphy", "opexy", "ography", "ogram", "osis", "algia", "penia", "cytosis", "plasia",
                   "trophy", "megaly", "ation", "ations", "ology", "ologist",
                   "iasis", "ectasis", "ectasia", "lysis", "plegia", "paresis", "rrhea", "rrhoea", "rrhagia",
                   "centesis", "desis", "tripsy", "tinib", "pril", "olol", "sartan", "statin", "azole", "mycin",
                   "cillin", "floxacin", "dipine", "prazole", "tidine", "parin", "navir", "cycline", "azepam", "ocele",
                   "otic")
VOCABULARY = ("clinical_words.tsv", "abbreviations.tsv", "short_forms.tsv", "eponyms.tsv")

# A word written in lower case in the medical corpora counts as clinical. A common name needs more: an
# English word ("frank", "hill", "beach") twice, unless it is among the commonest surnames ("miller");
# any other 40 times ("gene" 206); 10 times in two sources makes it everyday ("barbara", 12 times in
# one source, stays a name, as does "scott", 3 times).
NAME_AS_CLINICAL = 40
NAME_AS_WORD = 10
COMMON_SURNAMES = 2000  # of the Census list, in frequency order
COMMONEST_SURNAMES = 500
# First names that are also eponyms, written with 's far more often for the disease than for a person: Barrett's
# oesophagus, Bell's palsy.
DISEASES_WRITTEN_WITH_S = frozenset({"barrett", "bell"})
ICU_TERM_SURNAMES = 20000  # a word among this many commoner surnames is no word a cue cannot overrule
ABBREVIATION_CAPS = 3  # written in capitals this often: "PERRLA", "BIPAP" are shorthand, not names
# Medical text writes a word this often, any case, when a word one slip from it is read as that word even after a
# relation or a title ("WIFE VEYR WORRIED": "very"); rarer words leave an unknown name alone ("wife perpetua").
FREQUENT_WORD = 100


class Ambiguity(IntEnum):
    """How far a dictionary word can be trusted alone: a name-only word, an English word, a clinical word."""

    NAME_ONLY = 0  # "kowalski", "martha": not an English word, so a name wherever it stands
    EVERYDAY = 1  # "smith", "baker", "frank": English words rarely used in clinical writing
    CLINICAL = 2  # "white", "stone", "may", "foley", "levo": common in notes; a name only with a cue


@dataclass(frozen=True)
class Dictionaries:
    """Lower-case word sets: first names, surnames, cities (words joined by one space), ambiguity tiers.

    `clinical` holds every word common in clinical writing (learned with frequencies, plus abbreviations
    and the hand-written lists); `clinical_terms` the hand-written shorthand, drug and eponym list and
    the ICU device and eponym list (icu_terms.txt), which no rule but a title ("Dr.") overrides; `abbreviations`
    words written in capitals in
    medical text; `short_forms` truncated drug and clinical words ("levo", "dobut", "pulm"); `eponyms` the
    eponyms learned from it that are not common names (clinical words, yet a hospital's name after "AT");
    `caps_names` names that medical text writes as abbreviations ("POD", "TIA", "LIMA", "MAC"), kept out of
    `abbreviations` so that "Tia" is a name where case tells, with caseless_terms.txt's hand-listed ones ("PERLA");
    `lower_words` the learned words medical text writes in lower case (not only in capitals: "os", "ng", but not
    "sk"); `facilities` the names of facilities.txt
    (words joined by one space), `facility_firsts` the first words of those of several words and
    `facility_names_one` those of one word; `countries` country and continent names (words joined by one space),
    `country_words` the words that name them ("salvador" of "el salvador"), `common_names` the first names and
    the 20,000 commoner surnames; `local_places` the region's villages, neighbourhoods and landmarks (in `cities`
    too), whose names of several words are places wherever they stand ("CASTLE ISLAND", "fields corner");
    `ward_names` the hospital's buildings and wards, a ward beside a number ("ON WHITE 12", "7 feldberg");
    `frequent` the words medical text writes FREQUENT_WORD times or more (what a slip of the keyboard is read as).
    """

    first_names: frozenset[str]
    surnames: frozenset[str]
    cities: frozenset[str]
    everyday: frozenset[str]
    clinical: frozenset[str]
    clinical_terms: frozenset[str]
    abbreviations: frozenset[str]
    short_forms: frozenset[str]
    city_max_words: int
    eponyms: frozenset[str] = frozenset()
    # eponyms.tsv whole but first names, common surnames too ("MURPHY'S SIGN"); a first name with 's is a person's
    # ("STEVEN'S WIFE") but for the diseases in DISEASES_WRITTEN_WITH_S ("BARRETT'S W/ ADENOCA")
    every_eponym: frozenset[str] = frozenset()
    caps_names: frozenset[str] = frozenset()
    lower_words: frozenset[str] = frozenset()
    facilities: frozenset[str] = frozenset()
    facility_firsts: frozenset[str] = frozenset()
    facility_names_one: frozenset[str] = frozenset()
    facility_max_words: int = 1
    countries: frozenset[str] = frozenset()
    country_words: frozenset[str] = frozenset()
    common_names: frozenset[str] = frozenset()
    local_places: frozenset[str] = frozenset()
    ward_names: frozenset[str] = frozenset()
    frequent: frozenset[str] = frozenset()

    def ambiguity(self, word: str) -> Ambiguity:
        """The tier of a lower-case word."""
        if word in self.clinical:
            return Ambiguity.CLINICAL
        if word in self.everyday:
            return Ambiguity.EVERYDAY
        return Ambiguity.CLINICAL if self.medical_form(word) else Ambiguity.NAME_ONLY

    def medical_form(self, word: str) -> bool:
        """Whether a word no list holds is built like a clinical term ("abdominosacrocolpopexy", "pneumatosis",
        "hyperfractionation"): a long word with a procedure's, disease's or drug class's ending, not a known name."""
        return len(word) >= 8 and word.endswith(MEDICAL_ENDINGS) and not self.is_name(word)

    def is_name(self, word: str) -> bool:
        """Whether a lower-case word is a known first name or surname."""
        return word in self.first_names or word in self.surnames

    def is_shorthand(self, word: str) -> bool:
        """Whether a lower-case word is clinical shorthand: hand-listed, a short form or a known abbreviation."""
        return word in self.clinical_terms or word in self.short_forms or word in self.abbreviations


Reader = Callable[[Path], str]  # a dictionary file's path -> its text


def read_words(path: Path, read: Reader | None = None) -> frozenset[str]:
    """One lower-case entry a line; blank lines and `#` comments skipped."""
    entries = (fold(line.strip().lower()) for line in (read or _read)(path).splitlines())
    return frozenset(w for w in entries if w and not w.startswith("#"))


def read_table(path: Path, read: Reader | None = None) -> list[list[str]]:
    """The rows of a vocabulary TSV (comment lines skipped); a row too short is a RedactionRuleError."""
    rows = [line.split("\t") for line in (read or _read)(path).splitlines() if line and not line.startswith("#")]
    for number, row in enumerate(rows, 1):
        if len(row) < 2 or not row[0]:
            raise RedactionRuleError(f"vocabulary row {number} has no word or count", where=str(path),
                                     fix="rebuild it with deploy/redaction/build_vocabulary.py")
    return rows


def _read(path: Path) -> str:
    what = "redaction dictionary"
    data = read_bounded(path, what, limits=Limits(max_bytes=256 << 20), error=RedactionRuleError,
                        if_missing="check the redaction_dir setting and that the rule pack is complete")
    return decode(data, str(path), what, RedactionRuleError)


def _count(row: list[str], column: int, path: Path) -> int:
    try:
        return int(row[column])
    except (IndexError, ValueError):
        raise RedactionRuleError(f"vocabulary entry '{row[0]}' has no count in column {column + 1}",
                                 where=str(path), fix="rebuild it with deploy/redaction/build_vocabulary.py") from None


def name_words(path: Path, first_names: frozenset[str], surnames_path: Path,
               everyday: frozenset[str], read: Reader | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """Clinical words (written in lower case in medical text) and, apart, the common names among them that
    are not written so often that the word must come first ("frank", "scott")."""
    surnames = read_words_in_order(surnames_path, read)
    common = first_names | frozenset(surnames[:COMMON_SURNAMES])
    commonest = frozenset(surnames[:COMMONEST_SURNAMES])
    clinical, names = set(), set()
    for row in read_table(path, read):
        lower = _count(row, 2, path)
        if row[0] not in common:
            if lower >= 2 or (lower == 1 and row[0] in everyday):  # once, and no English word: a typo or a name
                clinical.add(row[0])
        elif lower >= NAME_AS_CLINICAL or (lower >= 2 and row[0] in everyday and row[0] not in commonest):
            clinical.add(row[0])
        elif lower >= NAME_AS_WORD and _count(row, 3, path) >= 2:
            names.add(row[0])
    return frozenset(clinical), frozenset(names)


def read_words_in_order(path: Path, read: Reader | None = None) -> list[str]:
    """The entries of a frequency-ordered list, most frequent first."""
    lines = (fold(line.strip().lower()) for line in (read or _read)(path).splitlines())
    return [w for w in lines if w and not w.startswith("#")]


def country_words(countries: frozenset[str], everyday: frozenset[str], names: frozenset[str]) -> frozenset[str]:
    """The words that name a country or continent ("india", "ukraine", "africa", "salvador" of "el salvador"):
    a name's words that are not English words ("south", "united", "island"), and one-word names even if they are
    ("turkey", "chile"); and the regular forms for their people and languages ("nigerian", "lebanese") that are no
    first name or surname ("lucian", of "saint lucia", is a man's name)."""
    words = frozenset(w for c in countries for w in c.split() if len(w) >= 3 and (w not in everyday or w in countries))
    return words | frozenset(f for w in words if len(w) >= 4 for f in _demonyms(w) if f not in names)


def _demonyms(country: str) -> tuple[str, ...]:
    """The forms English makes of a country's name for its people and language ("cambodia" -> "cambodian", "lebanon"
    -> "lebanese", "ukraine" -> "ukrainian", "iraq" -> "iraqi", "sweden" -> "swedish"): the regular endings only, so
    "peruvian" or "danish" are missed; a form that is no word is never met in a note, so over-making costs nothing."""
    stem1, stem2 = country[:-1], country[:-2]
    return (country + "n", country + "an", country + "ian", stem1 + "ian", country + "i", country + "ese",
            stem1 + "ese", stem2 + "ese", stem2 + "ish", country[:-3] + "ish")


def load_dictionaries(folder: Path, vocabulary: Path, read: Reader | None = None) -> Dictionaries:
    """Every dictionary file and vocabulary of a rule pack, each read with `read` (default: from disk)."""
    words = {name: read_words(folder / name, read) for name in FILES}
    facilities = frozenset(" ".join(f.replace("-", " ").replace(".", " ").split())
                           for f in read_words(folder / FACILITIES, read))
    local_places = frozenset(" ".join(c.replace(".", " ").replace("-", " ").split())
                             for c in read_words(folder / LOCAL_PLACES, read))
    # "COPLEY SQ", "PARK ST STATION": the short forms notes write for a square or a street's station
    local_places |= frozenset(p.replace(" square", " sq").replace(" street station", " st station")
                              for p in local_places if " square" in p or " street station" in p)
    cities = frozenset(" ".join(c.replace(".", " ").replace("-", " ").split())
                       for c in words["cities_us.txt"] | words["cities_world.txt"]) | local_places
    # A nickname is a first name to every rule ("husband norm here"); the census list stays as published.
    words["first_names.txt"] = words["first_names.txt"] | read_words(folder / NICKNAMES, read)
    names = words["first_names.txt"] | words["surnames.txt"]
    hand_listed = words["clinical_terms.txt"] | words["icu_terms.txt"]
    surnames_in_order = read_words_in_order(folder / "surnames.txt", read)
    countries = read_words(folder / COUNTRIES, read)
    in_capitals = frozenset(row[0] for row in read_table(vocabulary / "abbreviations.tsv", read)
                            if _count(row, 1, vocabulary / "abbreviations.tsv") >= ABBREVIATION_CAPS)
    abbreviations = in_capitals - names
    short_forms = frozenset(row[0] for row in read_table(vocabulary / "short_forms.tsv", read))
    learned, common_names = name_words(vocabulary / "clinical_words.tsv", words["first_names.txt"],
                                       folder / "surnames.txt", words["everyday_words.txt"], read)
    common = words["first_names.txt"] | frozenset(surnames_in_order[:COMMON_SURNAMES])
    # Eponyms ("ALLIS", "SCARPA", "TUOHY") are clinical words unless a common name ("Wilson", "Parker") or a town
    # ("Amsterdam criteria"); an English word before a clamp ("deep", "vital") is no eponym.
    every_eponym = frozenset(row[0] for row in read_table(vocabulary / "eponyms.tsv", read))
    eponyms = (every_eponym & names) - common - cities - words["everyday_words.txt"]
    return Dictionaries(
        first_names=words["first_names.txt"],
        surnames=words["surnames.txt"],
        cities=cities,
        local_places=local_places,
        ward_names=read_words(folder / WARD_NAMES, read),
        frequent=frozenset(row[0] for row in read_table(vocabulary / "clinical_words.tsv", read)
                           if _count(row, 1, vocabulary / "clinical_words.tsv") >= FREQUENT_WORD),
        everyday=words["everyday_words.txt"] | common_names,
        clinical=learned | hand_listed | abbreviations | eponyms,
        clinical_terms=hand_listed,
        abbreviations=abbreviations,
        short_forms=short_forms,
        city_max_words=min(4, max((c.count(" ") + 1 for c in cities), default=1)),
        eponyms=eponyms,
        every_eponym=(every_eponym - words["first_names.txt"]) | (every_eponym & DISEASES_WRITTEN_WITH_S),
        caps_names=(in_capitals & names) | read_words(folder / CASELESS_TERMS, read),
        lower_words=learned,
        facilities=facilities,
        facility_firsts=frozenset(f.split()[0] for f in facilities if " " in f),
        facility_names_one=frozenset(f for f in facilities if " " not in f),
        facility_max_words=max((f.count(" ") + 1 for f in facilities), default=1),
        countries=countries,
        country_words=country_words(countries, words["everyday_words.txt"], names),
        common_names=words["first_names.txt"] | frozenset(surnames_in_order[:ICU_TERM_SURNAMES]),
    )
