"""Place rules: facilities and cities from cue words, case and the place dictionaries (streets.py reads streets)."""

from __future__ import annotations

from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries
from medhelm_local.redact.name_words import MEMO_LIMIT, SAINT_WORDS
from medhelm_local.redact.patterns import Rules
from medhelm_local.redact.place_words import (
    COMPASS,
    CONNECTORS,
    FOR_WHOM,
    NAMED_FACILITY_WORDS,
    NOT_A_TOWN,
    PRACTICE_WORDS,
    REGION_NAMES,
    REGION_WORDS,
    SIDE_WORDS,
    STATE_CODES_AFTER_A_TOWN,
    TOWN_SERVICES,
    after_cue,
    after_university_of,
    changed_from,
)
from medhelm_local.redact.slips import Slips, town_pair_slip, town_slip
from medhelm_local.redact.streets import StreetRules
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span

# Cues after which a word one slip from a town is the town: "lives alone in lowel", "drove from pittsfeild" (not "plan
# to resite", "at fenway park").
_TOWN_SLIP_CUES = frozenset({"in", "ni", "from", "frm", "fr", "near"})
_COMMA = frozenset({","})
# Cues before a town written with its state or country after a comma: "from bend, oregon", "LIVES IN CORK, IRELAND".
_TOWN_BEFORE_STATE_CUES = frozenset({"in", "from", "frm", "near", "of", "to"})


class PlaceRules(StreetRules):
    """The place half of the token rules."""

    def __init__(self, rules: Rules, words: Dictionaries) -> None:
        super().__init__(rules, words)
        self._city_firsts = frozenset(city.split(" ", 1)[0] for city in words.cities if " " in city)
        self._facility_any = rules.words("facility_generic") | rules.words("facility_words")

    def _facilities(self, tokens: list[Token]) -> list[Span]:
        """"St. Mary's Hospital", "MERCY MEDICAL CENTER", "Hospital of Springfield"."""
        generic, spans = self.rules.words("facility_generic"), []
        facility = self._facility_any  # "UNIVERSITY OF ...", "REGIONAL MEDICAL CENTER"
        for i in where(tokens, self._phrase_index):
            tok = tokens[i]
            cue = self.cue_at(tokens, i) if tok.kind == "w" else None
            if cue is None or cue[0] != "facility_words" or (tok.cased and not tok.text[0].isupper()):
                continue
            j, named = i, list[Token]()
            while j > 0 and len(named) < 5 and not tokens[j].first:  # a facility name stays on its line
                t = tokens[j - 1]
                if not t.cased and t.kind == "w" and self.tier(t) == Ambiguity.CLINICAL \
                        and t.key not in self.words.cities and t.key not in facility \
                        and not after_university_of(tokens, j - 1) and not (j == i and self._named_before(tokens, i)):
                    break  # "COPD EXACERBATION VIA MARLBORO HOSPITAL", "BEGIN CARDIAC REHAB": clinical words end it
                if self._place_word(t) or (t.key in ("st", "of", "the", "and") and named):
                    named.append(t)
                elif (t.text not in ".'’&-" and not (t.key == "s" and j > 1 and tokens[j - 2].text in "'’")) \
                        or (t.text == "." and not t.cased and j > 1 and len(tokens[j - 2].text) > 3):
                    break  # without case, a stop after a word ends a sentence ("lives in lynn. rehab screening"), not
                    # "ST. MARY'S"
                j -= 1
            before = len(named)  # the words read before the facility word; those after it follow below
            end, region = i + cue[1] - 1, 0
            after = self._name_after_facility(tokens, end + 1) if tok.cased and not tok.text.isupper() else end + 1
            if after > end + 1 and any(t.key not in generic and self._distinctive(t) for t in tokens[end + 1:after]):
                named, end = named + tokens[end + 1:after], after - 1  # "Hospital Universitario de La Princesa"
            elif not tok.cased and self._region_after_of(tokens, end):  # "CARDIOLOGY ASSOCIATES OF GREATER LOWELL"
                region = end = self._region_after_of(tokens, end)
            elif end + 2 < len(tokens) and (tokens[end + 1].key == "of" or (tokens[end + 1].key == "at" and named)) \
                    and self._place_word(tokens[end + 2]) \
                    and not (not tok.cased and tokens[end + 2].key in SIDE_WORDS):
                # "Hospital of Springfield"; not "went to rehab at home", nor "REHAB OF LEFT SIDE" (a region word with
                # a place after it was read above)
                named.append(tokens[end + 2])
                end += 2
                while end + 1 < len(tokens) and end - i < 6 and not tokens[end + 1].first \
                        and self._place_word(tokens[end + 1]) and self.tier(tokens[end + 1]) != Ambiguity.CLINICAL:
                    end += 1  # "HOSPITAL OF SOUTHERN NEW HAMPSHIRE"
            while j < i and (tokens[j].kind != "w" or tokens[j].key in ("the", "of", "and")):
                j += 1  # "at the Geriatric Clinic": the article is not the name
            university = any(t.key in ("university", "univ") for t in named) and any(t.key == "of" for t in named)
            # Before a specialty ("CENTRAL PULMONARY ARTERIES", "normal pulmonary vasculature") a clinical word that is
            # also a town's name does not make a practice's name on a line without case; after the facility word and
            # its "of" it does ("PULMONARY ASSOCIATES OF CENTRAL MASS", "HOSPITAL OF WESTERN MASSACHUSETTS").
            specialty = tok.key in generic and not tok.cased
            named_before = before > 0 and self._named_before(tokens, i)  # "VIBRA HOSPITAL"
            if university or region or named_before \
                    or any(t.key not in generic and t.key not in STOPWORDS and self._names_facility(t)
                           and not (specialty and k < before and self.tier(t) == Ambiguity.CLINICAL)
                           for k, t in enumerate(named)):
                # "from university of somewhere hospital": the form names it
                end = self._for_whom(tokens, end)  # "SHRINERS HOSPITAL FOR CHILDREN"
                spans.append(Span(tokens[j].start, tokens[end].end, PhiType.HOSPITAL))
        return spans + self._practice_of_region(tokens)

    def _practice_of_region(self, tokens: list[Token]) -> list[Span]:
        """"HEART CENTER OF GREATER BOSTON", "orthopedic specialists of greater worcester", "Heart Center of Greater
        Boston": a practice word that no facility word starts, named by the region after its "of", with up to two
        words before it (its kind, clinical words too, since the region names it); with case, every word but "of"
        capitalised."""
        spans = []
        for i in where(tokens, PRACTICE_WORDS):
            tok = tokens[i]
            if tok.first or i == 0 or tokens[i - 1].key in PRACTICE_WORDS:
                continue
            end = self._region_after_of(tokens, i - 1)
            if not end or (tok.cased and not all(t.text[:1].isupper() for t in tokens[i:end + 1] if t.key != "of")):
                continue
            j = i
            while j > 0 and i - j < 2 and not tokens[j].first and tokens[j - 1].kind == "w" \
                    and tokens[j].start - tokens[j - 1].end <= 2 and tokens[j - 1].key not in STOPWORDS \
                    and len(tokens[j - 1].key) >= 3 and not self.words.is_shorthand(tokens[j - 1].key) \
                    and not (tok.cased and not tokens[j - 1].text[:1].isupper()):
                j -= 1
            if j < i:  # a kind before it: "CENTER OF NEW ENGLAND" alone is no name
                spans.append(Span(tokens[j].start, tokens[end].end, PhiType.HOSPITAL))
        return spans

    @staticmethod
    def _for_whom(tokens: list[Token], end: int) -> int:
        """The last word of a named facility with whom it is for after it ("SHRINERS HOSPITAL FOR CHILDREN"), else
        `end`; only after a name already found, so "HOSPITAL FOR 3 DAYS" or "rehab for strengthening" is never read."""
        k = end + 1
        if k >= len(tokens) or tokens[k].key != "for" or tokens[k].first:
            return end
        for whom in FOR_WHOM:
            last = k + len(whom)
            if last < len(tokens) and all(tokens[k + 1 + n].key == w and not tokens[k + 1 + n].first
                                          and tokens[k + n + 1].start - tokens[k + n].end <= 2
                                          for n, w in enumerate(whom)):
                return last
        return end

    def _named_before(self, tokens: list[Token], i: int) -> bool:
        """Whether the word before facility word i names it on a line without case though a clinical list holds it:
        "VIBRA HOSPITAL", where "vibra" is only the first letters of "vibration" (a short form no one writes before
        "hospital"), unlike "CARDIAC REHAB" or "PULM REHAB", words clinical writing uses whole, or "COMMU HOSPITAL",
        the start of a word that names a kind of facility."""
        if i == 0 or tokens[i].first or tokens[i].key not in NAMED_FACILITY_WORDS:
            return False
        t, words = tokens[i - 1], self.words
        return (not t.cased and t.kind == "w" and len(t.key) >= 5 and tokens[i].start - t.end <= 2
                and t.key in words.short_forms and t.key not in words.clinical and t.key not in words.clinical_terms
                and t.key not in words.abbreviations and t.key not in words.everyday
                and not any(kind.startswith(t.key) for kind in self._facility_any))  # "commu", "psychi", "pedia"

    def _region_after_of(self, tokens: list[Token], end: int) -> int:
        """Index of the last word of a region after a facility word ending at token `end`, its practice words and
        "of" ("ASSOCIATES OF GREATER LOWELL", "CENTER OF NEW ENGLAND", "OF SOUTHERN NEW HAMPSHIRE", "OF WESTERN
        MASS"), or 0: a region word then a place, or a state or town of two words."""
        k = end + 1
        while k < len(tokens) and k - end <= 2 and tokens[k].key in PRACTICE_WORDS and not tokens[k].first:
            k += 1  # "NEUROLOGY CENTER OF"

        def word(m: int) -> str:
            ok = m < len(tokens) and tokens[m].kind == "w" and not tokens[m].first \
                and tokens[m].start - tokens[m - 1].end <= 2
            return tokens[m].key if ok else ""

        if k >= len(tokens) or tokens[k].key != "of" or not word(k + 1) or not word(k + 2):
            return 0
        states, cities = self.rules.words("states"), self.words.cities
        first, second, third = word(k + 1), word(k + 2), word(k + 3)
        if f"{first} {second}" in states or f"{first} {second}" in cities:
            return k + 2  # "OF NEW HAMPSHIRE"
        if first not in REGION_WORDS:
            return 0
        if third and (f"{second} {third}" in states or f"{second} {third}" in cities):
            return k + 3  # "OF SOUTHERN NEW HAMPSHIRE"
        place = tokens[k + 2]
        if second in states or second in REGION_NAMES or (
                len(second) >= 4 and (second in cities or self._distinctive(place))
                and self.tier(place) != Ambiguity.CLINICAL):
            return k + 2  # "OF GREATER LOWELL", "OF WESTERN MASS"
        return 0

    def _names_facility(self, tok: Token) -> bool:
        """A word that makes a facility name particular: distinctive, or on a line with case a capitalised
        word that is not clinical ("Seacoast Rheumatology", "Harbor View Cardiology")."""
        return self._distinctive(tok) or (tok.cased and tok.text[:1].isupper() and not tok.text.isupper()
                                          and self.tier(tok) != Ambiguity.CLINICAL)

    def _name_after_facility(self, tokens: list[Token], k: int) -> int:
        """Index past a name written after its facility word on a mixed-case line ("Hospital Dr. Peset"), or k."""
        j, end = k, k
        while j < len(tokens) and j - k < 8 and tokens[j].start - tokens[j - 1].end <= 2 and not tokens[j].first:
            t = tokens[j]
            if t.kind == "w" and (t.key in CONNECTORS or (t.text[0].isupper() and t.key not in STOPWORDS)):
                j += 1
                end = j if t.key not in CONNECTORS else end
            elif t.text == "." and len(tokens[j - 1].text) <= 4 and tokens[j - 1].kind == "w" and j > k:
                j += 1
            else:
                break
        return end

    def _cities(self, tokens: list[Token]) -> list[Span]:
        """Dictionary cities (with a cue when the word is also common), and "Anytown, MA" in mixed case."""
        states, cues, spans = self.rules.words("states"), self.rules.words("place_cues"), []
        credentials = self.rules.words("credentials")
        memo, place_word = self._place_word_memo, self._place_word
        place = [memo.get((t.text, t.cased)) for t in tokens]  # asked of a token up to four times below
        place = [known if known is not None else place_word(t) for known, t in zip(place, tokens, strict=True)]
        cities, firsts = self.words.cities, self._city_firsts
        state_near = [False] * len(tokens)  # a comma and a state within a town's run after the token
        for k in where(tokens, _COMMA):
            if k + 1 < len(tokens) and tokens[k + 1].key in states:
                state_near[max(0, k - 6):k] = [True] * (k - max(0, k - 6))
        for i, tok in enumerate(tokens):
            if not place[i] or (i and tokens[i - 1].kind == "w" and tokens[i - 1].key in SAINT_WORDS) \
                    or (i > 1 and tokens[i - 1].text == "(" and tokens[i - 2].key in self._eponyms.followers
                        and tokens[i - 2].key != "law"):
                continue  # "ST JUDE"; "incision (mercedes)": an eponym in brackets after what it names
            if not state_near[i] and tok.key not in cities and tok.key not in firsts \
                    and not (i and tokens[i - 1].key in _TOWN_SLIP_CUES) \
                    and not (len(tok.key) >= (4 if tok.cased else 5) and after_cue(tokens, i, cues)):
                continue  # each reading below needs one of these: most words of a note are spared building a run
            if self._eponyms.possessive_eponym(tokens, i):
                continue  # "ADENOCA IN BARRETT'S SEGMENT": the disease, not the town
            words, end = [tok], i + 1
            while end < len(tokens) and len(words) < 3:
                if place[end]:
                    words.append(tokens[end])
                    end += 1
                elif tokens[end].text == "-" and end + 1 < len(tokens) and place[end + 1] \
                        and tokens[end].start == tokens[end - 1].end and tokens[end + 1].start == tokens[end].end:
                    end += 1  # "PORT-AU-PRINCE", "wilkes-barre": a town's words joined by hyphens
                else:
                    break
            state_after = (end + 1 < len(tokens) and tokens[end].text == "," and tokens[end + 1].key in states
                           and tokens[end + 1].key not in credentials
                           and not (end + 2 < len(tokens) and tokens[end + 2].start == tokens[end + 1].end
                                    and tokens[end + 2].text in "'’/")  # "FOLEY, DC'D": a verb, not D.C.
                           and (tokens[end + 1].text.isupper() or tokens[end + 1].text[0].isupper()))
            zip_after = state_after and end + 2 < len(tokens) and tokens[end + 2].kind == "d" \
                and len(tokens[end + 2].text) == 5
            if ((state_after and tok.cased) or zip_after) and (i == 0 or tokens[i - 1].kind != "w"
                                                             or not place[i - 1]):
                spans.append(Span(tok.start, tokens[end - 1].end, PhiType.CITY))
                continue
            nxt = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].first else None
            slip_cue = not tok.cased and i and tokens[i - 1].key in _TOWN_SLIP_CUES and not tok.first \
                and not changed_from(tokens, i)  # "switched from yervoy": a drug no list holds, not a town's slip
            if slip_cue and nxt is not None \
                    and nxt.kind == "w" and f"{tok.key} {nxt.key}" not in self.words.cities \
                    and (self.tier(tok, Slips.NONE) == Ambiguity.NAME_ONLY
                         or self.tier(nxt, Slips.NONE) == Ambiguity.NAME_ONLY) \
                    and self._town_pair(tok.key, nxt.key):
                spans.append(Span(tok.start, nxt.end, PhiType.CITY))  # "visiting from new bedfrod", "in jamaca plain"
                continue
            if len(tok.key) >= (4 if tok.cased else 5) and after_cue(tokens, i, cues) \
                    and not self.words.is_name(tok.key) and tok.key not in states \
                    and self.tier(tok, Slips.CLINICAL) == Ambiguity.NAME_ONLY and self.not_eponym(tokens, i + 1):
                # "IN MENKES SYNDROME", "in stargardt disease": an eponym no list holds, not an unknown town
                last = words[-1] if tok.cased else tok  # "back from ashgrove", "grew up in Remniku": unknown places
                if tok.key in self._city_firsts:  # "lives in presque isle": a listed town whose first word no
                    for n in range(min(len(words), self.words.city_max_words), 1, -1):  # other list holds
                        if " ".join(t.key for t in words[:n]) in self.words.cities:
                            last = words[n - 1]
                            break
                spans.append(Span(tok.start, last.end, PhiType.CITY))
                continue
            if slip_cue and self.tier(tok, Slips.NONE) == Ambiguity.NAME_ONLY and self.not_eponym(tokens, i + 1) \
                    and self._town_slip(tok.key):
                spans.append(Span(tok.start, tok.end, PhiType.CITY))  # "lives alone in lowel", "from pittsfeild"
                continue
            # A town of several words is looked up only after a word that starts one (most words start none).
            longest = min(len(words), self.words.city_max_words) if tok.key in self._city_firsts else 1
            for n in range(longest, 0, -1):
                key = " ".join([t.key for t in words[:n]]) if n > 1 else tok.key
                # the state must follow these words, not a longer run ("ADVANCE TF SLOWLY, CT"); on a line without
                # case, after an English word only a state's whole name ("TIME, OK" is no Oklahoma town)
                state_here = state_after and i + n == end and (
                    tok.cased or len(tokens[end + 1].key) > 2 or self.tier(tok) == Ambiguity.NAME_ONLY or n > 1)
                if key in self.words.cities and self._city_ok(tokens, i, words[:n], state_here, cues):
                    compass = i and not tok.first and tokens[i - 1].key in COMPASS \
                        and tok.start - tokens[i - 1].end == 1  # "SOUTH WEYMOUTH", "east falmouth"
                    road = n > 1 and key in self.words.local_places \
                        and words[n - 1].key in self.rules.words("street_suffixes")  # "MASS AVE", "blue hill ave"
                    spans.append(Span(tokens[i - 1].start if compass else tok.start, words[n - 1].end,
                                      PhiType.STREET if road else PhiType.CITY))
                    break
        return spans + self._town_before_its_state(tokens)

    def _town_slip(self, word: str) -> bool:
        """town_slip, remembered: each candidate costs a few hundred dictionary lookups."""
        memo: dict[str, bool] = self.__dict__.setdefault("_town_slip_memo", {})
        found = memo.get(word)
        if found is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[word] = town_slip(self.words, word)
        return found

    def _town_pair(self, first: str, second: str) -> bool:
        """town_pair_slip, remembered: the same pair of words recurs in a note and across a batch."""
        memo: dict[tuple[str, str], bool] = self.__dict__.setdefault("_town_pair_memo", {})
        found = memo.get((first, second))
        if found is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[(first, second)] = town_pair_slip(self.words, first, second)
        return found

    def _town_before_its_state(self, tokens: list[Token]) -> list[Span]:
        """One or two words between a place cue and a comma before a state's or a country's whole name, on a line
        without case: a town no list holds or that is a word too ("from bend, oregon", "FROM CORK, IRELAND",
        "from montego bay, jamaica")."""
        spans, cues = [], _TOWN_BEFORE_STATE_CUES
        states, countries = self.rules.words("states"), self.words.country_words
        for k, tok in enumerate(tokens):
            if tok.text != "," or tok.first or k < 2 or k + 1 >= len(tokens) or tokens[k + 1].first:
                continue
            after = tokens[k + 1]
            if after.cased or after.kind != "w" or len(after.key) < 4 \
                    or not (after.key in states or after.key in countries):
                continue
            for n in (1, 2):
                start = k - n
                if start < 1 or tokens[start - 1].key not in cues or tokens[start].first:
                    continue
                words = tokens[start:k]
                if all(w.kind == "w" and not w.cased and w.key not in STOPWORDS and len(w.key) >= 3
                       and w.key not in states for w in words):
                    spans.append(Span(words[0].start, words[-1].end, PhiType.CITY))
                    break
        return spans

    def _city_ok(self, tokens: list[Token], i: int, words: list[Token], state_after: bool,
                 cues: frozenset[str]) -> bool:
        """Whether a dictionary city match is a place here, given case, ambiguity and cues."""
        if not self.not_eponym(tokens, i + len(words)) or " ".join(t.key for t in words) in self.rules.words("states"):
            return False
        before = tokens[i - 1].key if i and tokens[i - 1].kind == "w" else ""
        two_before = f"{tokens[i - 2].key} {before}" if i > 1 else before
        after = tokens[i + len(words)] if i + len(words) < len(tokens) else None
        if after is not None and not after.first and after.key in TOWN_SERVICES and len(words[0].key) >= 4:
            return True  # "officer from concord pd", "BROUGHT IN BY NEWTON FIRE": a town's police or fire service
        if two_before == "is in" and not (self._ends_phrase(tokens, i + len(words))
                                          and " ".join(t.key for t in words) not in NOT_A_TOWN):
            return False  # "HOME IS IN SANDWICH.", not "pt is in union with" nor "IS IN BED."
        cue = before in cues or two_before in cues
        tiers = [self.tier(t) for t in words]
        if len(words) > 1:
            local = " ".join(t.key for t in words) in self.words.local_places  # "NEAR CASTLE ISLAND ~0500"
            return words[0].cased or min(tiers) == Ambiguity.NAME_ONLY or cue or local
        if len(words[0].key) < 4:
            return False
        if tiers[0] == Ambiguity.NAME_ONLY:
            return True
        if words[0].cased and not words[0].text.isupper():
            return state_after or (cue and tiers[0] == Ambiguity.EVERYDAY) or (two_before in cues and " " in two_before)
        if tiers[0] == Ambiguity.EVERYDAY and before in ("from", "frm", "in", "near") \
                and self._ends_phrase(tokens, i + 1):
            return True  # "SON DRIVING FROM CANTON.", "sister in auburn called": a town closing its phrase
        return state_after or (" " in two_before and two_before in cues and (
            tiers[0] == Ambiguity.EVERYDAY or (self._ends_phrase(tokens, i + 1) and words[0].key not in NOT_A_TOWN)))
        # "DTR LIVES IN SANDWICH.", not "CALLED FROM HOME, FEELING BETTER"

    @staticmethod
    def _ends_phrase(tokens: list[Token], k: int) -> bool:
        """Whether token k ends a phrase: a line end, a stop or comma, or a word that goes on about a person."""
        return k >= len(tokens) or tokens[k].first or tokens[k].text in ".,;()@~-" or tokens[k].kind == "d" \
            or tokens[k].key in STATE_CODES_AFTER_A_TOWN or tokens[k].key in (
            "called", "calling", "asking", "asked", "visiting", "will", "is", "area", "and", "at", "today", "tonight",
            "tomorrow", "when", "for", "until", "since", "with", "w", "near")
