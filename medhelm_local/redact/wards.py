"""Wards of the hospital a note names in a transfer, in notes without case: a surname after a move ("TRANSFERRED TO
PHELPS", "xfer to ashby"), a number before the ward's name ("to 7 feldman", "ON 9 FELDBERG", "FROM 12 STONE TODAY",
"(7 FARR)"), and ward codes ("back to f6 when stable", "TO CC7 LATER", "transfer to cc 7 tele"). What follows a
transfer is as often a drug or a setting ("BACK TO TEMODAR", "WEANED BACK TO O2", "INCREASED TO M3"), so each needs its
cue and the clinical vocabulary decides what is jargon.
"""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.initials import InitialsRules
from medhelm_local.redact.place_words import CHANGE_BEFORE_TO, MOVED_FROM, MOVES, UNIT_AFTER, WARD_AFTER
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import Token, where
from medhelm_local.redact.types import PhiType, Span

# Letters of a ward code that are oxygen, dextrose, a vitamin, a blocker, a drain or a chamber instead: "back to O2",
# "to D5", "B12", "from JP2".
_NOT_WARD_LETTERS = frozenset({"o", "d", "b", "h", "v", "nc", "fm", "ra", "po", "iv", "sq", "pr", "ng", "og", "jp",
                               "ij", "ct", "pa", "la", "rv", "lv", "cv", "ic"})
# What follows a spaced ward code besides a time: "TO CC 7 STEP DOWN", "transfer to cc 7 tele tomorrow".
_AFTER_A_WARD_CODE = UNIT_AFTER | {"in", "step", "stepdown", "and", "room", "rm", "medicine", "med", "surgery", "surg",
                                  "assigned", "then", "but", "if", "pending"}
# What assigns a patient a bed on a ward written as a code: "BED ASSIGNED CC 7", "BED ON CC 7", "TX TO CC 9".
_BED_ASSIGNED = frozenset({"assigned", "bed"})
# Short forms of listed wards a hurried note types, read only after a cue and before a floor's number: "to far 6".
_SHORT_WARDS = frozenset({"far", "reis"})
_VISAS = frozenset({"visa", "visas", "status"})  # "on j-1 summer work visa": a visa's class, not a ward
# The staff of a ward, written after its code: "PER F6 RN", "cc7 charge aware".
_WARD_STAFF = frozenset({"rn", "rns", "nurse", "nurses", "charge", "team", "resident", "np"})
_BARE_WARD_LETTERS = frozenset({"f", "cc", "j", "k", "m", "n", "r", "w"})
# Before a ward's number written first: "ON 12 WHITE", "to 7 feldberg", "(7 FARR)".
_CUES_BEFORE_A_WARD_NUMBER = frozenset({"on", "to", "from", "at", "(", "frm", "fr", "@"})
# After a number beside a ward's word, what makes it a count or a dose instead: "WANG 3 MG", "WHITE 2 PLUS".
_UNITS_AFTER_A_COUNT = frozenset({"mg", "mcg", "g", "gm", "ml", "cc", "l", "units", "u", "cm", "mm", "fr", "french",
                                  "plus", "of", "tabs", "tab", "times", "x", "days", "hrs", "hours", "weeks", "mos",
                                  "yrs", "yr", "years", "year", "months", "y", "yo", "percent", "pm", "am", "beats"})
# Floors a note writes in words after a ward's name: "back to farr eleven".
_NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
sixteen seventeen eighteen nineteen twenty""".split())
_DIRECTIONS = frozenset({"north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"})
# What a ward is after its name and number: "LOWELL 9 NEURO STEP DOWN", "the sheehan 3 medical floor", "HARBORVIEW 2
# DEMENTIA UNIT", "to the fenwick 10 step-down".
WARD_KINDS = frozenset({"floor", "unit", "step", "stepdown", "tele", "telemetry", "icu", "ward", "wing"})
# In brackets after a ward's number, the service it holds: "FARRAGUT 11 (GI/LIVER FLOOR)", "BOWDITCH 2 (INPT PSYCH)".
WARD_KINDS_IN_BRACKETS = WARD_KINDS | {"psych", "psychiatry", "rehab", "oncology", "onc", "medicine", "surgery"}


class WardRules(InitialsRules):
    """Wards named after a move, written number first, or as a code."""

    def _ward_named(self, tokens: list[Token], i: int) -> bool:
        """A surname or a listed ward right after a transfer ("TRANSFERRED TO PHELPS", "xfer to ashby", "called out
        to feldberg"): a ward named without its number, as people after a transfer are rare (an unknown word there
        is as often a drug: "BACK TO TEMODAR")."""
        tok = tokens[i]
        if i < 2 or tokens[i - 1].key != "to" or tokens[i - 2].key not in MOVES or len(tok.key) < 4 \
                or (tok.cased and not tok.text[0].isupper()):
            return False
        if tok.key in self.words.ward_names and tok.key not in self.words.everyday:
            return True  # "CALLED OUT TO FELDBERG": the hospital's own ward, not "back to white"
        known = self.words.is_name(tok.key) and self.tier(tok) != Ambiguity.CLINICAL
        return known and tok.key not in self.words.first_names \
            and not self.words.is_shorthand(tok.key) and tok.key not in self.rules.words("facility_generic")

    def _ward_number_first(self, tokens: list[Token], i: int) -> bool:
        """A ward written number first, token i its number: after a place cue ("to 7 feldman", "ON 9 FELDBERG"), in
        brackets after a move ("TO FLOOR (7 FARR)"), or a surname that is also a word between a move and a time
        ("FROM 12 STONE TODAY"). Not a unit, shorthand, a first name or a direction ("TO 2 L", "ON 2 PRESSORS",
        "to 6 north")."""
        tok, before = tokens[i], tokens[i - 1]
        if tok.kind != "d" or len(tok.text) > 2 or not 1 <= int(tok.text) <= 30 or i + 1 >= len(tokens):
            return False
        word = tokens[i + 1]
        if word.kind != "w" or word.first or word.start - tok.end != 1 or len(word.key) < 4 \
                or not word.text.isalpha() or (word.cased and not word.text[0].isupper()) \
                or word.key in self.rules.words("units") or self.words.is_shorthand(word.key) \
                or word.key in _DIRECTIONS or word.key in self.words.first_names:
            return False
        named = self._unknown(word, Slips.NONE) or (self.words.is_name(word.key)
                                                      and self.tier(word) != Ambiguity.CLINICAL)
        if word.cased and not self._unknown(word):
            return False  # "to 2 Tylenol" is caught as a drug; in mixed case only a word no list knows
        if before.text == "(":  # "TO FLOOR (7 FARR)", "FROM FLOOR (11 REISMAN)"
            return named and i >= 2 and tokens[i - 2].key in MOVES | {"floor", "to", "from"}
        if before.key == "on":  # "MICU BOARDER ON 9 FELDBERG", not "ON 2 PRESSORS", "ON 4 BAGS" nor "on 3 aeds"
            return named and word.key not in self.words.everyday \
                and not (word.key.endswith("s") and self.words.is_shorthand(word.key[:-1]))
        if before.key not in MOVED_FROM:
            return False
        after = tokens[i + 2] if i + 2 < len(tokens) and not tokens[i + 2].first else None
        moved = (i >= 2 and tokens[i - 2].key in MOVES) or (after is not None and after.key in WARD_AFTER)
        return named or (moved and self.words.is_name(word.key))  # "TRANSFERRED FROM 12 STONE TODAY"

    def _ward_code(self, tokens: list[Token], i: int) -> int:
        """The index of a ward code's number after a move, or 0: one or two letters and a number, run together, joined
        by a hyphen or with a time after ("back to f6 when stable", "TRANSFER TO F2 IN AM", "xfer to CC 7 tomorrow",
        "STEPDOWN ON CC-7"), but not oxygen, dextrose or a vitamin ("back to O2", "back to D5", "B12")."""
        tok = tokens[i]
        if tok.kind != "w" or len(tok.key) > 2 or i < 2 or i + 1 >= len(tokens) or tok.key in _NOT_WARD_LETTERS:
            return 0
        n = i + 1
        if n + 1 < len(tokens) and tokens[n].text == "-" and tokens[n].start == tok.end \
                and tokens[n + 1].start == tokens[n].end and tok.key in _BARE_WARD_LETTERS:
            n += 1  # "ON CC-7", "FROM CSRU TO F-6": the hyphen joins the code as running it together does
        number = tokens[n]
        if number.kind != "d" or len(number.text) > 2 or number.first or not 1 <= int(number.text) <= 20:
            return 0
        if n + 1 < len(tokens) and tokens[n + 1].start == number.end and tokens[n + 1].kind != "p":
            return 0  # "TO F2L"
        glued = number.start == tokens[n - 1].end
        assigned = tokens[i - 1].key in _BED_ASSIGNED or (tokens[i - 1].key in ("on", "in")
                                                           and tokens[i - 2].key in _BED_ASSIGNED)
        moved = (tokens[i - 1].key in ("to", "from") and tokens[i - 2].key in MOVES | {"tx"}) or assigned
        if self._clinical_center(tokens, i, n):
            return n
        if glued and tok.key in _BARE_WARD_LETTERS and n + 1 < len(tokens) and not tokens[n + 1].first \
                and tokens[n + 1].key in _WARD_STAFF:
            return n  # "PER F6 RN", "cc7 charge nurse aware": the ward's own staff
        if not moved:
            # No move before: only a code run together, of letters no vertebra, lead, lab or dose is written with,
            # after "on", "to", "at" or "from": "SHE IS ON F7 POD 1", "HOPEFULLY TO CC7 LATER"
            bare = glued and tokens[i - 1].key in ("on", "to", "at", "from") and tok.key in _BARE_WARD_LETTERS \
                and tokens[i - 2].key not in CHANGE_BEFORE_TO \
                and not any(t.key in _VISAS for t in tokens[n + 1:n + 4])  # not "INCREASED TO M3", "ON J-1 VISA"
            return n if bare else 0
        after = tokens[n + 1].key if n + 1 < len(tokens) and not tokens[n + 1].first else ""
        if glued and not self.words.is_shorthand(tok.key + number.text) \
                and (tok.key not in self.rules.words("units") or tok.key in _BARE_WARD_LETTERS):
            return n  # "GO TO CC7 ON TELE": "cc" is a unit too, but not run into a floor's number after a move
        return n if after in WARD_AFTER or after in _AFTER_A_WARD_CODE else 0

    def _clinical_center(self, tokens: list[Token], i: int, n: int) -> bool:
        """Whether "cc" at i and its floor's number at n are the ward, spaced from it after a word ("PLAN WAS CC 11
        OVERNIGHT", "ORDERS WRITTEN FOR CC 7", "WAS IN CC 7 BRIEFLY"): a volume is written after its count ("500CC
        5% ALBUMIN"), never after a word, and a count after it is a dose, a percentage or a rate."""
        before = tokens[i - 1]
        if tokens[i].key != "cc" or before.kind != "w" or before.key in self.rules.words("units") \
                or before.key in CHANGE_BEFORE_TO or tokens[n].start == tokens[n - 1].end:
            return False
        after = tokens[n + 1] if n + 1 < len(tokens) and not tokens[n + 1].first else None
        return after is None or ((after.text not in ("%", "/", "-", ".") or after.start > tokens[n].end) \
            and after.key not in _UNITS_AFTER_A_COUNT and after.key not in self.rules.words("units"))

    def _ward_before_kind(self, tokens: list[Token]) -> list[Span]:
        """A ward no list holds, named by a surname or a place and its number, that the words after it say is a ward:
        "THEN LOWELL 9 NEURO STEP DOWN", "vs the sheehan 3 medical floor", "FARRAGUT 11 (GI/LIVER FLOOR)". A word no
        list knows needs "the" before it or a service between its number and the kind ("NOVOLOG 4 UNIT" is a dose)."""
        spans: list[Span] = []
        for h in where(tokens, WARD_KINDS_IN_BRACKETS):
            head = tokens[h]
            if head.first or (head.key == "step" and not self._down_after(tokens, h)):
                continue
            k, between, bracket = h - 1, 0, False
            while k > 1 and between < 3 and not tokens[k].first and (
                    tokens[k].text in "/-" or (tokens[k].kind == "w" and self.tier(tokens[k]) == Ambiguity.CLINICAL)):
                k, between = k - 1, between + (tokens[k].kind == "w")
            if k > 1 and tokens[k].text == "(" and not tokens[k].first:
                k, bracket = k - 1, True
            if head.key not in WARD_KINDS and not bracket:
                continue
            number, word = tokens[k], tokens[k - 1]
            if number.kind != "d" or len(number.text) > 2 or not 1 <= int(number.text) <= 20 or number.first \
                    or number.start - word.end != 1 or word.kind != "w" or len(word.key) < 4 \
                    or not word.text.isalpha() or (word.cased and not word.text[0].isupper()):
                continue
            if word.key in self.rules.words("units") or word.key in self.rules.words("facility_generic") \
                    or self.words.is_shorthand(word.key) or word.key in _DIRECTIONS \
                    or self.tier(word) == Ambiguity.CLINICAL:
                continue
            named = self.words.is_name(word.key) or word.key in self.words.cities
            the = k >= 2 and not word.first and tokens[k - 2].key == "the"
            if named or ((the or between or bracket) and self._unknown(word, Slips.NONE)):
                spans.append(Span(word.start, number.end, PhiType.HOSPITAL))
        return spans

    @staticmethod
    def _down_after(tokens: list[Token], h: int) -> bool:
        """Whether "down" follows "step" at h, with or without a hyphen ("STEP DOWN", "step-down")."""
        k = h + 1 + (h + 1 < len(tokens) and tokens[h + 1].text == "-")
        return k < len(tokens) and tokens[k].key == "down" and not tokens[k].first

    def _listed_wards(self, tokens: list[Token]) -> list[Span]:
        """Wards the hospital's list names (ward_names.txt) beside their number, with or without a cue: "DONOR IS ON
        WHITE 12", "farr 2 aware", "7 FELDBERG CALLED". Number first only when the word is nothing but a name or a
        place cue stands before the number ("2 WHITE CELLS" is a count)."""
        wards = self.words.ward_names
        spans: list[Span] = []
        if not wards:
            return spans
        for i in where(tokens, wards | _SHORT_WARDS):
            tok = tokens[i]
            if tok.kind != "w" or (tok.cased and not tok.text[0].isupper()):
                continue
            if tok.key in _SHORT_WARDS:
                if self._short_ward(tokens, i):
                    spans.append(Span(tok.start, tokens[i + 1].end, PhiType.HOSPITAL))
                continue
            if self._ward_number_beside(tokens, i, i + 1):
                spans.append(Span(tok.start, tokens[i + 1].end, PhiType.HOSPITAL))
            elif self._ward_number_hyphened(tokens, i) and i and not tok.first \
                    and tokens[i - 1].key in ("to", "from", "frm", "fr", "at") \
                    and not (i > 1 and tokens[i - 2].key in CHANGE_BEFORE_TO):
                spans.append(Span(tok.start, tokens[i + 2].end, PhiType.HOSPITAL))  # "back to farr-7", not "COX-2"
            elif self._ward_number_beside(tokens, i, i - 1) and (
                    self.tier(tok) == Ambiguity.NAME_ONLY
                    or (i >= 2 and not tokens[i - 1].first and tokens[i - 2].key in _CUES_BEFORE_A_WARD_NUMBER)):
                spans.append(Span(tokens[i - 1].start, tok.end, PhiType.HOSPITAL))
        return spans

    @staticmethod
    def _short_ward(tokens: list[Token], i: int) -> bool:
        """Whether the short form of a listed ward at i ("far" for Farr, "reis" for Reisman) is the ward: after a move's
        "to", "from", "on" or "at" and before its floor's number, spaced or run together ("to far 6", "transfer to
        far6"), with nothing after the number ("SO FAR 6 STOOLS" has no cue; "far 6 days" is a count)."""
        if i == 0 or tokens[i].first or tokens[i - 1].key not in _CUES_BEFORE_A_WARD_NUMBER - {"("} \
                or (i > 1 and tokens[i - 2].key in CHANGE_BEFORE_TO) or i + 1 >= len(tokens):
            return False
        num = tokens[i + 1]
        if num.kind != "d" or num.first or len(num.text) > 2 or not 1 <= int(num.text) <= 20 \
                or num.start - tokens[i].end > 1:
            return False
        after = tokens[i + 2] if i + 2 < len(tokens) and not tokens[i + 2].first else None
        return after is None or (after.start > num.end and after.key not in _UNITS_AFTER_A_COUNT)

    @staticmethod
    def _ward_number_hyphened(tokens: list[Token], i: int) -> bool:
        """Whether a hyphen and a floor number (1-20) are joined to the ward's word at i ("farr-7"), with nothing
        joined after the number ("GRAY-3/4" is a fraction)."""
        if i + 2 >= len(tokens) or tokens[i + 1].text != "-" or tokens[i + 2].kind != "d" \
                or tokens[i + 1].start != tokens[i].end or tokens[i + 2].start != tokens[i + 1].end \
                or len(tokens[i + 2].text) > 2 or not 1 <= int(tokens[i + 2].text) <= 20:
            return False
        return i + 3 >= len(tokens) or tokens[i + 3].start > tokens[i + 2].end

    @staticmethod
    def _ward_number_beside(tokens: list[Token], i: int, j: int) -> bool:
        """Whether token j, beside the ward's word at i on its line, is a floor or unit number (1-20) and not a
        count, dose, grade or fraction ("WANG 3 MG", "WHITE 2+", "GRAY 3/4", "x2 white")."""
        if not 0 <= j < len(tokens) or tokens[max(i, j)].first:
            return False
        num = tokens[j]
        if j > i and num.kind == "w" and num.key in _NUMBER_WORDS and num.start - tokens[i].end == 1:
            return True  # "back to farr eleven", "NOT READY FOR LUNDER SEVEN"
        if num.kind != "d" or len(num.text) > 2 or not 1 <= int(num.text) <= 20 \
                or (num.start - tokens[i].end if j > i else tokens[i].start - num.end) != 1:
            return False
        if j > i:
            after = tokens[j + 1] if j + 1 < len(tokens) and not tokens[j + 1].first else None
            decimal = after is not None and after.text == "." and j + 2 < len(tokens) \
                and tokens[j + 2].kind == "d" and tokens[j + 2].start == after.end
            return after is None or not ((after.start == num.end and (after.text in "+/%-x" or decimal))
                                         or after.key in _UNITS_AFTER_A_COUNT)  # "LUNDER 7." ends a sentence
        before = tokens[j - 1] if j and not num.first else None
        return before is None or not ((before.end == num.start and before.text != "(") or before.kind == "d"
                                      or before.text in "x#")  # "(11 REISMAN)", not "x2 white"
