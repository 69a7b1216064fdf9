"""Facility names in notes without case: hospital spans grown to the whole name (facility_growth.py: "saint agnes
general", "AT CAPE COD HOSPITAL", "LIFE CARE CENTER OF THE PIONEER VALLEY"), names a facility list holds ("MASS EYE AND
EAR", "brigham and women's"), bare names after a place cue ("from providence", "@lahey"), clinics and buildings named
after a person ("IN THE SALTONSTALL LIVER CLINIC", "TO THE HARWOOD BUILDING") and a short name in brackets after a
name; the date or year right after a place (place_dates.py) and wards (wards.py) are read in the same pass. The
clinical vocabulary decides what is jargon.
"""

from __future__ import annotations

from bisect import bisect_left

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.place_dates import PlaceDates
from medhelm_local.redact.place_words import (
    MOVED_FROM,
    MOVES,
    PLACE_BEFORE,
    UNIT_AFTER,
    changed_from,
)
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span

# What ends a facility's name begun by a town and a specialty: "CAMBRIDGE EATING DISORDER CENTER", "quincy pain clinic".
_TOWN_FACILITY_HEADS = frozenset({"center", "ctr", "centre", "clinic", "institute", "program"})
# Words after a town that make it a hospital's name: "LOWELL GENERAL", "sturdy memorial".
_TOWN_HOSPITAL = frozenset({"general", "gen", "memorial", "mem", "regional"})
# What makes a listed name words of a sentence: "ABD MASS GENERAL SURGERY AWARE", "general appearance".
_NOT_AFTER_FACILITY = frozenset({"surgery", "surgeon", "surg", "medicine", "anesthesia", "appearance", "condition",
                                 "exam", "examination", "weakness", "malaise", "wellbeing", "population", "principles"})
# Facilities named by a word a body or a note uses otherwise, read only after "at", "from" or a move: "LIVES AT
# RADIUS IN DANVERS", "BACK TO RADIUS WHEN", not "PAIN RADIATING TO RADIUS".
_NAMES_AFTER_A_MOVE = frozenset({"radius"})
_TO_OR_FROM = frozenset({"from", "frm", "at", "to", "@"})
# What "med" after a town begins instead of a hospital's name: "BOSTON MED FLIGHT", "worcester med school".
_NOT_A_HOSPITAL_AFTER_MED = frozenset({"flight", "school", "student", "students", "list", "lists", "rec", "recs",
                                       "hx", "history", "surg", "team", "service"})
# What nursing is or does after a word, so that the two name no nursing home: "FROM ICU NURSING NOTE".
_WHAT_NURSING_DOES = frozenset({"note", "notes", "staff", "care", "assessment", "report", "student", "students",
                                "supervisor", "judgment", "judgement", "diagnosis", "process", "plan", "home",
                                "facility", "center", "ctr", "interventions", "measures", "team"})
_OSH = frozenset({"osh", "oshs"})  # an outside hospital
_HOSPITAL_WORDS = frozenset({"hosp", "hospital", "med", "medical", "mc", "hospitals"})
_AT_A_UNIT = frozenset({"at", "from", "frm", "@"})  # where a patient has dialysis, not what they go on to
_THE = frozenset({"the"})
# Buildings, wings and houses of a hospital or a home, named after a person: "TO THE HARWOOD BUILDING", "to barbara
# mcinnis house", "ERICH LINDEMANN CENTER", "from group home (vinfen residence)".
_BUILDING_WORDS = frozenset({"building", "bldg", "pavilion", "wing", "house", "residence", "center", "centre", "ctr"})
_CENTRES = frozenset({"center", "centre", "ctr"})  # which a town goes before as a village's name: "Harwich Center"
# Which side or part of a building, not whose: "THE EAST WING", "the main building".
_DIRECTIONS_AND_SIDES = frozenset({"north", "south", "east", "west", "left", "right", "upper", "lower", "main"})
# Before such a name: "the", a place cue, "in", "(", or a first name ("barbara mcinnis house").
_BEFORE_A_BUILDING = PLACE_BEFORE - {"on", "off"} | {"the", "in", "("}
# Words before "of" and a town that say where in it, not whose branch: "FROM OUTSKIRTS OF LOWELL", "north of boston".
_NOT_A_BRANCH = frozenset({"outskirts", "town", "city", "area", "part", "parts", "side", "north", "south", "east",
                           "west", "center", "centre", "suburb", "suburbs", "outside", "edge", "home", "house", "state",
                           "county", "university", "univ", "village", "downtown", "middle", "heart", "rest"})
# A street's suffix that a health centre's name holds after the street it is on: "CODMAN SQ HEALTH CTR".
_STREET_IN_A_NAME = frozenset({"st", "sq", "square", "street", "ave"})


# Lodgings and words that place one near a hospital, which name no facility alone: "hotel near hosp".
_LODGINGS = frozenset({"hotel", "motel", "inn", "apartment", "apt", "near", "nearby", "close", "across", "inpt",
                       "outpt", "hospice", "lodging", "room"})


class FacilityRules(PlaceDates):
    """Whole facility names, listed facilities, bare names after a place cue, and the wards WardRules reads."""

    def _stretch_places(self, tokens: list[Token], spans: list[Span]) -> list[Span]:
        """Hospital spans grown to the whole name, listed facilities, and bare facility names after a place cue."""
        starts = [t.start for t in tokens]
        found = self._named_after_cue(tokens) + self._outside_hospital_named(tokens) + self._listed_facilities(tokens)
        found += self._listed_wards(tokens) + self._ward_before_kind(tokens) + self._named_clinic(tokens)
        found += self._named_building(tokens)
        found = [f for f in found if not self._nothing_named(tokens, starts, f)]
        out = list(spans) + found
        for span in spans + found:
            a = bisect_left(starts, span.start)
            b = bisect_left(starts, span.end) - 1
            if a >= len(tokens) or b < a:
                continue
            after = tokens[b + 1].key if b + 1 < len(tokens) and not tokens[b + 1].first else ""
            town_hospital = span.type is PhiType.CITY and (after in _TOWN_HOSPITAL or (  # "LOWELL GENERAL"
                after == "med" and self._med_after_town(tokens, a, b)))  # "from quincy med w/ tumor lysis"
            if span.type is PhiType.HOSPITAL or ((after in UNIT_AFTER or town_hospital)
                                                 and span.type in (PhiType.CITY, PhiType.NAME)):
                a2, b2 = self._stretch_left(tokens, a), self._grow_right(tokens, b)
                if span.type is not PhiType.HOSPITAL and not town_hospital \
                        and not (a2 and tokens[a2 - 1].key in MOVED_FROM):
                    continue  # "FROM NEWTON WELLESLEY ER": a town before a unit is a hospital only after a place cue
                if (a2, b2) != (a, b) or span.type is not PhiType.HOSPITAL:
                    out.append(Span(tokens[a2].start, tokens[b2].end, PhiType.HOSPITAL))
                short = self._short_name_after(tokens, b2)
                if short is not None:
                    out.append(short)
        return out + self._dates_after_places(tokens, starts, out)

    @staticmethod
    def _med_after_town(tokens: list[Token], a: int, b: int) -> bool:
        """Whether "med" after the town at a..b shortens its hospital's name: after "from", "at" or "to" ("from quincy
        med w/ tumor lysis"), not before a flight or a school ("VIA BOSTON MED FLIGHT"), nor after "in" ("LIVES IN
        QUINCY MED HX ...")."""
        if a == 0 or tokens[a].first or tokens[a - 1].key not in _TO_OR_FROM:
            return False
        nxt = tokens[b + 2] if b + 2 < len(tokens) and not tokens[b + 2].first else None
        return nxt is None or nxt.key not in _NOT_A_HOSPITAL_AFTER_MED

    def _nothing_named(self, tokens: list[Token], starts: list[int], span: Span) -> bool:
        """Whether a place found after a cue names nothing in particular: only numbers ("DOWN FROM 12000"), or only
        generic facility words around a lodging or a word like "near" ("staying at hotel near hosp", "dispo to inpt
        hospice"); "THE VA", "THE MANOR" name one."""
        inside = tokens[bisect_left(starts, span.start):bisect_left(starts, span.end)]
        words = [t.key for t in inside if t.kind == "w"]
        generic = self.rules.words("facility_generic")
        return not words or (any(w in _LODGINGS for w in words) and all(
            w in generic or w in self._facility_words or w in _LODGINGS or w in STOPWORDS for w in words))

    def _short_name_after(self, tokens: list[Token], b: int) -> Span | None:
        """The short name a facility's name ending at token b is given in brackets after it: "SOMERVILLE HOSPITAL
        (CHA)", "dialysis clinics inc (dci west roxbury)"; letters no vocabulary knows, not a unit ("MGH (ICU)")."""
        if b + 2 >= len(tokens) or tokens[b + 1].text != "(" or tokens[b + 1].first:
            return None
        short = tokens[b + 2]
        if short.kind != "w" or not 2 <= len(short.key) <= 5 or not short.text.isalpha() or short.first \
                or (short.cased and not short.text.isupper()) or short.key in self.words.everyday \
                or self.words.is_shorthand(short.key) or self.tier(short) == Ambiguity.CLINICAL \
                or short.key in self.rules.words("units") or short.key in self.rules.words("states"):
            return None
        after = tokens[b + 3] if b + 3 < len(tokens) else None
        if after is not None and not (after.text == ")" or self._town_at(tokens, b + 3)):
            return None
        return Span(short.start, short.end, PhiType.HOSPITAL)

    def _listed_facilities(self, tokens: list[Token]) -> list[Span]:
        """Names of several words that facilities.txt holds, wherever they stand ("MASS EYE AND EAR", "brigham and
        women's", "dana-farber"); one-word names are read after a place cue (_named_after_cue)."""
        spans, firsts = [], self.words.facility_firsts
        for i in where(tokens, firsts):
            tok = tokens[i]
            if tok.kind != "w":
                continue
            keys: list[str] = []
            ends: list[int] = []
            j = i
            while j < len(tokens) and len(keys) < self.words.facility_max_words:
                t = tokens[j]
                if j > i and (t.first or t.start - tokens[j - 1].end > 2):
                    break
                if t.kind == "w" and t.key == "s" and keys and tokens[j - 1].text in "'’":
                    keys[-1] += "s"  # "women's"
                    ends[-1] = j
                elif t.kind == "w" or t.text in ("&", "+"):
                    keys.append("and" if t.text in ("&", "+") else t.key)  # "brigham + womens"
                    ends.append(j)
                elif not (t.text in "-'’" or (t.text == "." and len(tokens[j - 1].text) <= 3)):
                    break  # "ST. LUKE'S", "dana-farber"; not "MASS. GENERAL APPEARANCE"
                j += 1
            for n in range(len(keys), 1, -1):
                after = tokens[ends[n - 1] + 1].key if ends[n - 1] + 1 < len(tokens) else ""
                if " ".join(keys[:n]) in self.words.facilities and after not in _NOT_AFTER_FACILITY:
                    spans.append(Span(tok.start, tokens[ends[n - 1]].end, PhiType.HOSPITAL))
                    break
        return spans

    def _named_clinic(self, tokens: list[Token]) -> list[Span]:
        """A clinic or centre named after a person or a place, after "the" and before its specialty: "IN THE
        SALTONSTALL LIVER CLINIC", "the abernathy lupus clinic", "IN THE COMERFORD EPILEPSY CENTER" (not "THE
        DIABETES CENTER", whose first word is clinical, nor "THE NEW LIVER CLINIC")."""
        spans = []
        for i in where(tokens, _THE):
            name = self._name_word(tokens, i + 1)
            if name is None or name.kind != "w" or len(name.key) < 4 or not name.text.isalpha() \
                    or (name.cased and not name.text[0].isupper()) or self.tier(name) == Ambiguity.CLINICAL \
                    or name.key in self.words.everyday or self.words.is_shorthand(name.key) \
                    or name.key in self.rules.words("facility_generic") or name.key in self.rules.words("states"):
                continue
            if not (self.words.is_name(name.key) or name.key in self.words.cities or self._unknown(name, Slips.NONE)):
                continue
            end = self._specialty_then_head(tokens, i + 1)
            if end > i + 1:
                spans.append(Span(name.start, tokens[self._stretch_right(tokens, end)].end, PhiType.HOSPITAL))
        return spans

    def _named_building(self, tokens: list[Token]) -> list[Span]:
        """A building, wing, house or centre named by a word that is only a name or that no list knows, after "the",
        a place cue or a first name: "TO THE HARWOOD BUILDING", "to barbara mcinnis house", "(vinfen residence)"; not
        an everyday or clinical word ("THE MAIN BUILDING", "the cancer center", "at the white house")."""
        spans = []
        for h in where(tokens, _BUILDING_WORDS):
            if h < 2 or tokens[h].first:
                continue
            name, before = tokens[h - 1], tokens[h - 2]
            if name.kind != "w" or name.first or len(name.key) < 4 or not name.text.isalpha() \
                    or name.start - before.end > 2 or tokens[h].start - name.end > 2 \
                    or (name.cased and not name.text[0].isupper()) or name.key in self.words.everyday \
                    or self.words.is_shorthand(name.key) or name.key in self.rules.words("facility_generic") \
                    or name.key in self.rules.words("states") or name.key in _DIRECTIONS_AND_SIDES:
                continue
            if not (self.tier(name) == Ambiguity.NAME_ONLY or self._unknown(name, Slips.NONE)) \
                    or (name.key in self.words.cities and tokens[h].key in _CENTRES
                        and before.key not in ("the", "(")):
                continue  # "back from Harwich Center": a village; "AT THE ELIOT CTR", "(ELIOT CENTER)" a home
            if before.key in _BEFORE_A_BUILDING or (before.key in self.words.first_names and before.kind == "w"):
                spans.append(Span(name.start, tokens[h].end, PhiType.HOSPITAL))
        return spans

    def _outside_hospital_named(self, tokens: list[Token]) -> list[Span]:
        """"FROM OSH (NASHOBA)", "osh (good sam)": the outside hospital's name in brackets after it."""
        spans = []
        for i in where(tokens, _OSH):
            if i >= len(tokens) - 3 or tokens[i + 1].text != "(":
                continue
            j = i + 2
            while j < len(tokens) and j - i < 6 and tokens[j].kind == "w" \
                    and not self.words.is_shorthand(tokens[j].key):
                j += 1
            if j == i + 3 and self.tier(tokens[i + 2]) == Ambiguity.CLINICAL:
                continue  # "TAPPED AT OSH (PURULENT)": what the outside hospital found
            if j > i + 2 and j < len(tokens) and tokens[j].text == ")":
                spans.append(Span(tokens[i + 2].start, tokens[j - 1].end, PhiType.HOSPITAL))
        return spans

    @staticmethod
    def _childrens(tokens: list[Token], i: int) -> bool:
        """"AT CHILDREN'S", "transferred to children's": the children's hospital, with its possessive, after "at",
        "from" or a move (not "SPOKE TO CHILDREN'S FATHER")."""
        if tokens[i].first or i + 2 >= len(tokens) or tokens[i + 1].text not in "'’" or tokens[i + 2].key != "s":
            return False
        before = tokens[i - 1].key
        return before in ("at", "from") or (before == "to" and i >= 2 and tokens[i - 2].key in MOVES)

    def _unknown_place(self, tokens: list[Token], i: int) -> bool:
        """A word of five letters or more that no list knows, after "at" (or "at the") or "from" on a line without
        case ("dialysis at fresenius", "placement at gosnold", "seen at the lahey"): a place, as people and jargon
        are listed ("from the azores" is a region)."""
        tok = tokens[i]
        the = i >= 2 and tokens[i - 1].key == "the" and not tokens[i - 1].first and tokens[i - 2].key == "at"
        return (not tok.cased and len(tok.key) >= 5 and tokens[i - 1 - the].key in ("at", "from", "frm", "@")
                and not changed_from(tokens, i)
                and self._unknown(tok, Slips.CLINICAL) and not self.words.is_name(tok.key)
                and tok.key not in self.words.cities
                and tok.key not in self.words.everyday)

    def _names_nursing_facility(self, tok: Token) -> bool:
        """A word that no list knows or a name that is not an everyday word: "HARBORVIEW", "maplecrest"."""
        if tok.key in self.words.everyday or len(tok.key) < 4:
            return False
        return (len(tok.key) >= 5 and self._unknown(tok)) or self.tier(tok) == Ambiguity.NAME_ONLY

    def _named_after_cue(self, tokens: list[Token]) -> list[Span]:
        """A hospital named by a word that names hospitals ("AT MERCY WEST", "from providence"), and common words
        between a place cue and a facility word ("AT CAPE COD HOSPITAL")."""
        spans, names = [], self.rules.words("facility_names") | self.words.facility_names_one
        anywhere = self.rules.words("facility_names_anywhere")
        for i, tok in enumerate(tokens[1:], 1):
            cue = i - 1 - (tokens[i - 1].key == "the" and i > 1 and not tokens[i - 1].first)  # "AT THE HOPE LODGE"
            if tok.key in anywhere and not (tok.cased and not tok.text[0].isupper()):  # "PREFERS KINDRED IN PEABODY"
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i)].end, PhiType.HOSPITAL))
                continue
            if tok.key == "children" and self._childrens(tokens, i):  # "A NURSE AT CHILDREN'S"
                spans.append(Span(tok.start, tokens[i + 2].end, PhiType.HOSPITAL))
                continue
            # (the kind tests repeat the wards' first tests: asked of every token, the calls cost more than both)
            if tok.kind == "d" and not tok.first and self._ward_number_first(tokens, i):  # "OUT TO 7 FELDMAN"
                spans.append(Span(tok.start, tokens[i + 1].end, PhiType.HOSPITAL))
                continue
            code_end = self._ward_code(tokens, i) if tok.kind == "w" and len(tok.key) <= 2 and not tok.first else 0
            if code_end:  # "back to f6 when stable"
                spans.append(Span(tok.start, tokens[code_end].end, PhiType.HOSPITAL))
                continue
            by = tokens[cue].key == "by"  # "FOLLOWED BY SEACOAST CARDIOLOGY ASSOCIATES": only a whole facility name
            if tok.first or (tokens[cue].key not in PLACE_BEFORE and not by) or tokens[cue].key in ("on", "off"):
                continue
            if by:
                spans += self._common_words_then_head(tokens, i)
                continue
            mount = tok.key in ("mt", "mount") and i + 1 < len(tokens) and tokens[i + 1].kind == "w" \
                and not tokens[i + 1].first and self._common_place_word(tokens[i + 1])
            if mount:  # "from mt auburn ed", "AT MOUNT SINAI"
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i + 1)].end, PhiType.HOSPITAL))
                continue
            if self._ward_named(tokens, i):  # "TRANSFERRED TO PHELPS", "called out to ashby"
                spans.append(Span(tok.start, tok.end, PhiType.HOSPITAL))
                continue
            if self._unknown_place(tokens, i):
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i)].end, PhiType.HOSPITAL))
                continue
            moved = tokens[cue].key in ("at", "from") or (cue >= 1 and tokens[cue - 1].key in MOVES)
            if tok.key in names or (tok.key in _NAMES_AFTER_A_MOVE and moved):
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, i)].end, PhiType.HOSPITAL))
                continue
            university = self._university_of(tokens, i)
            if university:  # "ADMISSION TO UNIVERSITY OF MIAMI", "is at univ of michigan"
                spans.append(Span(tok.start, tokens[self._stretch_right(tokens, university)].end, PhiType.HOSPITAL))
                continue
            branch = self._branch_of_town(tokens, i)
            if branch:  # "lives at sunrise of arlington", "ADMITTED FROM LIFECARE OF MELROSE"
                spans.append(Span(tok.start, tokens[branch].end, PhiType.HOSPITAL))
                continue
            spans += self._common_words_then_head(tokens, i)
        return spans

    def _university_of(self, tokens: list[Token], i: int) -> int:
        """Index of the place's last word when token i starts "university of" and a state or a town after a place
        cue ("TO UNIVERSITY OF MIAMI", "at univ of michigan"): a university hospital; or 0."""
        if tokens[i].key not in ("university", "univ") or tokens[i].cased or i + 2 >= len(tokens) \
                or tokens[i + 1].key != "of" or tokens[i + 1].first or tokens[i + 2].first \
                or tokens[i - 1].key == "the":
            return 0  # with case, or after "the", as often the school: "studied at the University of Nicosia"
        states = self.rules.words("states")
        if i + 3 < len(tokens) and not tokens[i + 3].first and f"{tokens[i + 2].key} {tokens[i + 3].key}" in states:
            return i + 3  # "university of new mexico"
        if tokens[i + 2].key in states and (len(tokens[i + 2].key) > 2 or (
                i + 3 < len(tokens) and not tokens[i + 3].first and tokens[i + 3].key in _HOSPITAL_WORDS)):
            return i + 2  # "univ of michigan", and a state's code only before a hospital's word: "univ of vt hosp"
        return self._town_at(tokens, i + 2)

    def _branch_of_town(self, tokens: list[Token], i: int) -> int:
        """Index of the town's last word when token i, "of" and a town follow a place cue: a chain's branch
        ("sunrise of arlington", "LIFECARE OF MELROSE"), not where in the town ("OUTSKIRTS OF LOWELL"); or 0."""
        tok = tokens[i]
        if tok.kind != "w" or len(tok.key) < 4 or tok.key in STOPWORDS or tok.key in _NOT_A_BRANCH \
                or self.tier(tok) == Ambiguity.CLINICAL or i + 2 >= len(tokens) or tokens[i + 1].key != "of" \
                or tokens[i + 1].first or tokens[i + 2].first or tokens[i + 1].start - tok.end > 1:
            return 0
        return self._town_at(tokens, i + 2)

    def _common_words_then_head(self, tokens: list[Token], i: int) -> list[Span]:
        """"AT CAPE COD HOSPITAL", "to sacred heart nursing home", "cape cod family medicine": up to three common
        words from token i, then a facility word (a state, a word a facility's kind is named with, or a street's
        suffix may stand inside once the name has begun: "TO SOUTHERN NH MEDICAL CENTER", "AT CODMAN SQ HEALTH
        CTR")."""
        j, states, kinds = i, self.rules.words("states"), self.rules.words("facility_generic")
        town = tokens[i].key in self.words.cities  # "CHELSEA JEWISH NURSING HOME", "CAMBRIDGE EATING DISORDER CENTER"
        while j < len(tokens) and j - i < 3 and not tokens[j].first and tokens[j].key not in STOPWORDS \
                and (self._common_place_word(tokens[j]) or (town and j > i and self._specialty_word(tokens[j]))
                     or (j > i and (tokens[j].key in states or (tokens[j].key in kinds and len(tokens[j].key) >= 4)
                                    or tokens[j].key in _STREET_IN_A_NAME))) \
                and not self._facility_head(tokens, j) and not (tokens[j].key == "nursing" and j > i
                                                                 and tokens[j - 1].key == "skilled") \
                and not (town and j > i + 1 and tokens[j].key in _TOWN_FACILITY_HEADS):
            j += 1
        head = j < len(tokens) and (self._facility_head(tokens, j)
                                    or (town and j > i + 1 and tokens[j].key in _TOWN_FACILITY_HEADS))
        if head and tokens[j].key == "dialysis" and (i == 0 or tokens[i - 1].key not in _AT_A_UNIT):
            return []  # "AT CHARLES RIVER DIALYSIS", "from fresh pond dialysis"; not "TO START DIALYSIS"
        if i < j < len(tokens) and not tokens[j].first and head and tokens[j].start - tokens[j - 1].end <= 2:
            return [Span(tokens[i].start, tokens[self._stretch_right(tokens, j)].end, PhiType.HOSPITAL)]
        if i < j < len(tokens) and tokens[j].key == "nursing" and tokens[j - 1].key == "skilled" \
                and not tokens[j].first and tokens[j].start - tokens[j - 1].end <= 2 \
                and any(self._names_nursing_facility(t) for t in tokens[i:j - 1]):
            # "TO HARBORVIEW SKILLED NURSING FOR REHAB": a word that names something before the kind; not "TO
            # NEARBY SKILLED NURSING", "TO SHORT TERM SKILLED NURSING"
            return [Span(tokens[i].start, tokens[j].end, PhiType.HOSPITAL)]
        n = j - 1 if j < len(tokens) and tokens[j - 1].key == "nursing" else j  # the run may take "nursing" in
        if i < n < len(tokens) and tokens[n].key == "nursing" and i and tokens[i - 1].key in _AT_A_UNIT | {"to"} \
                and not tokens[n].first and all(self._names_nursing_facility(t) or (
                    self._common_place_word(t) and t.key not in self.rules.words("facility_generic"))
                    for t in tokens[i:n]) \
                and (n + 1 >= len(tokens) or tokens[n + 1].first or tokens[n + 1].key not in _WHAT_NURSING_DOES):
            return [Span(tokens[i].start, tokens[n].end, PhiType.HOSPITAL)]  # "FROM ROSEWOOD NURSING W/ UROSEPSIS"
        return []
