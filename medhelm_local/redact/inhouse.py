"""Rules for how clinicians write places and people in-house: hospital abbreviations in running text
("TRANSFERRED FROM KMC", "came into BVH ER"), named wards with a number ("to Eastwing 4", "ON BRADLEY 3"),
saints' names of hospitals in any case ("seen at st agnes"), and initials blocks that sign a note
("ABT:smith", "KLM/jones/ortiz"). Each needs a cue, and the clinical vocabulary decides what is shorthand.
"""

from __future__ import annotations

import re

from medhelm_local.redact.addresses import AddressRules
from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries
from medhelm_local.redact.name_words import MEMO_LIMIT, WEEKDAYS
from medhelm_local.redact.patterns import Rules
from medhelm_local.redact.place_words import CHANGE_BEFORE_TO, PLACE_BEFORE, UNIT_AFTER, WARD_AFTER, changed_from
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.types import PhiType, Span

# "ON IABP", "OFF NEO", "SWITCHED TO CVVHD": a device or a drug, not a hospital, after these.
_NOT_A_MOVE = frozenset({"on", "off"})
# Cues that a named word with a number is a ward even when the word is also common ("TRANSFERRED TO WHITE 9",
# "DISPO: FELDMAN 6", "CALLED OUT TO ..."); and what follows a ward ("... 4 WHEN BED AVAILABLE").
_WARD_CUES = frozenset({"transfer", "transferred", "xfer", "xferred", "xfered", "dispo", "callout", "moved", "bed",
                        "floor", "back", "return", "returned", "go", "going", "sent", "send", "report", "admit",
                        "admitted", "accepted"})
# Rooms and parts of a building are numbered too, and counts: "TO ROOM 12", "FLOOR 4", "BAY 3", "(DOSE 3 TODAY)".
_SPACES = frozenset({"floor", "room", "rm", "bed", "bay", "pod", "unit", "suite", "level", "wing", "tower", "building",
                     "bldg", "station", "ward", "side", "module", "area", "hall", "pavilion", "stretcher", "chair",
                     "cubicle", "door", "step", "stage", "day", "night", "shift", "page", "line", "lumen", "port",
                     "dose", "cycle", "round", "week", "session", "trial", "fraction", "grade", "section", "score"})
# Words before "POD" and a number that make it a post-operative day: "On POD 7", "now POD 3", "until POD 10".
_DAY_BEFORE = frozenset({"on", "is", "now", "of", "by", "until", "till", "since", "from", "through", "thru", "after",
                         "before", "at"})
_SAINTS = frozenset({"st", "saint", "ste", "sta", "san", "santa"})
# Short slips of the places a patient goes that read like a hospital's initials after "at" or "to": "coughed at hom.",
# "CLOSER TO HOM", "TRANSFR TO FLOR".
_SLIPS_OF_PLACES = frozenset({"hom", "hme", "flor", "floo", "rom", "romm"})
# Tubes and drains, which go "to" suction or a water seal, not to a place: "OGT TO LWCS", "CT TO WS".
_TUBES_TO = frozenset({"ct", "cts", "ogt", "ngt", "og", "ng", "jp", "jps", "tube", "tubes", "drain", "drains", "sump",
                       "peg", "pleurevac", "hemovac", "foley", "ett", "suction"})
# What comes from a vessel or an organ, not from a hospital: "SAH FROM ACOMM ANEURYSM", "bleed from pda territory".
_LESIONS = frozenset({"aneurysm", "aneurysms", "aneursym", "bleed", "bleeding", "territory", "infarct", "stroke",
                      "occlusion", "stenosis", "lesion", "lesions", "tumor", "fistula", "graft", "thrombosis",
                      "dissection", "avm", "ulcer", "ulcers", "collection"})
# Massachusetts' and the nation's agencies a case manager or a detective comes from: no place of care, no identifier
# ("CASE MANAGER FROM DMH", "referred to DSS", "FROM DCF").
_AGENCIES = frozenset({"dmh", "dss", "dcf", "dph", "dds", "dys", "dta", "ssa", "dmr", "cdc", "fda", "dea", "ins",
                       "ice", "neob", "opo"})
# Words after a saint's name that make it a thing, not a hospital: "St. Jude valve", "St. John's wort".
_SAINT_THINGS = frozenset({"wort", "mech", "mechanical", "valve", "valves", "medical", "prosthesis", "dance"})
# A dialysis or clinic schedule: weekdays, also cut to two letters ("TU/TH/SA", "M/W/F" has one-letter days: no block).
_WEEKDAYS = WEEKDAYS | {"mo", "tu", "we", "th", "fr", "sa", "su", "sun"}
_SIGNOFF = re.compile(
    r"(?im)(?:^|(?<=  )|(?<=\t)|(?<=by ))[ \t\[]{0,3}([a-z]{2,4})[:/]([a-z][a-z'.-]{1,20})"
    r"(?:[/:]([a-z][a-z'.-]{1,20}))?(?:[/:]([a-z][a-z'.-]{1,20}))?\]?"
    r"(?:,?[ \t]{1,3}(?:rn|md|np|pa|pa-c|lpn|rrt|do))?(?=[ \t]*$|[ \t]{2})")
_USER_ID = re.compile(r"(?<![\w@./-])([a-z]{5,14})\d{1,3}(?![\w@]|[./-]\w)", re.IGNORECASE)
# What every match of _USER_ID and _SIGNOFF holds, found by a search that jumps to the digit or the mark (those two
# are tried at every letter): most notes hold neither, and are spared them.
_USER_ID_GATE = re.compile(r"\d(?<=[a-z]{5}\d)", re.IGNORECASE)
_SIGNOFF_GATE = re.compile(r"[:/](?<=[a-z]{2}[:/])[a-z]", re.IGNORECASE)
_BRACKETED = re.compile(r"(?i)\[([a-z]{2,4})[:/]([a-z]{2,4})\]")


class InHouseRules(AddressRules):
    """Hospital abbreviations, numbered wards, saints' hospitals and initials blocks."""

    def __init__(self, rules: Rules, words: Dictionaries) -> None:
        super().__init__(rules, words)
        self._abbreviation_memo: dict[tuple[str, bool], bool] = {}

    def _inhouse(self, text: str, tokens: list[Token]) -> list[Span]:
        spans = []
        memo = self._abbreviation_memo  # most words are known not to be one: no call for them
        for i, tok in enumerate(tokens):
            if tok.kind != "w":
                continue
            if tok.key in _SAINTS:
                spans += self._saint(tokens, i)
            elif i + 1 < len(tokens) and tokens[i + 1].kind == "d" and not changed_from(tokens, i) and (
                    self._ward_word(tok) or self._ward_word(tok, self._ward_cue(tokens, i))):
                spans += self._ward(text, tokens, i)
            if 2 <= len(tok.text) <= 5 and memo.get((tok.text, tok.cased)) is not False:
                spans += self._abbreviation(tokens, i)
        return spans + self._signoffs(text) + self._user_ids(text)

    def _unknown(self, tok: Token, slips: Slips = Slips.ANY) -> bool:
        """A word no vocabulary explains (or an eponym, which names hospitals too): not English, clinical, shorthand,
        a state, a unit or a cue word (nor, from `slips` letters on, a slip of the keyboard from one: see tier)."""
        key = tok.key
        eponym = key in self.words.eponyms and key not in self.words.clinical_terms  # "AT LAHEY": clamp and clinic
        return ((eponym or self.tier(tok, slips) == Ambiguity.NAME_ONLY) and not self.words.is_shorthand(key)
                and key not in self.non_names and key not in self._units and key not in self._credentials)

    def _abbreviation(self, tokens: list[Token], i: int) -> list[Span]:
        """"TRANSFERRED FROM KMC FOR CATH", "came into BVH ER": capitals no vocabulary knows, after a place cue
        or before a unit word (in lower-case text only before a unit word: "bwh er")."""
        tok = tokens[i]
        if not self._abbreviation_word(tok):
            return []
        before = tokens[i - 1].key if i and not tok.first else ""
        after = tokens[i + 1].key if i + 1 < len(tokens) and not tokens[i + 1].first else ""
        two_before = tokens[i - 2].key if i > 1 and not tokens[i - 1].first else ""
        # what a drug or a setting was changed from or to is no place: "SWITCHED FROM PACERONE TO ZOCOR"
        moved = before in PLACE_BEFORE and before not in _NOT_A_MOVE and not (
            before == "to" and (two_before in CHANGE_BEFORE_TO or changed_from(tokens, i - 2))) \
            and not changed_from(tokens, i) \
            and not (before == "@" and tokens[i - 1].end < tok.start)  # "@TUFTS", not "@ MBTA STATION"
        if moved and after not in UNIT_AFTER and (
                before == "via"  # "NIMODIPINE VIA DHT", "HD VIA AVF": a tube or an access; "via BVH ER" has its unit
                or (before == "to" and two_before in _TUBES_TO)  # "OGT TO LWCS", "CT TO WS": a tube to its suction
                or after in _LESIONS):  # "FROM ACOMM ANEURYSM": where in the body
            moved = False
        cue = ((moved and (tok.text.isupper() or (before in ("at", "from", "frm", "@") and len(tok.key) >= 3
                                                  and tok.key not in self.words.everyday)))
               or after in UNIT_AFTER)
        return [Span(tok.start, tok.end, PhiType.HOSPITAL)] if cue else []

    def _abbreviation_word(self, tok: Token) -> bool:
        """Capitals (or, without case, lower case) that no vocabulary, town or first name explains; remembered by
        the word's text and its line's case, all that the answer reads."""
        memo = self._abbreviation_memo
        key = (tok.text, tok.cased)
        found = memo.get(key)
        if found is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            text = tok.text
            found = memo[key] = ((text.isalpha() and text.isupper()) or (not tok.cased and text.islower())) \
                and tok.key not in _SLIPS_OF_PLACES and tok.key not in _AGENCIES \
                and self._unknown(tok, Slips.ANY if len(text) > 4 else Slips.NONE) \
                and tok.key not in self.words.cities and tok.key not in self.words.first_names  # short: no slip
        return found

    def _ward_cue(self, tokens: list[Token], i: int) -> bool:
        """A strong sign that token i starts a ward: a transfer word in the three words before, or "when bed" after."""
        before = [t.key for t in tokens[max(0, i - 3):i] if not tokens[i].first]
        j = i + 2
        after = tokens[j].key if j < len(tokens) and not tokens[j].first else ""
        return any(k in _WARD_CUES for k in before) or after in WARD_AFTER

    def _ward_word(self, tok: Token, strong_cue: bool = False) -> bool:
        """A word that can name a ward: capitalised (any, without case), not clinical, a unit or shorthand; with a
        strong cue a surname that is also a common word ("TRANSFERRED TO WHITE 9")."""
        if len(tok.key) < 3 or (tok.cased and not tok.text[0].isupper()) or tok.key in PLACE_BEFORE \
                or tok.key in _WARD_CUES:
            return False  # "FROM 12 WEST": the cue before a number, not a ward
        if tok.key in self._facility_words:
            return True  # "Clinic 6"
        if strong_cue and self.words.is_name(tok.key) and tok.key not in self.words.abbreviations \
                and tok.key not in _SPACES and tok.key not in STOPWORDS \
                and tok.key not in self.words.short_forms and tok.key not in self._units:
            return True  # "TRANSFERRED TO WHITE 9": a building named after a person
        return (self.tier(tok, Slips.NONE) != Ambiguity.CLINICAL and not self.words.is_shorthand(tok.key)
                and tok.key not in self._never_names and tok.key not in self._units
                and tok.key not in self._street_suffixes and tok.key not in STOPWORDS)

    def _ward(self, text: str, tokens: list[Token], i: int) -> list[Span]:
        """"transfer to Eastwing 4", "ON BRADLEY 3 WHEN BED AVAIL", "From: Phillips 5": a named ward."""
        number, tok = tokens[i + 1], tokens[i]
        glued = number.start == tok.end  # "to northwing3": a ward written as one word
        if not (glued or number.start - tok.end == 1) or not 1 <= len(number.text) <= 2 \
                or not 1 <= int(number.text) <= 30:
            return []
        if glued and (len(tok.key) < 5 or tok.cased or self.tier(tok, Slips.NONE) != Ambiguity.NAME_ONLY):
            return []  # "PRBC2", "Apt3": only an unknown word of five letters or more on a line without case
        after = text[number.end:number.end + 2]
        if (after[:1] in ".,/%:-x" and after[1:2].isalnum()) or after[:1].isalnum():
            return []  # "LEVO 0.15", "CPAP 5/5", "VT 450-500", "WANG 3x"
        nxt = tokens[i + 2] if i + 2 < len(tokens) and not tokens[i + 2].first else None
        if nxt is not None and nxt.key in self.rules.words("units") and nxt.key != "per":
            return []  # "WANG 3 MG"; but "TRANSFER TO REISMAN 7 PER DR": who decided, not a rate
        before = tokens[i - 1] if i and not tok.first else None
        if tok.key == "pod" and (before is None or before.key in _DAY_BEFORE):
            return []  # "On POD 7, extubated", "admitted on POD 15": the day after an operation, not a ward's pod
        cue = before is not None and (before.key in PLACE_BEFORE or (  # "From: Phillips 5", "DISPO: FELDMAN 6"
            before.text == ":" and i >= 2 and tokens[i - 2].key in PLACE_BEFORE | _WARD_CUES))
        if not (cue or self._ward_cue(tokens, i) or (nxt is not None and nxt.key in UNIT_AFTER)):
            return []
        return [Span(tok.start, number.end, PhiType.HOSPITAL)]

    def _saint(self, tokens: list[Token], i: int) -> list[Span]:
        """"seen at st agnes", "ST LUKES IN NEW BEDFORD", "St. Elizabeth's": a saint's hospital, after a place
        cue or written with its possessive."""
        j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1].text == ".")
        if j >= len(tokens) or tokens[j].kind != "w" or tokens[j].start - tokens[j - 1].end > 1 or tokens[j].first:
            return []  # "CAMBRIDGE ST.\nLINES:": a street's suffix ends its line, no saint's hospital
        name = tokens[j]
        if len(name.key) == 1 and name.text.isalpha() and j + 2 < len(tokens) and tokens[j + 1].text in "'’" \
                and tokens[j + 2].key == "s" and tokens[j + 1].start == name.end:
            return [Span(tokens[i].start, tokens[j + 2].end, PhiType.HOSPITAL)]  # "FROM ST. E'S": a saint by initial
        if (name.cased and not name.text[0].isupper()) or not (self.words.is_name(name.key) or self._unknown(name)
                                                               or name.key.rstrip("s") in self.words.first_names):
            return []
        end = j
        possessive = end + 2 < len(tokens) and tokens[end + 1].text in "'’" and tokens[end + 2].key == "s"
        if possessive:
            end += 2
        nxt = tokens[end + 1].key if end + 1 < len(tokens) else ""
        if nxt in _SAINT_THINGS or nxt in self.rules.words("eponym_followers"):
            return []
        cue = i and tokens[i - 1].key in PLACE_BEFORE | {"hospitalized", "admitted", "transferred"}
        if not (cue or possessive or name.key.endswith("s") or nxt in self.rules.words("facility_words")):
            return []
        return [Span(tokens[i].start, tokens[end].end, PhiType.HOSPITAL)]

    def _user_ids(self, text: str) -> list[Span]:
        """Log-in names next to a clinician's name: initials, a surname and a number ("anunes2", "JSMITH12")."""
        spans: list[Span] = []
        if not _USER_ID_GATE.search(text):
            return spans
        for m in _USER_ID.finditer(text):
            letters = m.group(1).lower()
            if any(letters[k:] in self.words.surnames and letters[k:] not in self.words.clinical for k in (1, 2)):
                spans.append(Span(m.start(), m.end(), PhiType.ID))
        return spans

    def _signoffs(self, text: str) -> list[Span]:
        """Initials blocks that end a note or a dictation: "ABT:smith", "KLM/jones/ortiz", "[ANP:dk]"."""
        spans = []
        signoffs = _SIGNOFF.finditer(text) if _SIGNOFF_GATE.search(text) else ()
        for m in [*signoffs, *_BRACKETED.finditer(text)]:
            parts = [k for k in range(1, (m.lastindex or 0) + 1) if m.group(k)]
            words = [m.group(k).lower().rstrip(".") for k in parts]  # "GUMS/HEMATURIA/MELENA." ends a sentence
            if all(self.words.is_shorthand(w) or w in self.words.clinical for w in words) \
                    or all(w in _WEEKDAYS for w in words):
                continue  # "PT/OT": two clinical words, not people; "TU/TH/SA": a dialysis schedule
            credentials = self.rules.words("credentials")
            spans += [Span(m.start(k), m.end(k), PhiType.NAME) for k in parts if m.group(k).lower() not in credentials]
        return spans
