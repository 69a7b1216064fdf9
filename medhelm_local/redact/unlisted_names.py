"""Names found by where they stand, on lines without case, when no list or no tier would find them: a surname no list
holds after a relation ("husband abul kashem"), the patient named before the age ("MARTA OYELARAN, 63 YO F") or after
"pt is", a person before a role in brackets ("d/w oluwaseun adeyemi (resident)"), a first name of any kind before a
relation in brackets ("crystal (daughter)") and a family by its surname in the plural ("the driscolls,"); and the
slips of the keyboard in the verbs said of a person (name_words.py holds the verbs), which tell such a name from a
verb. The cue readings that use them are in nursing.py.
"""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.name_words import PERSON_VERBS, REPORTED, SAID_OF_A_RELATIVE, verb_shaped
from medhelm_local.redact.people import DEPARTMENTS, PeopleRules
from medhelm_local.redact.slips import Slips, slips_of
from medhelm_local.redact.tokens import STOPWORDS, Token, where

# A verb said of a person with a slip of the keyboard, after a relation: "HUSBAND ASKIGN", "DAUGHTER NOTIFEID".
VERB_SLIPS = slips_of(frozenset(w for w in SAID_OF_A_RELATIVE | REPORTED | PERSON_VERBS if w.isalpha()))
# Roles held by one person, whose name in brackets may be one no list holds: "GENETIC COUNSELOR (PRIYA)".
PERSON_ROLES = frozenset({"counselor", "coordinator", "liaison", "manager", "mgr", "worker", "chaplain", "interpreter",
                          "sw", "cm", "pa", "mgmt", "management"})
# Words after which a first name and a relation or a role in brackets is a person: "VIA RUSTY (RT)".
_CUES_BEFORE_A_BRACKETED_NAME = frozenset({"via", "per", "with", "w", "to", "by", "and", "from"})
_THE = frozenset({"the"})
# What follows a family named by its surname: "THE KOWALCZYKS VISITED", "the driscolls are here".
_SAID_OF_A_FAMILY = frozenset({"visited", "here", "are", "were", "called", "came", "aware", "updated", "at", "in",
                               "and", "all", "both", "(", "stayed", "left", "want", "wants", "asked"})
# What follows a patient's age: "64 YO M", "58 yr old", "71 y/o".
_AGE_WORDS = frozenset({"yo", "y", "yr", "yrs", "year", "years", "yoa", "yom", "yof"})


class UnlistedNameRules(PeopleRules):
    """Names found by where they stand: before an age, after "pt is", before a role or a relation in brackets, after
    a relation and a first name, after "the" in the plural."""

    def _name_before_bracketed_role(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"d/w oluwaseun adeyemi (resident)", "spoke w/ tran (interpreter)": one or two words that are names or that
        no list holds, right before a role alone in brackets: the person in that role; and a first name and a listed
        surname before a relation in brackets or between commas ("JOHN BROWN (SON) CALLED", "JOHN BROWN, SON,")."""
        out, roles = [], self._roles() | PERSON_ROLES
        for k in where(tokens, roles | self._relations):
            if k >= 3 and tokens[k - 1].text == "," and tokens[k].key in self._relations and not tokens[k].first \
                    and (k + 1 == len(tokens) or tokens[k + 1].first or tokens[k + 1].text in ",.;") \
                    and self._first_and_surname(tokens, k - 3):
                out.append((k - 3, k - 1))  # "JOHN BROWN, SON, CALLED", "spoke with ann white, dtr."
                continue
            if k < 2 or k + 1 >= len(tokens) or tokens[k - 1].text != "(" or tokens[k + 1].text != ")" \
                    or tokens[k].first or tokens[k - 1].first:
                continue
            if self._first_name_opening(tokens, k - 2):
                out.append((k - 2, k - 1))  # "social: crystal (daughter) stayed", "VIA RUSTY (RT)"
                continue
            if k >= 3 and tokens[k].key in self._relations and self._first_and_surname(tokens, k - 3):
                out.append((k - 3, k - 1))  # "JOHN BROWN (SON) CALLED", "per mary white (dtr)": first name, surname
                continue
            if tokens[k].key not in roles:
                continue
            end = start = k - 1
            while start > 0 and end - start < 2 and not tokens[start].first and self._only_a_name(tokens[start - 1]):
                start -= 1
            if start < end and not self._never_names & {t.key for t in tokens[start:end]}:
                out.append((start, end))
        return out

    def _family_by_surname(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"the driscolls, in and out", "THE KOWALCZYKS, 6 VISITORS", "the o'shaughnessys visited": on a line without
        case, "the" and a surname in the plural, that no list holds as a word, before what is said of people: the
        family by its name ("the nurses", "the results" are words)."""
        out = []
        for k in where(tokens, _THE):
            j = k + 1
            if j + 2 < len(tokens) and tokens[j].key in ("o", "d") and tokens[j + 1].text in "'’" \
                    and tokens[j + 1].start == tokens[j].end and tokens[j + 2].start == tokens[j + 1].end:
                j += 2  # "the o'malleys"
            if j + 1 >= len(tokens) or tokens[j].first or tokens[j + 1].first or tokens[j].cased:
                continue
            tok, nxt = tokens[j], tokens[j + 1]
            key = tok.key
            if tok.kind != "w" or len(key) < 5 or not key.endswith("s") or key in self.words.everyday \
                    or key in self.words.clinical or key in self.non_names:
                continue
            stem = key[:-2] if key.endswith("es") and key[:-2] in self.words.surnames else key[:-1]
            listed = stem in self.words.surnames and self.words.ambiguity(stem) == Ambiguity.NAME_ONLY
            if (listed or j > k + 1) and (nxt.text == "," or nxt.key in _SAID_OF_A_FAMILY):
                out.append((k + 1, j + 1))
        return out

    def _first_and_surname(self, tokens: list[Token], j: int) -> bool:
        """Whether the words at j and j + 1 are a first name opening its phrase (as _first_name_opening reads it) and a
        listed surname, whatever word that is too ("JOHN BROWN", "mary white"): before a relation set apart by
        brackets or commas, who the relative is."""
        nxt = tokens[j + 1]
        return nxt.kind == "w" and nxt.key in self.words.surnames and not nxt.first and nxt.start - tokens[j].end <= 2 \
            and nxt.key not in self.non_names and self._first_name_opening(tokens, j)

    def _first_name_opening(self, tokens: list[Token], j: int) -> bool:
        """Whether the word at j, right before a relation or a role in brackets, is a first name of any kind ("candy",
        "rusty") opening its line, after a label's colon or after "via", "per", "with" or "to": who it was."""
        tok = tokens[j]
        if tok.kind != "w" or tok.key not in self.words.first_names or tok.key in STOPWORDS \
                or tok.key in self.non_names or len(tok.key) < 3 or (tok.cased and not tok.text[0].isupper()):
            return False
        return tok.first or tokens[j - 1].text == ":" or tokens[j - 1].key in _CUES_BEFORE_A_BRACKETED_NAME

    def _patient_is_named(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"pt is yoselin, prefers ...", "PT IS HARPREET, SIKH": after "pt is", one word that is a first name or that no
        list holds, closing its phrase: the patient's name (not "pt is lethargic," nor "pt is a 64 yo")."""
        out = []
        for k in where(tokens, frozenset({"is"})):
            if k < 1 or k + 2 >= len(tokens) or tokens[k - 1].key not in ("pt", "patient") or tokens[k + 1].first:
                continue
            tok, after = tokens[k + 1], tokens[k + 2]
            if after.text not in ",.(;":
                continue
            if (tok.key in self.words.first_names and self.tier(tok) != Ambiguity.CLINICAL) \
                    or (self._unlisted_surname(tok) and self.tier(tok, Slips.CLINICAL) == Ambiguity.NAME_ONLY):
                out.append((k + 1, k + 2))
        return out

    def _named_before_age(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"ignatius preutt, 64 yo m w/ dm", "MARTA OYELARAN, 63 YO F": one to three words that are nothing but names
        (or no list holds), opening a line or after a label's colon, then a comma and an age: the patient."""
        out = []
        for k in where(tokens, _AGE_WORDS):
            if k < 3 or tokens[k - 1].kind != "d" or tokens[k - 2].text != "," or tokens[k].first:
                continue
            end = start = k - 2
            while start > 0 and end - start < 3 and tokens[start - 1].kind == "w" and not tokens[start].first \
                    and self._only_a_name(tokens[start - 1]):
                start -= 1
            if start == end or not (tokens[start].first or tokens[start - 1].text == ":"):
                continue
            if all(t.cased for t in tokens[start:end]):
                continue  # with case, the capitals already say who it is
            out.append((start, end))
        return out

    def _only_a_name(self, tok: Token) -> bool:
        """A word that is a name, or of four letters or more that no list holds, and nothing else ("ignatius",
        "preutt", not "cabg", "home" or "ttp")."""
        return (len(tok.key) >= 4 or self.words.is_name(tok.key)) and tok.key not in self.non_names \
            and self.tier(tok) == Ambiguity.NAME_ONLY  # "TTP, 35 YO F", "HHS, 82 YO M": a diagnosis, not a name

    def _unlisted_surname(self, tok: Token) -> bool:
        """A word of four letters or more that no list holds, on a line without case, and that is no place, no slip of
        a frequent word, no verb said of a person typed with one and no word run into a function word: a surname the
        census lists miss ("kashem", "xiaomei")."""
        key = tok.key
        return tok.kind == "w" and not tok.cased and len(key) >= 4 and key not in self.non_names \
            and key not in VERB_SLIPS and not verb_shaped(key) \
            and self.tier(tok, Slips.FREQUENT) == Ambiguity.NAME_ONLY and not self.words.is_name(key) \
            and key not in self.words.cities and key not in self.words.country_words \
            and key not in self.words.facility_names_one and key not in self.words.ward_names \
            and not any(key[i:] in STOPWORDS and (key[:i] in self.words.everyday or key[:i] in self.words.clinical)
                        for i in range(4, len(key) - 1))  # "DAUGHTER MAUREEN SLEPTIN ROOM": two words run together

    def _first_then_unlisted(self, tokens: list[Token], k: int) -> bool:
        """"daughter li xiaomei": a first name that is shorthand too, then a surname no list holds."""
        return tokens[k].key in self.words.first_names and tokens[k].key not in STOPWORDS and k + 1 < len(tokens) \
            and not tokens[k + 1].first \
            and tokens[k + 1].start - tokens[k].end <= 2 and self._unlisted_surname(tokens[k + 1])

    def _roles(self) -> frozenset[str]:
        """Words after which a bracketed first name is a person: name labels, credentials, departments (once)."""
        cached = self.__dict__.get("_role_words")
        if cached is None:
            cached = frozenset(w for w in self.rules.words("name_labels") | self.rules.words("credentials")
                              if " " not in w) | DEPARTMENTS
            self.__dict__["_role_words"] = cached
        return cached
