"""Rules for notes written all in capitals or all in lower case (ICU nursing notes), where case says nothing:
names after a relation ("son tom called", "WIFE FERN") and initials before a surname ("E. NORTH AWARE", "per k
lund"). The clinical vocabulary (and icu_terms.txt) decides what is jargon; cueless_names.py finds names by what
follows them ("BAKER AWARE", "JOHN BROWN CALLED"), facilities.py grows facility names, initials.py finds initials
alone, people.py names priests, people from a service, quoted nicknames and slash sign-offs.
"""

from __future__ import annotations

import re

from medhelm_local.redact.cue_names import after_with
from medhelm_local.redact.cueless_names import CuelessNameRules
from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.mentions import with_other_mentions
from medhelm_local.redact.name_words import (
    DOTTED_WORDS,
    PERSON_VERBS,
    REPORTED,
    SAID_OF_A_PERSON,
    SAID_OF_A_RELATIVE,
    SPEECH_VERBS,
    TEAMS,
    verb_shaped,
)
from medhelm_local.redact.people import MODALS, NOT_A_NICKNAME
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span
from medhelm_local.redact.unlisted_names import PERSON_ROLES, VERB_SLIPS

# First names that follow a relation as words: "son will call", "daughter may visit", "wife hope(s)".
_WORDS_AFTER_RELATION = frozenset({"will", "may", "in", "hope", "young", "junior", "an", "so", "else", "said"})
# Cue words that name a person or a thing ("per dr lee", "per protocol", "consulted renal"): after them a clinical
# word is the thing. Naming verbs ("answers to", "goes by", "called") are left out: what follows them is a name.
_BEFORE_A_THING = frozenset({"per", "consulted"})
_OPENING = frozenset({"("})
# What never follows a modal verb, so that "will" before it is a name: "BROTHER WILL IS CONTACT", "son will and dtr".
_NO_VERB_AFTER = frozenset({"is", "was", "has", "had", "and", "who", "aware", "here", "at", "lives", "(", ","})
_PERSON_CUES = frozenset({"relations", "name_verbs", "name_labels", "titles_word"})
# Cues after which a word no list holds is the name, even when it is one slip from a word ("wife perpetua"): a
# relation, a title, and the first words of the verbs that give a name ("nickname is smokey", "GOES BY SULLY").
_STRONG_CUES = frozenset({"relations", "titles_word"})
_NAMING_FIRSTS = frozenset({"goes", "answers", "known", "nickname", "nicknamed", "aka", "name", "names", "named",
                            "maiden", "last", "first", "surname", "middle"})
# Dotted initials before a credential ("j.m. rn", "m.h. (cards np)") or right after one ("THORACIC NP G.T. ASKS").
_DOTTED_INITIALS = re.compile(
    r"(?<![\w.])([a-z]\.[ \t]?[a-z]\.(?:[ \t]?[a-z]\.)?)(?=[ \t]{0,2}[,(]?[ \t]{0,2}(?:[a-z]{2,8}[ \t]{1,2})?"
    r"(?:rn|md|np|pa|rrt|lpn|sn)(?![\w]))"
    r"|(?<![\w])(?:rn|md|np|pa|rrt|lpn)[ \t]{1,2}([a-z]\.[ \t]?[a-z]\.(?:[ \t]?[a-z]\.)?)(?![\w])",
    re.IGNORECASE)
_DOT_GAP = re.compile(r"\.[\s\S]\.")
_CUE_BEFORE_INITIAL = frozenset({"per", "by", "w", "with", "to", "from", "dr", "and", "called", "paged", "notified",
                                 "rn", "md", "np", "pa", "spoke", "informed", "told"})
# What stands before the patient's sex after the age: "37 YO M.", "33 y/o f. brain death exam".
_AGE_BEFORE_SEX = frozenset({"yo", "y/o", "yrs", "yr", "old", "years", "year", "o", "y.o"})


class NursingRules(CuelessNameRules):
    """Names and places in notes without case: cues before and after, initials, whole facility names."""

    def _nursing_names(self, text: str, tokens: list[Token]) -> list[Span]:
        """Names found by a relation before, a report word after or an initial, with their other mentions."""
        found = self._after_relation(tokens) + self._before_report(tokens) + self._initial_then_name(tokens)
        found += self._first_then_word_surname(tokens)
        found += self._bracketed_after_role(tokens) + self._word_name_after_credential(tokens)
        found += self._from_a_service(tokens) + self._clergy(tokens) + self._initial_and_surname_in_brackets(tokens)
        found += self._first_name_saying(tokens) + self._named_before_age(tokens)
        found += self._name_before_bracketed_role(tokens) + self._patient_is_named(tokens)
        found += self._family_by_surname(tokens)
        found = [(a, b) for a, b in found if not _names_a_team(tokens, b)]
        found += self._quoted_nicknames(tokens, found)
        spans = with_other_mentions(self, tokens, found) if found else []
        if _DOT_GAP.search(text):  # every "." is a token of its own: a "." two characters after another
            for m in _DOTTED_INITIALS.finditer(text):
                g = 1 if m.group(1) else 2
                if re.sub(r"[^a-z]", "", m.group(g).lower()) not in DOTTED_WORDS \
                        or not text[text.rfind("\n", 0, m.start()) + 1:m.start(g)].strip(" \t-"):
                    spans.append(Span(m.start(g), m.start(g) + len(m.group(g).rstrip()), PhiType.NAME))
            # "meds p.o., rn aware": an abbreviation in a sentence; "A.M., RN" alone on its line signs the note
        spans += self._slash_signoffs(text)
        return spans + self._initials(text, tokens)

    def _caseless_name(self, tok: Token, slips: Slips = Slips.FREQUENT) -> bool:
        """A word that a relation before it makes a name: a first name or a word no vocabulary knows (nor, after a
        weaker cue than a relation, a long slip of the keyboard: "per psyhiatry")."""
        key = tok.key
        if tok.kind != "w" or len(key) < 2 or key in self.non_names or key in _WORDS_AFTER_RELATION \
                or key in self.words.abbreviations or key in self.rules.words("units"):
            return False
        if tok.cased and not tok.text[0].isupper():
            return False  # on a line with case, a lower-case word after "son" is a word
        if key in VERB_SLIPS and key not in self.words.first_names:
            return False  # "husband askign about disch date": what the relative did, typed with a slip
        if len(key) == 2 and self.swapped_slip(tok):
            return False  # "A PROFESSOR TA TUFTS": "at", though "Ta" is a first name too
        return key in self.words.first_names or (self.tier(tok, slips) == Ambiguity.NAME_ONLY and len(key) >= 3
                                                 and not verb_shaped(key))

    def _after_relation(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"son tom called", "WIFE FERN AT BEDSIDE", "report given to joan": a first name right after a relation,
        a role or a verb that names a person."""
        found, firsts = [], self._person_cue_firsts()
        for i in where(tokens, firsts):
            tok = tokens[i]
            cue = self.cue_at(tokens, i)
            if cue is None or cue[0] not in _PERSON_CUES or (i and tokens[i - 1].kind == "d"):
                continue  # "50 cm. Aparecen": after a number the cue is a unit
            if tok.key == "pt" and after_with(tokens, i):
                continue  # "AMBULATED W/ PT, WALKER": with physical therapy, not the patient's name
            if cue[0] == "name_verbs" and self._names_a_thing(tokens, i):
                continue  # "A PROTEIN CALLED BESTROPHIN": a thing's name (cue_names.py)
            k = i + cue[1]
            if k + 3 < len(tokens) and tokens[k].text == "-" and tokens[k + 1].key == "in" \
                    and tokens[k + 3].key == "law":
                k += 4  # "DAUGHTER-IN-LAW JUDY"
            elif k + 1 < len(tokens) and tokens[k].key == "in" and tokens[k + 1].key == "law":
                k += 2  # "DAUGHTER IN LAW PEG", "son in law raj"
            while k < len(tokens) and tokens[k].text in ':,(-"' and k - i < 3 + cue[1]:
                k += 1
            if tok.key in SPEECH_VERBS and any(t.text == '"' for t in tokens[i + cue[1]:k]):
                continue  # 'then said "ok, what's next"': what was said, in quotes, not who
            if cue[0] == "relations" and k + 3 < len(tokens) and len(tokens[k].text) == 1 and tokens[k].text.isalpha() \
                    and tokens[k + 1].text == "." and len(tokens[k + 2].text) == 1 and tokens[k + 2].text.isalpha() \
                    and tokens[k + 3].text == "." and not tokens[k].first and tokens[k + 2].start == tokens[k + 1].end:
                found.append((k, k + 3))  # "nephew t.j. is hcp": a relative by dotted initials
                continue
            if k >= len(tokens) or tokens[k].first or tokens[k].start - tokens[k - 1].end > 2 \
                    or not (self._caseless_name(tokens[k], Slips.NONE if tok.key in _NAMING_FIRSTS
                                                else Slips.FREQUENT if cue[0] in _STRONG_CUES else Slips.CLINICAL)
                            or (self._word_named(tokens, k) and not self._jargon_after_label(tokens, k, cue[0]))
                            or self._first_then_unlisted(tokens, k)
                            or self._named_by_its_verb(tokens, k)
                            or (cue[0] == "relations" and self._state_named_after(tokens[k]))):
                continue
            if tok.key in _BEFORE_A_THING and k == i + cue[1] and tokens[k].key in self.words.clinical_terms:
                continue  # "FLUIDS PER NA, ABX": a hand-listed term after "per" is who or what it names, never a name
            if cue[0] in ("name_verbs", "name_labels") and k == i + cue[1] and not self._person_follows(tokens, k) \
                    and ((tok.key in _BEFORE_A_THING and self.tier(tokens[k]) == Ambiguity.CLINICAL)
                         or (len(tokens[k].key) <= 3 and not self.words.is_name(tokens[k].key))):
                continue  # "PER LONG DISCUSSION", "PCP DFA SENT" (not 'CALLED "BUD"'): a clinical word after "per",
                # an abbreviation after any verb or label
            if cue[0] in ("relations", "titles_word") and k + 2 < len(tokens) and tokens[k + 1].key == "at" \
                    and tokens[k + 2].kind == "d" and len(tokens[k + 2].text) <= 2 \
                    and (tokens[k].key not in self.words.first_names or tokens[k].key in self.words.caps_names):
                continue  # "FATHER MI AT 50": a family history, what the relative had and at what age (not "son
                # joe at 1400")
            if cue[0] == "name_labels" and k > i + cue[1] and self.tier(tokens[k]) != Ambiguity.NAME_ONLY \
                    and k + 1 < len(tokens) \
                    and not tokens[k + 1].first and tokens[k + 1].kind == "w" \
                    and self.tier(tokens[k + 1]) == Ambiguity.CLINICAL and tokens[k + 1].key not in REPORTED:
                continue  # "BY FELLOW, MANUAL PRESSURE", "by fellow: small residual effusion": what they did
            if (tok.key == "rt" and self.tier(tokens[k]) == Ambiguity.CLINICAL) \
                    or (k + 1 < len(tokens) and tokens[k + 1].kind == "d" and tokens[k + 1].start == tokens[k].end):
                continue  # "RT ART LINE": right, not the respiratory therapist; "PCA MSO4": a drug
            end = k + 1
            if end < len(tokens) and not tokens[end].first and tokens[end].start - tokens[k].end <= 2 \
                    and ((tokens[end].key in self.words.surnames and self.name_like(tokens[end], 2)
                          and not self._verb_like(tokens, end)) or self._unlisted_surname(tokens[end])
                         or self._surname_then_act(tokens, end)):
                end += 1  # "son duncan mcphee", "husband abul kashem visited", "SON FITZGERALD LONG CALLED"
            while end + 1 < len(tokens) and tokens[end].text == "-" and tokens[end].start == tokens[end - 1].end \
                    and tokens[end + 1].start == tokens[end].end and tokens[end + 1].kind == "w" \
                    and self.tier(tokens[end + 1]) != Ambiguity.CLINICAL:
                end += 2  # "WIFE YOON MI-KYUNG", "son jean-baptiste": a name's hyphened parts
            if self.not_eponym(tokens, end):
                found.append((k, end))
                if end + 1 < len(tokens) and tokens[end].key == "and" and not tokens[end + 1].first \
                        and (self._caseless_name(tokens[end + 1]) or self._word_named(tokens, end + 1)):
                    found.append((end + 1, end + 2))  # "nurses amy and joy", "daughters ann and terry"
        return found

    def _bracketed_after_role(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"respiratory (deb) in", "WOUND CARE RN (PEG) SAW SACRUM", "OT (HALEY)", "father (art)": a first name
        alone in brackets right after a role, a department, a credential or a relation names who it was."""
        found, roles = [], self._roles() | self._relations  # "pt's father (art)", "brother (will) had the same"
        for k in (at + 1 for at in where(tokens, _OPENING)):  # the name after "("
            if not 2 <= k < len(tokens) - 1:
                continue
            tok, end = tokens[k], k + 1
            if end + 1 < len(tokens) and len(tokens[end].text) == 1 and tokens[end].text.isalpha() \
                    and tokens[end].start == tok.end + 1:
                end += 1 + (end + 1 < len(tokens) and tokens[end + 1].text == ".")  # "(connie b)", "(tina d., rn)"
            if tokens[k - 1].text != "(" or tokens[end].text not in "),;" or tokens[k - 2].key not in roles \
                    or tok.key in self.non_names - self.words.clinical_terms \
                    or (tok.cased and (not tok.text[:1].isupper() or tok.text.isupper())):
                continue  # with case, "therapy (ART)" is an abbreviation
            unlisted = tokens[k - 2].key in PERSON_ROLES and 4 <= len(tok.key) <= 7 and tokens[end].text == ")" \
                and not self.words.is_shorthand(tok.key) and self.tier(tok, Slips.NONE) == Ambiguity.NAME_ONLY
            if tok.key in self.words.first_names or unlisted:  # "COUNSELOR (PRIYA)", not "ANESTHESIA (GLIDESCOPE"
                found.append((k, end if tokens[end - 1].text != "." else end - 1))
        return found

    def _word_name_after_credential(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"RN HOPE AT BEDSIDE", "np grace and dr lee in": a first name that is also a word, right after a credential,
        is the name when what follows is said of a person, not a copula ("MD HOPE IS TO EXTUBATE"); "pt" is the
        patient."""
        found, credentials = [], self.rules.words("credentials")
        for k in range(1, len(tokens)):
            cue = tokens[k - 1]
            if cue.key in credentials and cue.key not in ("pt", "do") and not tokens[k].first \
                    and tokens[k].start - cue.end <= 2 and self._word_named(tokens, k) \
                    and (k + 1 >= len(tokens) or tokens[k + 1].key not in ("is", "was", "has", "had")):
                found.append((k, k + 1))
        return found

    def _named_by_its_verb(self, tokens: list[Token], k: int) -> bool:
        """"son chip called", "SON SKIP VISITED": on a line without case, any word after a relation names the
        person when a verb only a person does follows it ("son also called" and "son finally visited" stay words)."""
        tok = tokens[k]
        if tok.cased or tok.kind != "w" or len(tok.key) < 3 or not tok.text.isalpha() or tok.key in STOPWORDS \
                or tok.key in NOT_A_NICKNAME or tok.key.endswith("ly") or tok.key in self.rules.words("relations") \
                or tok.key in self._never_names \
                or tok.key in self.rules.words("credentials") or tok.key in self.rules.words("units") \
                or k + 1 >= len(tokens) or tokens[k + 1].first or tokens[k + 1].start - tok.end > 2:
            return False
        if tokens[k - 1].text == "," and self.tier(tok) == Ambiguity.CLINICAL:
            return False  # "watched a movie w/ husband, video called her kids": a word after the comma, not his name
        return tokens[k + 1].key in PERSON_VERBS

    def _state_named_after(self, tok: Token) -> bool:
        """A state that is a first name too, right after a relation: "wife georgia, speaks greek", "DAUGHTER VIRGINIA
        CALLED" (where a relative lives takes "in" or "from": "SISTER IN GEORGIA")."""
        return len(tok.key) >= 5 and tok.key in self.rules.words("states") and tok.key in self.words.first_names \
            and not (tok.cased and not tok.text[0].isupper())

    def _person_follows(self, tokens: list[Token], k: int) -> bool:
        """Whether what follows the word at k is said of a person ("STATES MAJOR WILL BRING", "per hope, ok to")."""
        nxt = tokens[k + 1] if k + 1 < len(tokens) and not tokens[k + 1].first else None
        return nxt is not None and (nxt.key in SAID_OF_A_PERSON or nxt.key in MODALS or nxt.key in REPORTED
                                    or self._named_by_its_verb(tokens, k))

    def _jargon_after_label(self, tokens: list[Token], k: int, kind: str) -> bool:
        """Whether the word at k after a label ("PT", "INTERPRETER") is hand-listed jargon that a first name is spelt
        like ("PT MAE, FOLLOWS COMMANDS", "W/ INTERPRETER, MAE, NO DEFICITS"), not written with a capital on a line with
        case and not before a verb only a person does ("sponsor ed called" names the sponsor)."""
        tok = tokens[k]
        if kind != "name_labels" or tok.key not in self.words.clinical_terms or (tok.cased and tok.text[1:].islower()):
            return False
        nxt = tokens[k + 1] if k + 1 < len(tokens) and not tokens[k + 1].first else None
        return nxt is None or (nxt.key not in PERSON_VERBS and nxt.key not in REPORTED)

    def _word_named(self, tokens: list[Token], k: int) -> bool:
        """"WIFE MAY IS AT HEBREW REHAB", "wife hope and daughter faith": a first name that is also a word, after a
        relation, is the name when what follows is said of a person ("son will call" stays a verb)."""
        tok = tokens[k]
        if tok.key not in self.words.first_names or (tok.cased and not tok.text[0].isupper()) or k + 1 >= len(tokens) \
                or tokens[k + 1].first:
            return False
        nxt = tokens[k + 1]
        if tok.key in self.non_names - self.words.clinical_terms:  # a stopword, a relation ("son"), the modal "will"
            return tok.key == "will" and nxt.key in _NO_VERB_AFTER and nxt.start - tok.end <= 2  # "BROTHER WILL IS"
        possessive = nxt.text in "'’" and k + 2 < len(tokens) and tokens[k + 2].key == "s"
        said = nxt.key in SAID_OF_A_PERSON or (nxt.key in SAID_OF_A_RELATIVE and tok.key not in MODALS)
        return possessive or (said and nxt.start - tok.end <= 2)  # "wife may in am": a modal, not "wife peg in"

    def _person_cue_firsts(self) -> frozenset[str]:
        """The first words of the cue phrases that name a person after them (computed once)."""
        cached = self.__dict__.get("_person_firsts")
        if cached is None:
            cached = frozenset(word for word, entries in self._phrase_index.items()
                               if any(kind in _PERSON_CUES for _, kind in entries))
            self.__dict__["_person_firsts"] = cached
        return cached

    def _article_initial(self, tokens: list[Token], i: int) -> bool:
        """"per a reyes np", "W/ I KATZ RN": "a" or "i" is an initial only between "per"/"by"/"with" and a known
        surname that a credential or a report word follows ("per a new order" stays an article)."""
        if i == 0 or i + 2 >= len(tokens) or tokens[i - 1].key not in ("per", "by", "w", "with") \
                or tokens[i + 1].kind != "w" or tokens[i + 1].key not in self.words.surnames:
            return False
        after = tokens[i + 2]
        return not after.first and (after.key in self.rules.words("credentials") or after.key in REPORTED)

    def _dotted_article_initial(self, tokens: list[Token], i: int) -> bool:
        """"A. HUSSEIN AWARE": "a" or "i" with a stop is an initial before a surname that a report word or a credential
        follows (no article is written with a stop)."""
        return i + 2 < len(tokens) and tokens[i + 1].text == "." and tokens[i + 1].start == tokens[i].end \
            and tokens[i + 2].kind == "w" and not tokens[i + 2].first \
            and (tokens[i + 2].key in self.words.surnames or self.tier(tokens[i + 2]) == Ambiguity.NAME_ONLY) \
            and self.tier(tokens[i + 2]) != Ambiguity.CLINICAL and self._reported_after(tokens, i + 2)

    def _reported_after(self, tokens: list[Token], j: int) -> bool:
        """"E NORTH AWARE", "j lund rn": a report word or a credential right after the word at j, on its line."""
        if j + 1 >= len(tokens) or tokens[j + 1].first or tokens[j + 1].start - tokens[j].end > 2:
            return False
        after = tokens[j + 1].key
        return after in REPORTED or after in self.rules.words("credentials")

    def _initial_then_name(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"E. NORTH AWARE", "T. HOLBROOK", "per k lund": an initial before a surname (one no list holds too), on
        lines without case (with case, "P. Mirabilis" and "2,4 g/24 h. Los" are what the name rules already weigh)."""
        found = []
        for i, tok in enumerate(tokens[:-1]):
            if tok.kind != "w" or len(tok.text) != 1 or (tok.key in "ai" and not self._article_initial(tokens, i)
                                                          and not self._dotted_article_initial(tokens, i)) \
                    or tok.cased or (i and tokens[i - 1].end == tok.start):
                continue  # "Q4H. TCDS", "RR 30S. MSO4": the letter ends a word, it is no initial
            dotted = tokens[i + 1].text == "."
            j = i + 2 if dotted else i + 1
            if j >= len(tokens) or tokens[j].first or tokens[j].kind != "w" or tokens[j].start - tok.end > 3:
                continue
            if i > 1 and tokens[i - 1].text == "." and len(tokens[i - 2].text) == 1 and tokens[i - 2].kind == "w":
                continue  # "P.O. BID", "A.M.": letters with stops
            before = tokens[i - 1].key if i and not tok.first else ""
            if tok.key in _UNIT_LETTERS and i and not tok.first and tokens[i - 1].kind == "d":
                continue  # "Q 6 H. GIVEN LASIX", "OVER 72 H. SERUM CR", "BP 140 S. GIVEN": a unit after its number
            if tok.key in "mf" and before in _AGE_BEFORE_SEX:
                continue  # "37 YO M. DAY 2 IN UNIT": the patient's sex after the age, no initial
            if before in _LETTERED or (before in ("and", "or", "&") and i > 1 and len(tokens[i - 2].text) == 1
                                       and tokens[i - 2].kind == "w"):
                continue  # "HEPATITIS C. ASK", "VITAMIN D. TREAT", "HEMOPHILIA A AND B. CLICK", "D AND C MAY": the
                # letter a disease, a vitamin or a class is named by, not an initial
            if not dotted and (tok.key in "rl" or tokens[j].key not in self.words.surnames
                               or (before not in _CUE_BEFORE_INITIAL
                                   and (tok.key == "x" or not self._reported_after(tokens, j)))):
                continue  # "per k lund", "E NORTH AWARE"; without a stop an initial needs a cue before or a report
                # word or credential after ("3 X DAILY RN AWARE": a times sign), and a known surname ("WITH L SDH")
            name = tokens[j]
            if name.key in self.non_names or len(name.key) < 3 or name.key in self.words.abbreviations:
                continue
            if name.cased and not name.text[0].isupper():
                continue
            tier = self.tier(name)
            known = name.key in self.words.surnames
            if tok.key in "rl" and tier == Ambiguity.CLINICAL:
                continue  # "R. HAND", "L. FOOT": a side, not an initial
            if (known or tier == Ambiguity.NAME_ONLY) and self.not_eponym(tokens, j + 1):
                found.append((i, j + 1))
        return found


# Words a letter names the kind of: "HEPATITIS C", "VITAMIN D", "FACTOR V", "TYPE A", "STAGE B", "GROUP A STREP".
_LETTERED = frozenset({"hepatitis", "hep", "vitamin", "vit", "vitamins", "hemophilia", "haemophilia", "type", "factor",
                       "stage", "grade", "class", "group", "protein", "phase", "zone", "plan", "lead", "schedule",
                       "influenza", "flu", "child", "childs", "child's", "apo", "coenzyme", "immunoglobulin"})
# Letters that stand for a unit after a number, with a stop when a sentence ends there: hours, seconds (or the 100s
# of a pressure), days, minutes, grams, weeks, years.
_UNIT_LETTERS = frozenset("hsdmgwy")


def _names_a_team(tokens: list[Token], b: int) -> bool:
    """Whether the word after a name found on a line without case is "team" or "service": the word names a team by
    its shift or its specialty ("per eve team"), not a person."""
    return b < len(tokens) and tokens[b].key in TEAMS and not tokens[b].first and not tokens[b - 1].cased
