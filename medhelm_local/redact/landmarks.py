"""Named places that are neither towns nor places of care: shelters, jails and prisons, churches, schools and colleges,
group residences, malls, beaches and ponds, named with the word for their kind ("FROM ST BRENDAN HOUSE SHELTER", "at
bunker hill community college", "NASHUA STREET JAIL", "INMATE AT MCI CEDAR JUNCTION"). Safe Harbor counts them among
the locations smaller than a state; the annotation guidelines mark them as places (CITY, class landmark). A kind
alone, or after words that say only which kind ("the shelter", "AT HIGH SCHOOL", "to county jail"), names none.
"""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.facilities import FacilityRules
from medhelm_local.redact.name_words import SAINT_WORDS
from medhelm_local.redact.place_words import PLACE_BEFORE
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span

# The kinds of place a name goes before: "CROSSROADS SHELTER", "st. anselm church", "MALDEN HIGH SCHOOL", "AT THE
# SEAPORT HOTEL" (not "temple", which is a side of the head as often).
_KINDS = frozenset({"shelter", "inn", "jail", "prison", "church", "chapel", "cathedral", "parish", "mosque",
                    "synagogue", "school", "college", "academy", "residence", "ymca", "ywca", "mall", "beach", "pond",
                    "arena", "stadium", "fairgrounds", "reservation", "wharf", "hotel", "motel", "airport"})
# Words that say only which kind a place is, so that they name none alone: "AT HIGH SCHOOL", "local church",
# "COUNTY JAIL", "the women's shelter", "FIRST BAPTIST CHURCH" (a name to a reader, not to a rule), "SHALLOW POND".
_WHICH_KIND = frozenset({"high", "middle", "elementary", "junior", "senior", "community", "county", "state", "city",
                         "town", "local", "homeless", "family", "family's", "women", "womens", "women's", "men",
                         "mens", "men's", "public", "private", "catholic", "christian", "baptist", "methodist",
                         "lutheran", "episcopal", "presbyterian", "congregational", "evangelical", "orthodox",
                         "pentecostal", "unitarian", "federal", "correctional", "group", "sober", "halfway", "day",
                         "night", "sunday", "summer", "grad", "graduate", "medical", "med", "nursing", "law", "art",
                         "beauty", "trade", "vocational", "technical", "charter", "boarding", "home", "new", "old",
                         "big", "small", "nearby", "same", "other", "bus", "train", "police", "fire", "shopping",
                         "strip", "outlet", "house", "street", "st", "first", "second", "main", "youth", "teen",
                         "emergency", "overnight", "temporary", "transitional", "residential", "assisted", "living",
                         "parochial", "prep", "preparatory", "hebrew", "jewish", "islamic", "muslim", "buddhist",
                         "hindu", "greek", "armenian", "haitian", "spanish", "korean", "chinese", "vietnamese",
                         "irish", "italian", "portuguese", "african", "american", "north", "south", "east", "west",
                         "area", "nearest", "regular", "usual", "previous", "prior", "former", "current",
                         "shallow", "deep", "frozen", "icy", "cold", "dirty", "crowded", "empty", "abandoned",
                         "large", "little"})
# Where a place's name may begin after: "FROM ST BRENDAN HOUSE SHELTER", "in middleton jail", "attends x college".
_CUES = PLACE_BEFORE | {"in", "near", "outside", "behind", "inside", "of", "attends", "attended", "attending", "frm"}
# What "house" names after it, so that "X HOUSE" is the place's name: "GRANITE HOUSE HALFWAY HOUSE", "ST BRENDAN
# HOUSE SHELTER" ("his house", "daughter's house" stay words).
_HOUSE_OF = frozenset({"halfway", "shelter", "sober", "group"})
# Words after a kind that make it say what a person is or does, or which part of it: "college student", "school
# nurse", "church friends", "A FRAMINGHAM MOTEL ROOM".
_WHO_OF_A_KIND = frozenset({"student", "students", "teacher", "teachers", "nurse", "nurses", "kids", "friend",
                            "friends", "graduate", "educated", "degree", "level", "age", "aged", "dropout", "years",
                            "member", "members", "group", "counselor", "bus", "staff", "employee", "worker",
                            "room", "rooms", "lobby", "parking", "bathroom"})
_KINDS_AND_HOUSE = _KINDS | {"house"}
_MCI = frozenset({"mci"})  # a Massachusetts Correctional Institution: "MCI FRAMINGHAM", "MCI CEDAR JUNCTION"


class LandmarkRules(FacilityRules):
    """Shelters, jails, churches, schools and other named places found by the word for their kind."""

    def _landmarks(self, tokens: list[Token]) -> list[Span]:
        """Spans of places named before the word for their kind, and of correctional institutions named after MCI."""
        spans = []
        for k in where(tokens, _KINDS_AND_HOUSE):
            end = k
            if tokens[k].key == "house":
                nxt = tokens[k + 1] if k + 1 < len(tokens) and not tokens[k + 1].first else None
                if nxt is None or nxt.key not in _HOUSE_OF:
                    continue
                if nxt.key == "shelter":
                    end = k + 1  # "ST BRENDAN HOUSE SHELTER"
            after = tokens[end + 1] if end + 1 < len(tokens) and not tokens[end + 1].first else None
            if after is not None and after.key in _WHO_OF_A_KIND:
                continue  # "A 20-YEAR-OLD MALE COLLEGE STUDENT": the kind says what a person is
            start = self._name_before_kind(tokens, k)
            if start is not None:
                spans.append(Span(tokens[start].start, tokens[end].end, PhiType.CITY))
        return spans + self._correctional(tokens)

    def _name_before_kind(self, tokens: list[Token], k: int) -> int | None:
        """Index of the first word of a name that ends right before the kind at k, or None: up to four words that
        may stand in a place's name, at least one of them more than a word for which kind, begun after a place cue
        (or, without one, holding a saint, a town or a word no list holds)."""
        start = k
        while start > 0 and k - start < 4 and not tokens[start].first \
                and tokens[start].start - tokens[start - 1].end <= 2:
            before = tokens[start - 1]
            if before.text == "." and start > 1 and tokens[start - 2].key in SAINT_WORDS:
                start -= 2  # "st. anselm church"
                break
            if before.key in _CUES or not self._in_a_place_name(before):
                break  # "in revere near revere beach": the cue bounds the name
            start -= 1
        words = [t for t in tokens[start:k] if t.kind == "w"]
        naming = [t for t in words if t.key not in _WHICH_KIND and t.key not in SAINT_WORDS
                  and t.key not in _KINDS_AND_HOUSE]  # "at the airport hotel": a kind names no place
        if not naming or (tokens[start].cased and not all(t.text[:1].isupper() for t in naming)):
            return None
        cue_at = start - 1 - (start > 1 and tokens[start - 1].key == "the" and not tokens[start - 1].first)
        cue = cue_at >= 0 and not tokens[start].first and tokens[cue_at].key in _CUES  # "at the holiday inn"
        strong = any((t.key in self.words.cities and self.tier(t) != Ambiguity.CLINICAL)
                     or (self.tier(t) == Ambiguity.NAME_ONLY and len(t.key) >= 4) for t in naming) \
            or any(t.key in SAINT_WORDS for t in words)
        return start if cue or strong else None

    def _in_a_place_name(self, tok: Token) -> bool:
        """A word that can stand in a place's name: a word for which kind, a saint, a town, or a word of three letters
        or more that is no stopword, no relation, no unit and no shorthand."""
        key = tok.key
        if tok.kind != "w" or key in STOPWORDS or key in self.rules.words("relations"):
            return False
        if key in _WHICH_KIND or key in SAINT_WORDS or key in self.words.cities:
            return True
        if len(key) >= 5 and key.endswith(("ing", "ed")):
            return False  # "while running around jamaica pond", "mom asked abt college": what someone did
        return len(key) >= 3 and not self.words.is_shorthand(key) and key not in self.rules.words("units") \
            and key not in self.rules.words("states")  # a clinical word too ("CEDAR", "ORCHARD"), but after a cue

    def _correctional(self, tokens: list[Token]) -> list[Span]:
        """"INMATE AT MCI CEDAR JUNCTION", "from mci framingham": a correctional institution named after MCI and a
        place cue (without one, MCI is mild cognitive impairment)."""
        spans = []
        for k in where(tokens, _MCI):
            if k == 0 or tokens[k].first or tokens[k - 1].key not in _CUES or k + 1 >= len(tokens):
                continue
            end = k
            while end + 1 < len(tokens) and end - k < 2 and not tokens[end + 1].first \
                    and tokens[end + 1].kind == "w" and self._in_a_place_name(tokens[end + 1]):
                end += 1
            if end > k:
                spans.append(Span(tokens[k].start, tokens[end].end, PhiType.CITY))
        return spans
