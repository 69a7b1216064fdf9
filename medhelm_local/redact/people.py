"""Who a note names around the patient, in notes without case, by what surrounds them: a priest after "fr" ("chaplain
(fr tomasz)"), a first name before "from" a service ("deb from sw"), a nickname in double quotes beside a relation or a
name ('sister-in-law "bunny"'), and a nurse's sign-off line with a slash or dots ("holly/rn", "B.W./RN", "rn / dk").
nursing.py builds on it; the words shared with it are public here.
"""

from __future__ import annotations

import re

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.landmarks import LandmarkRules
from medhelm_local.redact.name_words import ROLE_WORDS
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span

# Modal verbs, after which a first name that is also a word is the verb's subject no more: "son will call".
MODALS = frozenset({"will", "would", "can", "could", "should", "may", "might", "must", "to", "ok", "okay"})
# Words that stand between a relation and such a verb without naming anyone: "son just called", "dtr again visited".
NOT_A_NICKNAME = frozenset({"just", "never", "then", "already", "still", "again", "also", "later", "too", "both",
                            "all", "each", "who", "that", "this", "has", "had", "have", "was", "were", "not", "now",
                            "today", "tonight", "yesterday", "last", "first", "twice", "once", "earlier", "back",
                            "here", "home", "pt", "patient", "family", "and", "finally", "recently", "initially",
                            "she", "he", "they", "her", "his", "their", "been", "being", "did", "does", "didn't",
                            "wasn't", "hasn't", "prev", "previously", "am", "pm", "overnight",
                            "ever", "reportedly", "apparently", "frequently", "hcp", "proxy", "per", "who's"})
# Departments whose person a note names in brackets: "respiratory (deb)", "LAB (TAMMY)", "transport (manny)".
DEPARTMENTS = frozenset({"respiratory", "resp", "pharmacy", "lab", "transport", "nutrition", "therapy",
                         "anesthesia", "team", "housekeeping", "security", "chaplain", "interpreter", "admitting",
                         "phlebotomy", "dietary", "rehab", "wound", "ostomy", "ot", "slp", "sw", "cm", "counselor",
                         "management", "mgmt", "liaison", "coordinator", "manager", "mgr", "worker", "pa"})
# Departments and services a person comes from: "deb from sw", "raj from vascular", "KATHY FROM PHARMACY".
_SERVICES = DEPARTMENTS | frozenset({"vascular", "ortho", "neuro", "nsurg", "neurosurgery", "renal", "gi", "id",
                                     "cards", "cardiology", "ep", "ir", "radiology", "pulm", "pulmonary", "psych",
                                     "psychiatry", "palliative", "hospice", "pastoral", "spiritual", "nursing",
                                     "admissions", "billing", "patient", "case", "social", "bmt", "onc", "oncology",
                                     "surgery", "trauma", "anesthesiology", "endocrine", "derm", "plastics", "ent"})
_FR = frozenset({"fr"})  # father, or French (a catheter's size)
# Titles of clergy, which no clinical word follows: "PASTOR GREEN FROM PT'S CHURCH", "rabbi stone visited".
_CLERGY = frozenset({"pastor", "rabbi", "imam", "reverend", "rev"})
_FROM = frozenset({"from"})
# Words before what is awaited, asked for or sent from a service: a drug or a product, not a person, when the word is
# no first name ("AWAITING PACERONE FROM PHARMACY", "need 2 more of the ativan from pharm"; "waiting for deb from sw").
_WAITED_FOR = frozenset({"awaiting", "await", "waiting", "for", "need", "needs", "needed", "request", "requested",
                         "order", "ordered", "get", "got", "getting", "obtain", "obtained", "more", "new", "no", "any",
                         "extra", "the", "some", "of", "sent", "send"})
# Members of a team a note names with an initial in brackets after their role: "FELLOW (D. PIKE)", "APS (T. NORTH)".
_TEAM_ROLES = frozenset({"fellow", "resident", "res", "attending", "intern", "aps", "wocn", "ep", "consult", "np",
                         "pa", "rn", "md"})
# Verbs only a person does, after a first name that opens a sentence: "NICK SAYS", "hank lives near pt".
_SAYING = frozenset({"says", "said", "states", "stated", "asks", "asked", "lives", "lived", "wants", "wanted", "feels",
                     "felt", "agrees", "agreed", "understands", "understood", "requests", "requested", "reports",
                     "reported", "thinks", "believes", "prefers", "arrived", "drove", "flew", "called", "visited",
                     "phoned", "spoke", "calls", "visits", "stayed", "knows", "wishes", "declined", "refused",
                     "expressed", "verbalized", "voiced"})
_QUOTES = frozenset({'"', "“", "”"})
# What stands before "fr" when it names a priest: "chaplain (fr tomasz)", "visited by fr walsh".
_BEFORE_A_PRIEST = frozenset({"chaplain", "priest", "pastor", "clergy", "catholic", "parish", "by", "with", "w", "and",
                              "from"})
# Endings of the feelings and states a note quotes after a relative ('wife "devastated"', 'son "hopeful"').
_STATE_ENDINGS = ("ed", "ing", "ful", "ous", "ive", "ly", "less", "able", "ible")
# A sign-off line: a name, an initial or two, a slash or dots, a credential, nothing else ("holly/rn", "MARCY O./RN",
# "B.W./RN", "kat.r.rn"); and initials after a credential and a slash that end a line ("daphne rn / dk").
_SLASH_SIGNOFF = re.compile(
    r"(?im)^[ \t-]{0,3}([a-z][a-z'-]{1,15}(?:[ \t]?[a-z]\.?)?|[a-z]\.[ \t]?[a-z]\.?|[a-z][a-z'-]{1,15}\.[a-z])"
    r"[ \t]*(?:/|\.)[ \t]*(?:rn|np|md|sn|lpn|rrt|pa)\.?[ \t]*$")
# A sign-off line of one word and a credential, perhaps with a dash before and the charge nurse's initials after
# ("- kasia rn", "jj rn / charge peg", "tess, rn").
_WORD_SIGNOFF = re.compile(
    r"(?im)^[ \t]*[-~/]{0,2}[ \t]*([a-z][a-z'-]{1,15})[ \t]*,?[ \t]+(?:rn|np|sn|lpn|rrt)\.?"
    r"(?:[ \t]*/[ \t]*[a-z][a-z. ]{0,20})?[ \t]*$")
_INITIALS_AFTER_CREDENTIAL = re.compile(r"(?im)(?<![\w])(?:rn|np|md)[ \t]*/[ \t]*([a-z]{2,3})[ \t]*$")


class PeopleRules(LandmarkRules):
    """Priests, people from a service, quoted nicknames and slash sign-offs."""

    def _slash_signoffs(self, text: str) -> list[Span]:
        """A note signed on a line of its own with a slash or dots before the credential ("holly/rn", "cathy
        m./rn", "B.W./RN", "kat.r.rn"), one word and the credential ("- kasia rn", "jj rn / charge peg"), and
        initials after the credential that close a line ("daphne rn / dk")."""
        spans = []
        credentials = self.rules.words("credentials")
        for m in _SLASH_SIGNOFF.finditer(text):
            first = m.group(1).split(".")[0].split()[0].lower()
            if len(first) > 1 and (first in self.non_names or self.words.is_shorthand(first)):
                continue  # "PLAN/RN", "neuro/rn": a heading, not a nurse
            spans.append(Span(m.start(1), m.start(1) + len(m.group(1).rstrip(". \t")), PhiType.NAME))
        for m in _WORD_SIGNOFF.finditer(text):
            word = m.group(1).lower()
            if word in ROLE_WORDS or word in STOPWORDS or word in credentials or word in self.rules.words("relations") \
                    or word in self.rules.words("units") or (len(word) <= 4 and self.words.is_shorthand(word)):
                continue  # "charge rn", "icu rn", "onc rn": which nurse, not who
            spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
        for m in _INITIALS_AFTER_CREDENTIAL.finditer(text):
            if m.group(1).lower() not in credentials and m.group(1).lower() not in self.non_names:
                spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
        return spans

    def _clergy(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """A priest named after "fr" where no number makes it a catheter's size: "chaplain (fr tomasz)", "FR. COLM LED
        A PRAYER", "priest (fr. okonjo)" (not "14 FR FOLEY"); a listed name of any kind after "pastor", "rabbi" or
        "imam"."""
        out = []
        for k in where(tokens, _FR):
            tok = tokens[k]
            if k == len(tokens) - 1 or (k and tokens[k - 1].kind == "d") or (tok.cased and not tok.text[0].isupper()):
                continue
            before = tokens[k - 1].key if k and not tok.first else ""
            if not (tok.first or before in ("(", "") or tokens[k - 1].text == "(" or before in _BEFORE_A_PRIEST):
                continue
            j = k + 1 + (tokens[k + 1].text == ".")
            if j >= len(tokens) or tokens[j].first or tokens[j].kind != "w" or len(tokens[j].key) < 3:
                continue
            name = tokens[j]
            if (name.key in self.words.first_names or self.words.is_name(name.key)
                    or self.tier(name, Slips.NONE) == Ambiguity.NAME_ONLY) \
                    and not self.words.is_shorthand(name.key) and name.key not in self.non_names \
                    and self.tier(name, Slips.NONE) != Ambiguity.CLINICAL:
                out.append((j, j + 1))
        for k in where(tokens, _CLERGY):
            j = k + 1 + (k + 1 < len(tokens) and tokens[k + 1].text == ".")
            if j < len(tokens) and not tokens[j].first and tokens[j].kind == "w" and len(tokens[j].key) >= 3 \
                    and tokens[j].key not in STOPWORDS and tokens[j].key not in MODALS \
                    and tokens[j].key not in self.rules.words("units") and self.words.is_name(tokens[j].key) \
                    and not (tokens[j].cased and not tokens[j].text[0].isupper()):
                out.append((j, j + 1))  # a name that is a clinical word too ("green", "stone"): the title says who
        return out

    def _from_a_service(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """A first name before "from" and a department or service: "deb from sw came by", "seen by raj from vascular",
        "KATHY FROM PHARMACY CALLED" (not a modal: "will from"); a word no first name is none after what waits for
        or orders a thing ("AWAITING PACERONE FROM PHARMACY")."""
        out = []
        for after in where(tokens, _FROM):
            k = after - 1
            if k < 0 or after + 1 >= len(tokens) or tokens[after + 1].key not in _SERVICES:
                continue
            tok = tokens[k]
            waited_for = k and not tok.first and tokens[k - 1].key in _WAITED_FOR  # "awaiting zosyn from pharmacy"
            named = tok.key in self.words.first_names or (len(tok.key) >= 3 and tok.text.isalpha() and not waited_for
                                                           and self.tier(tok, Slips.CLINICAL) == Ambiguity.NAME_ONLY
                                                           and not tok.key.endswith("ed"))  # "TRANSFERED FROM ONC"
            if tok.kind == "w" and named and tok.key not in MODALS \
                    and tok.key not in self.non_names and not tokens[k + 1].first and not tokens[k + 2].first \
                    and not (tok.cased and not tok.text[0].isupper()):
                out.append((k, k + 1))
        return out

    def _initial_and_surname_in_brackets(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """An initial, its stop and one word alone in brackets right after a role, a service or a relation:
        "APS (T. NORTH) AWARE", "sw (p. ames) paged", "EP (J. FRIES, DEVICE RN)": who it was, whatever word the
        surname is; not a side and a part of the body ("(L. ARM)", "(R. IJ)")."""
        out = []
        cues = self.__dict__.get("_bracket_cues")
        if cues is None:
            cues = frozenset(w for w in self.rules.words("name_labels") | self.rules.words("credentials")
                             | self.rules.words("relations") if " " not in w) | _SERVICES | _TEAM_ROLES
            self.__dict__["_bracket_cues"] = cues
        for k in range(1, len(tokens) - 4):
            if tokens[k].text != "(" or tokens[k - 1].key not in cues:
                continue
            initial, stop, word, close = tokens[k + 1:k + 5]
            if len(initial.text) != 1 or not initial.text.isalpha() or initial.start != tokens[k].end \
                    or stop.text != "." or stop.start != initial.end or word.kind != "w" or len(word.key) < 2 \
                    or word.start - stop.end > 1 or word.first or not word.text.isalpha() \
                    or (close.text not in "),;" and close.key not in ("jr", "sr")):
                continue
            if word.key in STOPWORDS - {"oh", "an", "in", "on"} or self.words.is_shorthand(word.key) \
                    or (initial.key in ("r", "l", "b") and self.tier(word, Slips.NONE) == Ambiguity.CLINICAL):
                continue
            out.append((k + 1, k + 4))
        return out

    def _first_name_saying(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """A first name that opens a sentence with a verb only a person does after it: "NICK SAYS PT WALKS", "hank
        lives near pt", "kit asked that updates go to her", however common a word the name is too (not a modal,
        a relation, a function word or shorthand: "WILL CALL", "MOM SAYS", "ALINE DECLINED")."""
        out = []
        relations = self.rules.words("relations")
        for k in (at - 1 for at in where(tokens, _SAYING)):  # the name before the verb
            if k < 0:
                continue
            tok, verb = tokens[k], tokens[k + 1]
            opens = tok.first or (k and tokens[k - 1].text in ".;!?")
            if not opens or tok.kind != "w" or verb.first or verb.key not in _SAYING or verb.start - tok.end > 2 \
                    or tok.key not in self.words.first_names or tok.key in self._never_names or tok.key in MODALS \
                    or tok.key in relations or tok.key in self._units or self.words.is_shorthand(tok.key) \
                    or (tok.cased and not tok.text[0].isupper()):  # "ALINE DECLINED BY PT": shorthand
                continue
            out.append((k, k + 1))
        return out

    def _quoted_nicknames(self, tokens: list[Token], found: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """A word alone in double quotes right after a relation or a name found, as nurses write a nickname:
        'sister-in-law "bunny"', 'son will ("billy")', 'friends (tj and "moose")'; not a feeling or a state in
        quotes ('wife "devastated"', 'son "ok"') nor shorthand ('son "dnr"')."""
        ends = {b for _, b in found}
        out = []
        for k in range(1, len(tokens) - 1):
            tok, opening, closing = tokens[k], tokens[k - 1], tokens[k + 1]
            if opening.text not in _QUOTES or closing.text not in _QUOTES or tok.kind != "w" or tok.first \
                    or opening.end != tok.start or closing.start != tok.end or len(tok.key) < 2 \
                    or tok.key in STOPWORDS or tok.key in NOT_A_NICKNAME or self.words.is_shorthand(tok.key) \
                    or (tok.key.endswith(_STATE_ENDINGS) and tok.key not in self.words.first_names):
                continue
            if self._beside_a_person(tokens, k - 2, ends):
                out.append((k, k + 1))
        return out

    def _beside_a_person(self, tokens: list[Token], j: int, ends: set[int]) -> bool:
        """Whether token j ends a name found or, back over brackets, "and", "-in-law" and names, a relation on
        the same line ('son will ("billy")', 'friends (tj and "moose")', 'sister-in-law "bunny"')."""
        start = j
        while j >= 0 and start - j < 6 and not tokens[j + 1].first:
            tok = tokens[j]
            if j + 1 in ends or tok.key in self._relations:
                return True
            if tok.text in "(,:-" or tok.key in ("and", "in", "law", "&"):
                j -= 1
                continue
            if tok.kind == "w" and (tok.key in self.words.first_names
                                    or self.tier(tok, Slips.NONE) == Ambiguity.NAME_ONLY):
                j -= 1  # "son will (", "friends (tj and": a name between the relation and the nickname
                continue
            return False
        return False
