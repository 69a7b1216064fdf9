"""Names found without a cue word before them, by what stands right after or around them, on lines without case:
a known name before a report word ("BAKER AWARE"), a surname that is a word too after a clinician's role ("NP GREEN
NOTIFIED"), a first name and a common surname that is a word too before what is said of a person ("JOHN BROWN
CALLED", "DAUGHTER MARY BROWN AT BEDSIDE"), and the health-care proxy named beside "is hcp" ("BILL IS HCP", "HCP IS
TOM"). nursing.py's rules, which read the cue words, build on these.
"""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.name_words import (
    PERSON_VERBS,
    REPORTED,
    ROLE_WORDS,
    SAID_OF_A_PERSON,
    SAID_OF_A_RELATIVE,
    TEAMS,
    verb_shaped,
)
from medhelm_local.redact.people import MODALS
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.unlisted_names import UnlistedNameRules

_HCP = frozenset({"hcp"})  # the health-care proxy
# What follows a first name and a surname that is a word too when no cue is before them: what a person does or where
# one is ("JOHN BROWN CALLED", "MARY WHITE AT BEDSIDE"); a comma or a stop is not enough ("NO FRANK BLOOD.").
_SAID_WITHOUT_A_CUE = PERSON_VERBS | REPORTED | {"at", "is", "was", "here", "(", "will", "wants", "asked", "states"}
# Words after a relative's first name that say where the relative goes, not a surname: "husband tristan back and forth",
# "SON JOE HOME TONIGHT".
_WHERE_A_PERSON_GOES = frozenset({"back", "home", "out", "away", "over", "around", "along", "down", "up", "in", "off"})
# Words between a role and a report word that say which of them, not who: "RN HOUSE AWARE" (the house officer's).
_NOT_A_ROLES_NAME = frozenset({"house", "call", "team", "teams", "service", "attending", "resident", "fellow", "intern",
                               "nurse", "doctor", "md", "rn", "np", "pa"})


class CuelessNameRules(UnlistedNameRules):
    """Names found by the words after them, not by a cue before them; the nursing rules build on it."""

    def _surname_then_act(self, tokens: list[Token], j: int) -> bool:
        """Whether the word at j, after a relation and a first name, is a listed surname that is a word too ("long",
        "strand", "brown") with what only a person does right after it ("DAUGHTER WILHELMINA STRAND CALLED") or, for
        the commoner surnames, what is said of a person ("SON JOHN WHITE AT BEDSIDE")."""
        nxt = tokens[j + 1] if j + 1 < len(tokens) and not tokens[j + 1].first else None
        tok = tokens[j]
        if tok.key not in self.words.surnames or tok.key in STOPWORDS or nxt is None \
                or (tok.cased and tok.text.islower()) or nxt.start - tok.end > 2:
            return False
        if nxt.key in PERSON_VERBS or nxt.key in REPORTED:
            return True
        # "DAUGHTER MARY BROWN AT BEDSIDE", "SON JOHN WHITE (HCP)": one of the commoner surnames that is a word too,
        # then what is said of a person or the phrase's end, not the noun the word goes with ("BROWN STOOL")
        return tok.key in self.words.common_names and self.tier(tok) == Ambiguity.CLINICAL \
            and tok.key not in SAID_OF_A_RELATIVE and tok.key not in _WHERE_A_PERSON_GOES and not verb_shaped(tok.key) \
            and (nxt.key in SAID_OF_A_PERSON or nxt.text in ".;)")

    def _first_then_word_surname(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"JOHN BROWN CALLED", "mary white at bedside", "JOHN BROWN IS HCP": on a line without case, a first name that
        is no clinical word, then one of the commoner surnames that is a clinical word too ("brown", "white"), then what
        only a person does or what is said of one; no cue is needed ("BROWN STOOL", "AMBER BROWN URINE" stay words)."""
        found = []
        for i, tok in enumerate(tokens[:-2]):
            if tok.kind != "w" or tok.cased or tok.key not in self.words.first_names or tok.key in STOPWORDS \
                    or tok.key in MODALS or tok.key in self.non_names or self.tier(tok) == Ambiguity.CLINICAL:
                continue
            nxt = tokens[i + 1]
            if nxt.first or nxt.kind != "w" or nxt.start - tok.end > 2 or self.tier(nxt) != Ambiguity.CLINICAL:
                continue
            after = tokens[i + 2]
            if not after.first and after.key in _SAID_WITHOUT_A_CUE and self._surname_then_act(tokens, i + 1) \
                    and self.not_eponym(tokens, i + 1) and self.not_eponym(tokens, i + 2):  # not "BLAKE DRAIN WAS"
                found.append((i, i + 2))
        return found

    def _before_report(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"BAKER AWARE", "o'hara notified": a known name that is not clinical right before a report word."""
        found = []
        for k in where(tokens, REPORTED):
            if k == 0 or tokens[k].first:
                continue
            j = k - 1
            cand = tokens[j]
            if self._surname_after_a_role(tokens, j):
                found.append((j, k))  # "NP GREEN NOTIFIED", "RESIDENT LANE AWARE": a role vouches for the surname
                continue
            if cand.kind != "w" or cand.key in self.non_names or not self.words.is_name(cand.key) \
                    or self.tier(cand) == Ambiguity.CLINICAL or len(cand.key) < 3 \
                    or (cand.cased and not cand.text.isupper()):
                continue
            start = j
            if j and not cand.first and tokens[j - 1].key in self.words.first_names \
                    and self.name_like(tokens[j - 1], 2):
                start = j - 1
            found.append((start, k))
        return found + self._proxy_named(tokens)

    def _surname_after_a_role(self, tokens: list[Token], j: int) -> bool:
        """Whether the word at j, right before a report word, is a listed surname right after a clinician's role or
        credential on a line without case, whatever word it is too ("NP GREEN NOTIFIED", "FELLOW PARK PAGED",
        "RESIDENT LANE AWARE": a colour, a park, a street's suffix); not a function word, an adverb or a verb ("MD
        ALSO AWARE", "RN VERBALLY UPDATED", "MD MADE AWARE") nor a role's word ("MD DAY AWARE", "RN HOUSE AWARE")."""
        if j == 0 or tokens[j].first:
            return False
        cand, role = tokens[j], tokens[j - 1]
        return cand.kind == "w" and not cand.cased and len(cand.key) >= 3 and cand.key in self.words.surnames \
            and role.key in self._clinician_roles() and cand.start - role.end <= 2 \
            and cand.key not in STOPWORDS and cand.key not in self._never_names and cand.key not in self._relations \
            and cand.key not in TEAMS and cand.key not in ROLE_WORDS and cand.key not in _NOT_A_ROLES_NAME \
            and not cand.key.endswith("ly") and not verb_shaped(cand.key)

    def _clinician_roles(self) -> frozenset[str]:
        """Single-word labels and credentials of a clinician ("resident", "fellow", "np", "rn"), not the patient's."""
        cached = self.__dict__.get("_clinician_role_words")
        if cached is None:
            cached = frozenset(w for w in self.rules.words("name_labels") | self.rules.words("credentials")
                               if " " not in w) - {"pt", "patient", "name", "pts", "sponsor"}
            self.__dict__["_clinician_role_words"] = cached
        return cached

    def _proxy_named(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"bill is hcp", "SUE IS HER HCP", "nephew t.j. is hcp": a first name (or initials) right before "is" and the
        health-care proxy, or right after "hcp is" ("HCP IS TOM"): whoever that is, is a person."""
        found = []
        for k in where(tokens, _HCP):
            if k < 2 or tokens[k].first:
                continue
            j = k - 1 - (tokens[k - 1].key in ("her", "his", "the", "pt's", "their"))
            if j < 1 or tokens[j].key != "is" or tokens[j].first:
                continue
            cand = tokens[j - 1]
            if cand.kind == "w" and cand.key in self.words.first_names and cand.key not in self.non_names \
                    and not (cand.cased and not cand.text[0].isupper()):
                found.append((j - 1, j))
        for k in where(tokens, _HCP):  # "HCP IS TOM (SON)", "hcp is mary white": the proxy named after "is"
            j = k + 1
            if j + 1 >= len(tokens) or tokens[j].key != "is" or tokens[j].first or tokens[j + 1].first:
                continue
            cand = tokens[j + 1]
            if cand.kind == "w" and cand.key in self.words.first_names and cand.key not in self.non_names \
                    and cand.key not in STOPWORDS and self.tier(cand) != Ambiguity.CLINICAL \
                    and not (cand.cased and not cand.text[0].isupper()):
                end = j + 2
                if end < len(tokens) and not tokens[end].first and tokens[end].key in self.words.surnames \
                        and tokens[end].key not in self.non_names and tokens[end].start - cand.end <= 2 \
                        and self.tier(tokens[end]) != Ambiguity.CLINICAL:
                    end += 1
                found.append((j + 1, end))
        return found
