"""How a facility's name grows from the word a rule found: right over its tail words ("saint agnes general", "MERCY
WEST", "medical center"), a second facility word after "and", "of the" and a place, a town after it or after "at",
a campus, and a specialty before its head ("JOSLIN DIABETES CENTER"); left over prefixes ("university of") and, after
a place cue, over common words ("AT CAPE COD HOSPITAL"). facilities.py reads the names; this module grows them.
"""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.name_words import SAINT_WORDS
from medhelm_local.redact.place_words import PLACE_BEFORE, PRACTICE_WORDS
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.wards import WARD_KINDS, WardRules

# What a facility's name ends in, so that a place cue may reach across common words before it: "AT CAPE COD
# HOSPITAL", "to mt auburn hosp", "FROM BLUE HILLS MEDICAL CENTER" (a word, or a word and what must follow it).
_FACILITY_HEADS = {"hospital": (), "hosp": (), "infirmary": (), "medical": ("center", "ctr", "centre", "care"),
                   "med": ("center", "ctr"), "health": ("center", "ctr", "centre", "alliance", "system"),
                   "nursing": ("home", "facility", "center", "ctr", "centre", "care", "and"), "healthcare": (),
                   "lodge": (), "living": ("center",), "primary": ("care",),
                   "rehab": ("hospital", "center", "ctr"), "rehabilitation": ("hospital", "center"), "snf": (),
                   "ecf": (), "ltac": (), "ltach": (), "manor": (), "care": ("center", "ctr"),
                   "assisted": ("living",), "senior": ("living", "center"),
                   "family": ("medicine", "practice", "physicians", "health"), "associates": (), "assoc": (),
                   "hospice": (), "mental": ("health",), "behavioral": ("health",), "comm": ("health",),
                   "community": ("health", "hospital"), "cancer": ("center", "ctr", "centre", "institute"),
                   "treatment": ("center", "ctr", "centre"), "dialysis": ()}
# Words that end a hospital's name after it: "saint agnes general", "MERCY WEST", "Lahey North", "lahey north shore".
_FACILITY_TAIL = frozenset({"general", "gen", "regional", "memorial", "medical", "med", "center", "ctr", "centre",
                            "hospital", "hosp", "health", "healthcare", "rehab", "rehabilitation", "nursing", "west",
                            "east", "north", "south", "northshore", "southshore", "metrowest", "northeast",
                            "northwest", "southeast", "southwest", "campus", "clinic",
                            "institute", "infirmary", "alliance", "lodge", "dialysis", "shore"})
# What a home service of a named agency is called after "home": "CARITAS HOME CARE", "caregroup home health".
_HOME_SERVICES = frozenset({"care", "health", "healthcare", "services", "svcs", "hospice", "infusion"})
# Facility words a name reaches across its specialty to: "JOSLIN DIABETES CENTER", "harborview skilled nursing",
# "SPAULDING CARDIAC REHAB". A practice's words (places.py), less the two a specialty never comes before, "nursing"
# and "rehab".
_SPECIALTY_HEADS = (PRACTICE_WORDS - {"practice", "partners"}) | {"nursing", "rehab"}
# Words that go on a facility's name after "and": "rehab and nursing center", "maplewood nursing and rehab".
_JOINED_FACILITY_WORDS = frozenset({"rehab", "rehabilitation", "nursing", "healthcare", "health", "living", "wellness",
                                    "convalescent", "retirement", "hospice", "infants", "womens", "childrens"})
# Words that say when, after a facility's "of <place>": "HOSPITAL OF PORTLAND NEXT WEEK" ends at the town.
_WHEN_AFTER_A_NAME = frozenset({"next", "last", "this", "today", "tomorrow", "tonight", "yesterday", "week", "month",
                                "am", "pm", "morning", "evening", "soon", "when", "once", "after", "before"})
_PREFIXES = frozenset({"st", "saint", "ste", "mt", "mount", "university", "univ", "of", "the", "holy", "our", "lady",
                       "good", "sacred"})


class FacilityGrowth(WardRules):
    """The parts of a facility's name around the word a rule found."""

    @staticmethod
    def _name_word(tokens: list[Token], k: int) -> Token | None:
        """Token k when it can go on a name before it on its line (a word or a mark, at most two spaces away)."""
        ok = k < len(tokens) and not tokens[k].first and tokens[k].start - tokens[k - 1].end <= 2
        return tokens[k] if ok and tokens[k].kind in "wp" else None

    def _grow_right(self, tokens: list[Token], b: int) -> int:
        """Index of the last word of a hospital name ending at token b, past its tail words ("general", "medical
        center"), a second facility word after "and" ("rehab and nursing center"), "of the" and a place ("care center
        of the pioneer valley"), a town after it or after "at" ("Radius Healthcare Center at Danvers", "LAHEY
        BURLINGTON"), and a campus ("lowell general saints campus")."""
        for _ in range(4):
            b = self._stretch_right(tokens, b)
            nxt = self._joined_after(tokens, b)
            if nxt == b:
                break
            b = nxt
        return b

    def _joined_after(self, tokens: list[Token], b: int) -> int:
        """Index of the last word that a joining word after token b adds to a facility's name, or b."""
        first, second = self._name_word(tokens, b + 1), self._name_word(tokens, b + 2)
        if first is None:
            return b
        facility_word = tokens[b].key in _FACILITY_TAIL or tokens[b].key in _FACILITY_HEADS
        if first.text in ("and", "AND", "And", "&", "+") and second is not None:
            if second.key in _JOINED_FACILITY_WORDS:
                return b + 2  # "maplewood nursing and rehab", "rehab and nursing center"
            return b
        if first.key == "of" and second is not None and not facility_word and self._town_at(tokens, b + 2):
            return self._town_at(tokens, b + 2)  # "fresenius of taunton": a provider's branch in a town
        if first.key == "of" and facility_word and second is not None:
            k = b + 2 + (second.key == "the")
            end = k
            while end < len(tokens) and end - k < 3 and self._name_word(tokens, end) is not None \
                    and tokens[end].kind == "w" and tokens[end].key not in STOPWORDS \
                    and tokens[end].key not in _WHEN_AFTER_A_NAME \
                    and (self._common_place_word(tokens[end]) or tokens[end].key in self.rules.words("states")):
                end += 1
            return end - 1 if end > k else b  # "LIFE CARE CENTER OF THE PIONEER VALLEY"
        if first.key == "at" and facility_word and second is not None and self._town_at(tokens, b + 2):
            return self._town_at(tokens, b + 2)  # "Healthcare Center at Danvers"
        if first.kind == "w" and self._town_at(tokens, b + 1) and (facility_word or tokens[b].key in
                                                                 self.words.facility_names_one):
            return self._town_at(tokens, b + 1)  # "LAHEY BURLINGTON", "harvard vanguard kenmore"
        if first.kind == "w" and second is not None and second.key == "campus" and first.key not in STOPWORDS:
            return b + 2  # "lowell general saints campus"
        if not facility_word and tokens[b].kind == "w":
            return self._specialty_then_head(tokens, b)
        return b

    def _specialty_then_head(self, tokens: list[Token], b: int) -> int:
        """Index of the facility word after one or two specialty words that go on a name ending at token b in
        a bare name ("JOSLIN DIABETES CENTER", "harborview skilled nursing"), or b; only after a name already
        read, so "DIABETES CENTER" or "SKILLED NURSING" alone is none, and never after a facility word ("MERCY
        HOSPITAL SKILLED NURSING RECOMMENDED" reads as two things)."""
        generic = self.rules.words("facility_generic")
        for k in (b + 1, b + 2):
            head = self._name_word(tokens, k)
            if head is None or head.kind != "w":
                return b
            if head.key in _SPECIALTY_HEADS and k > b + 1:
                return k
            if head.key in STOPWORDS or len(head.key) < 3 or not (
                    head.key in generic or self.tier(head) == Ambiguity.CLINICAL):
                return b
        head = self._name_word(tokens, b + 3)
        return b + 3 if head is not None and head.key in _SPECIALTY_HEADS else b

    def _town_at(self, tokens: list[Token], k: int) -> int:
        """Index of the last word of a town of one or two words starting at token k (not a clinical word), or 0."""
        for n in (2, 1):
            if k + n > len(tokens) or any(t.first or t.kind != "w" for t in tokens[k:k + n]):
                continue
            words = tokens[k:k + n]
            if " ".join(t.key for t in words) in self.words.cities and len(words[0].key) >= 4 \
                    and self.tier(words[-1]) != Ambiguity.CLINICAL and words[0].key not in self.rules.words("states"):
                return k + n - 1
        return 0

    def _stretch_left(self, tokens: list[Token], a: int) -> int:
        """Index of the first word of a hospital name ending at token a: over distinctive words and prefixes
        ("university of"), and over common words too when a place cue bounds them ("AT CAPE COD HOSPITAL"); never over
        "osh", which says the name is an outside hospital's ("at osh good sam")."""
        j = a
        while j > 0 and a - j < 3 and not tokens[j].first:
            t = tokens[j - 1]
            if t.text == "." and j > 1 and tokens[j - 2].key in SAINT_WORDS and t.start == tokens[j - 2].end:
                j -= 2  # "FROM ST. AGNES MEDICAL CENTER": the saint's dotted short form begins the name
                break
            university_of = t.key == "of" and j > 1 and tokens[j - 2].key in ("university", "univ")
            if t.kind != "w" or tokens[j].start - t.end > 2 or t.key in PLACE_BEFORE or t.key in ("osh", "oshs") \
                    or (t.key in self._never_names and not university_of):
                break
            j -= 1  # "univ of vermont med ctr": over "of" only after "university"
        cue = j > 0 and not tokens[j].first and tokens[j - 1].key in PLACE_BEFORE
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
        """A common word that can be part of a place's name ("CAPE", "COD"), not shorthand, a unit or a slip of a
        function word ("at teh hope lodge")."""
        return (tok.kind == "w" and len(tok.key) >= 3 and not self.words.is_shorthand(tok.key)
                and not self.swapped_slip(tok)
                and tok.key not in self.rules.words("units") and tok.key not in self.rules.words("facility_generic")
                and tok.key not in self.rules.words("states"))

    def _specialty_word(self, tok: Token) -> bool:
        """A clinical word that can stand inside a facility's name after its town ("JEWISH", "EATING", "DISORDER")."""
        return (tok.kind == "w" and len(tok.key) >= 4 and tok.text.isalpha()
                and tok.key not in self.rules.words("units") and tok.key not in self.rules.words("facility_generic"))

    def _stretch_right(self, tokens: list[Token], b: int) -> int:
        """Index of the last word of a hospital name starting before token b: over "general", "west", "medical
        center" ("saint agnes general", "MERCY WEST")."""
        while b + 1 < len(tokens) and not tokens[b + 1].first and tokens[b + 1].start - tokens[b].end <= 2:
            if tokens[b + 1].key in ("medical", "med") and b + 2 < len(tokens) and tokens[b + 2].key in WARD_KINDS:
                break  # "the sheehan 3 medical floor": the ward's service
            if tokens[b + 1].key in _FACILITY_TAIL or tokens[b + 1].key in _FACILITY_HEADS.get(tokens[b].key, ()):
                b += 1  # "NURSING CARE"
            elif tokens[b + 1].key == "home" and b + 2 < len(tokens) and not tokens[b + 2].first \
                    and tokens[b + 2].key in _HOME_SERVICES:
                b += 2  # "CARITAS HOME CARE", "caregroup home health": an agency's home service
            else:
                break
        return b

    @staticmethod
    def _facility_head(tokens: list[Token], j: int) -> bool:
        """Whether token j ends a facility's name ("HOSPITAL") or starts its last words ("MEDICAL CENTER")."""
        need = _FACILITY_HEADS.get(tokens[j].key)
        if need is None:
            return False
        return not need or (j + 1 < len(tokens) and tokens[j + 1].key in need and not tokens[j + 1].first)
