"""Rules for notes written all in capitals or all in lower case (ICU nursing notes), where case says nothing:
names after a relation ("son tom called", "WIFE FERN"), before a word that reports to them ("BAKER AWARE"),
initials before a surname ("E. NORTH AWARE", "per k lund"), initials alone signing a note ("KJB"), and
hospital names stretched to their whole ("saint agnes general", "MERCY WEST", "AT CAPE COD HOSPITAL",
"FROM NEWTON WELLESLEY ER"). The clinical vocabulary (and icu_terms.txt) decides what is jargon.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.inhouse import _PLACE_BEFORE, _UNIT_AFTER
from medhelm_local.redact.initials import InitialsRules
from medhelm_local.redact.mentions import with_other_mentions
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.types import PhiType, Span

# First names that follow a relation as words: "son will call", "daughter may visit", "wife hope(s)".
_WORDS_AFTER_RELATION = frozenset({"will", "may", "in", "hope", "young", "junior", "an", "so", "else", "said"})
# Words that report to a person named just before them: "BAKER AWARE", "j lund notified".
_MOVES = frozenset({"transfer", "transferred", "xfer", "xferred", "xfered", "out", "back", "moved", "admitted",
                    "go", "going", "return", "returned", "returning", "sent", "dispo", "accepted", "d/c", "discharged"})
_PERSON_CUES = frozenset({"relations", "name_verbs", "name_labels", "titles_word"})
_REPORTED = frozenset({"aware", "notified", "paged", "informed", "updated"})
# What a facility's name ends in, so that a place cue may reach across common words before it: "AT CAPE COD
# HOSPITAL", "to mt auburn hosp", "FROM BLUE HILLS MEDICAL CENTER" (a word, or a word and what must follow it).
_FACILITY_HEADS = {"hospital": (), "hosp": (), "infirmary": (), "medical": ("center", "ctr", "centre"),
                   "med": ("center", "ctr"), "health": ("center", "ctr", "centre"), "nursing": ("home", "facility"),
                   "rehab": ("hospital", "center", "ctr"), "rehabilitation": ("hospital", "center"), "snf": (),
                   "ecf": (), "ltac": (), "ltach": (), "manor": (), "care": ("center", "ctr"),
                   "assisted": ("living",), "senior": ("living", "center")}
# Words that end a hospital's name after it: "saint agnes general", "MERCY WEST", "Lahey North".
_FACILITY_TAIL = frozenset({"general", "regional", "memorial", "medical", "med", "center", "ctr", "centre", "hospital",
                            "hosp", "health", "healthcare", "rehab", "rehabilitation", "nursing", "west", "east",
                            "north",
                            "south", "campus", "clinic", "institute", "infirmary"})
_MOVED_FROM = _PLACE_BEFORE - {"on", "off"}
_DIRECTIONS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"})
_PREFIXES = frozenset({"st", "saint", "ste", "mt", "mount", "university", "univ", "of", "the", "holy", "our", "lady",
                       "good", "sacred"})
_DOTTED_INITIALS = re.compile(
    r"(?<![\w.])([a-z]\.[ \t]?[a-z]\.(?:[ \t]?[a-z]\.)?)(?=[ \t]{0,2},?[ \t]{0,2}(?:rn|md|np|pa|rrt|lpn|sn)(?![\w]))",
    re.IGNORECASE)
_CUE_BEFORE_INITIAL = frozenset({"per", "by", "w", "with", "to", "from", "dr", "and", "called", "paged", "notified",
                                 "rn", "md", "np", "pa", "spoke", "informed", "told"})


class NursingRules(InitialsRules):
    """Names and places in notes without case: cues before and after, initials, whole facility names."""

    def _nursing_names(self, text: str, tokens: list[Token]) -> list[Span]:
        """Names found by a relation before, a report word after or an initial, with their other mentions."""
        found = self._after_relation(tokens) + self._before_report(tokens) + self._initial_then_name(tokens)
        spans = with_other_mentions(self, tokens, found) if found else []
        if any(t.kind == "p" and t.text == "." and t.start and text[t.start - 2:t.start - 1] == "." for t in tokens):
            spans += [Span(m.start(1), m.start(1) + len(m.group(1).rstrip()), PhiType.NAME)
                      for m in _DOTTED_INITIALS.finditer(text)]
        return spans + self._initials(text, tokens)

    def _caseless_name(self, tok: Token) -> bool:
        """A word that a relation before it makes a name: a first name or a word no vocabulary knows."""
        key = tok.key
        if tok.kind != "w" or len(key) < 2 or key in self.non_names or key in _WORDS_AFTER_RELATION \
                or key in self.words.abbreviations or key in self.rules.words("units"):
            return False
        if tok.cased and not tok.text[0].isupper():
            return False  # on a line with case, a lower-case word after "son" is a word
        return key in self.words.first_names or (self.tier(tok) == Ambiguity.NAME_ONLY and len(key) >= 3)

    def _after_relation(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"son tom called", "WIFE FERN AT BEDSIDE", "report given to joan": a first name right after a relation,
        a role or a verb that names a person."""
        found, firsts = [], self._person_cue_firsts()
        for i, tok in enumerate(tokens):
            cue = self.cue_at(tokens, i) if tok.key in firsts else None
            if cue is None or cue[0] not in _PERSON_CUES or (i and tokens[i - 1].kind == "d"):
                continue  # "50 cm. Aparecen": after a number the cue is a unit
            k = i + cue[1]
            if k + 3 < len(tokens) and tokens[k].text == "-" and tokens[k + 1].key == "in" \
                    and tokens[k + 3].key == "law":
                k += 4  # "DAUGHTER-IN-LAW JUDY"
            while k < len(tokens) and tokens[k].text in ":,(-" and k - i < 3 + cue[1]:
                k += 1
            if k >= len(tokens) or tokens[k].first or tokens[k].start - tokens[k - 1].end > 2 \
                    or not self._caseless_name(tokens[k]):
                continue
            end = k + 1
            if end < len(tokens) and not tokens[end].first and tokens[end].start - tokens[k].end <= 2 \
                    and tokens[end].key in self.words.surnames and self.name_like(tokens[end], 2) \
                    and not self._verb_like(tokens, end):
                end += 1  # "son duncan mcphee"
            if self.not_eponym(tokens, end):
                found.append((k, end))
        return found

    def _person_cue_firsts(self) -> frozenset[str]:
        """The first words of the cue phrases that name a person after them (computed once)."""
        cached = self.__dict__.get("_person_firsts")
        if cached is None:
            cached = frozenset(word for word, entries in self._phrase_index.items()
                               if any(kind in _PERSON_CUES for _, kind in entries))
            self.__dict__["_person_firsts"] = cached
        return cached

    def _before_report(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"BAKER AWARE", "o'hara notified": a known name that is not clinical right before a report word."""
        found = []
        for k, tok in enumerate(tokens):
            if tok.key not in _REPORTED or k == 0 or tok.first:
                continue
            j = k - 1
            cand = tokens[j]
            if cand.kind != "w" or cand.key in self.non_names or not self.words.is_name(cand.key) \
                    or self.tier(cand) == Ambiguity.CLINICAL or len(cand.key) < 3 \
                    or (cand.cased and not cand.text.isupper()):
                continue
            start = j
            if j and not cand.first and tokens[j - 1].key in self.words.first_names \
                    and self.name_like(tokens[j - 1], 2):
                start = j - 1
            found.append((start, k))
        return found

    def _initial_then_name(self, tokens: list[Token]) -> list[tuple[int, int]]:
        """"E. NORTH AWARE", "T. HOLBROOK", "per k lund": an initial before a surname (one no list holds too), on
        lines without case (with case, "P. Mirabilis" and "2,4 g/24 h. Los" are what the name rules already weigh)."""
        found = []
        for i, tok in enumerate(tokens[:-2]):
            if tok.kind != "w" or len(tok.text) != 1 or tok.key in "ai" or tok.cased \
                    or (i and tokens[i - 1].end == tok.start):
                continue  # "Q4H. TCDS", "RR 30S. MSO4": the letter ends a word, it is no initial
            dotted = tokens[i + 1].text == "."
            j = i + 2 if dotted else i + 1
            if j >= len(tokens) or tokens[j].first or tokens[j].kind != "w" or tokens[j].start - tok.end > 3:
                continue
            if i > 1 and tokens[i - 1].text == "." and len(tokens[i - 2].text) == 1 and tokens[i - 2].kind == "w":
                continue  # "P.O. BID", "A.M.": letters with stops
            before = tokens[i - 1].key if i and not tok.first else ""
            if not dotted and (before not in _CUE_BEFORE_INITIAL or tok.key in "rl"
                               or tokens[j].key not in self.words.surnames):
                continue  # "per k lund"; without a stop an initial needs a cue and a known surname ("WITH L SDH")
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

    def _stretch_places(self, tokens: list[Token], spans: list[Span]) -> list[Span]:
        """Hospital spans grown to the whole name, and bare facility names after a place cue."""
        starts = [t.start for t in tokens]
        out = list(spans)
        for span in spans:
            a = bisect_left(starts, span.start)
            b = bisect_left(starts, span.end) - 1
            if a >= len(tokens) or b < a:
                continue
            unit_after = b + 1 < len(tokens) and tokens[b + 1].key in _UNIT_AFTER and not tokens[b + 1].first
            if span.type is PhiType.HOSPITAL or (unit_after and span.type in (PhiType.CITY, PhiType.NAME)):
                a2, b2 = self._stretch_left(tokens, a), self._stretch_right(tokens, b)
                if span.type is not PhiType.HOSPITAL and not (a2 and tokens[a2 - 1].key in _MOVED_FROM):
                    continue  # "FROM NEWTON WELLESLEY ER": a town before a unit is a hospital only after a place cue
                if (a2, b2) != (a, b) or span.type is not PhiType.HOSPITAL:
                    out.append(Span(tokens[a2].start, tokens[b2].end, PhiType.HOSPITAL))
        out += self._named_after_cue(tokens) + self._outside_hospital_named(tokens)
        return out

    def _outside_hospital_named(self, tokens: list[Token]) -> list[Span]:
        """"FROM OSH (NASHOBA)", "osh (good sam)": the outside hospital's name in brackets after it."""
        spans = []
        for i, tok in enumerate(tokens[:-3]):
            if tok.key not in ("osh", "oshs") or tokens[i + 1].text != "(":
                continue
            j = i + 2
            while j < len(tokens) and j - i < 6 and tokens[j].kind == "w" \
                    and not self.words.is_shorthand(tokens[j].key):
                j += 1
            if j > i + 2 and j < len(tokens) and tokens[j].text == ")":
                spans.append(Span(tokens[i + 2].start, tokens[j - 1].end, PhiType.HOSPITAL))
        return spans

    def _stretch_left(self, tokens: list[Token], a: int) -> int:
        """Index of the first word of a hospital name ending at token a: over distinctive words and prefixes
        ("university of"), and over common words too when a place cue bounds them ("AT CAPE COD HOSPITAL")."""
        j = a
        while j > 0 and a - j < 3 and not tokens[j].first:
            t = tokens[j - 1]
            if t.kind != "w" or tokens[j].start - t.end > 2 or t.key in _PLACE_BEFORE or t.key in self._never_names:
                break
            j -= 1
        cue = j > 0 and not tokens[j].first and tokens[j - 1].key in _PLACE_BEFORE
        start = a
        for k in range(a - 1, j - 1, -1):
            t = tokens[k]
            plain = t.key not in STOPWORDS or t.key in ("of", "the")
            if t.key in _PREFIXES or self._distinctive(t) or (cue and plain and self._common_place_word(t)):
                start = k
            else:
                break
        while start < a and tokens[start].key in ("of", "the"):
            start += 1
        return start

    def _common_place_word(self, tok: Token) -> bool:
        """A common word that can be part of a place's name ("CAPE", "COD"), not shorthand or a unit."""
        return (tok.kind == "w" and len(tok.key) >= 3 and not self.words.is_shorthand(tok.key)
                and tok.key not in self.rules.words("units") and tok.key not in self.rules.words("facility_generic")
                and tok.key not in self.rules.words("states"))

    def _stretch_right(self, tokens: list[Token], b: int) -> int:
        """Index of the last word of a hospital name starting before token b: over "general", "west", "medical
        center" ("saint agnes general", "MERCY WEST")."""
        while b + 1 < len(tokens) and not tokens[b + 1].first and tokens[b + 1].start - tokens[b].end <= 2 \
                and tokens[b + 1].key in _FACILITY_TAIL:
            b += 1
        return b

    def _ward_named(self, tokens: list[Token], i: int) -> bool:
        """A surname right after a transfer ("TRANSFERRED TO PHELPS", "xfer to ashby"): a ward named without its
        number, as people after a transfer are rare (an unknown word there is as often a drug: "BACK TO TEMODAR")."""
        tok = tokens[i]
        if i < 2 or tokens[i - 1].key != "to" or tokens[i - 2].key not in _MOVES or len(tok.key) < 4 \
                or (tok.cased and not tok.text[0].isupper()):
            return False
        known = self.words.is_name(tok.key) and self.tier(tok) != Ambiguity.CLINICAL
        return known and tok.key not in self.words.first_names \
            and not self.words.is_shorthand(tok.key) and tok.key not in self.rules.words("facility_generic")

    def _ward_after_number(self, tokens: list[Token], j: int) -> bool:
        """A named word after a ward's number and a place cue ("to 7 feldman"): a name or unknown word, not a unit,
        shorthand or a direction ("TO 2 L", "ON 2 PRESSORS", "to 6 north")."""
        tok = tokens[j]
        if tok.kind != "w" or tok.first or tok.start - tokens[j - 1].end != 1 or len(tok.key) < 4 or tok.cased \
                or not tok.text.isalpha() \
                or tok.key in self.rules.words("units") or self.words.is_shorthand(tok.key) or tok.key in _DIRECTIONS:
            return False
        return self._unknown(tok) or (self.words.is_name(tok.key) and self.tier(tok) != Ambiguity.CLINICAL
                                      and tok.key not in self.words.first_names)

    def _unknown_place(self, tokens: list[Token], i: int) -> bool:
        """A word of five letters or more that no list knows, after "at" or "from" on a line without
        case ("dialysis at fresenius", "placement at gosnold"): a place, as people and jargon are listed."""
        tok = tokens[i]
        return (not tok.cased and len(tok.key) >= 5 and tokens[i - 1].key in ("at", "from")
                and self._unknown(tok) and not self.words.is_name(tok.key) and tok.key not in self.words.cities
                and tok.key not in self.words.everyday)

    @staticmethod
    def _facility_head(tokens: list[Token], j: int) -> bool:
        """Whether token j ends a facility's name ("HOSPITAL") or starts its last words ("MEDICAL CENTER")."""
        need = _FACILITY_HEADS.get(tokens[j].key)
        if need is None:
            return False
        return not need or (j + 1 < len(tokens) and tokens[j + 1].key in need and not tokens[j + 1].first)

    def _named_after_cue(self, tokens: list[Token]) -> list[Span]:
        """A hospital named by a word that names hospitals ("AT MERCY WEST", "from providence"), and common words
        between a place cue and a facility word ("AT CAPE COD HOSPITAL")."""
        spans, names = [], self.rules.words("facility_names")
        for i, tok in enumerate(tokens[1:], 1):
            if tok.first or tokens[i - 1].key not in _PLACE_BEFORE or tokens[i - 1].key in ("on", "off"):
                continue
            mount = tok.key in ("mt", "mount") and i + 1 < len(tokens) and tokens[i + 1].kind == "w" \
                and not tokens[i + 1].first and self._common_place_word(tokens[i + 1])
            if mount:  # "from mt auburn ed", "AT MOUNT SINAI"
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i + 1)].end, PhiType.HOSPITAL))
                continue
            if tok.kind == "d" and len(tok.text) <= 2 and i + 1 < len(tokens) \
                    and self._ward_after_number(tokens, i + 1):
                spans.append(Span(tok.start, tokens[i + 1].end, PhiType.HOSPITAL))  # "CALLED OUT TO 7 FELDMAN"
                continue
            if self._ward_named(tokens, i):  # "TRANSFERRED TO PHELPS", "called out to ashby"
                spans.append(Span(tok.start, tok.end, PhiType.HOSPITAL))
                continue
            if self._unknown_place(tokens, i):
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i)].end, PhiType.HOSPITAL))
                continue
            if tok.key in names:
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i)].end, PhiType.HOSPITAL))
                continue
            j = i
            while j < len(tokens) and j - i < 3 and not tokens[j].first and self._common_place_word(tokens[j]) \
                    and tokens[j].key not in STOPWORDS and not self._facility_head(tokens, j):
                j += 1
            if i < j < len(tokens) and not tokens[j].first and self._facility_head(tokens, j) \
                    and tokens[j].start - tokens[j - 1].end <= 2:
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, j)].end, PhiType.HOSPITAL))
        return spans
