"""Street rules: a street with its house number ("221B Baker Street", "12 ELM ST APT 4, SPRINGFIELD"), a street named
by a capitalised word and its suffix ("on Maple Avenue"), and without case a street named after "on", "at" or another
street ("FOUND DOWN ON WASHINGTON ST", "AT CENTRE ST AND SOUTH ST"); and the place-word tests the town and facility
rules (places.py) share."""

from __future__ import annotations

from medhelm_local.redact.cue_names import CueNameRules
from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries
from medhelm_local.redact.name_words import MEMO_LIMIT, mixed_abbreviation
from medhelm_local.redact.patterns import Rules
from medhelm_local.redact.place_words import HOUSE_LETTERS, NAMED_STREET_SUFFIXES, STREET_NAME_WORDS, WORD_SUFFIXES
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.types import PhiType, Span

# Streets numbered in words, which medical text writes too: "3911 FOURTH AVENUE".
_ORDINAL_WORDS = frozenset({"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                            "tenth", "eleventh", "twelfth"})


class StreetRules(CueNameRules):
    """Streets, and whether a word may belong to a place's name."""

    def __init__(self, rules: Rules, words: Dictionaries) -> None:
        super().__init__(rules, words)
        self._place_word_memo: dict[tuple[str, bool], bool] = {}

    def _place_word(self, tok: Token) -> bool:
        """A word that may belong to a street, city or facility name."""
        memo = self._place_word_memo
        key = (tok.text, tok.cased)  # all the answer reads: a token's kind and key follow from its text
        found = memo.get(key)
        if found is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[key] = self._place_word_of(tok)
        return found

    def _place_word_of(self, tok: Token) -> bool:
        if tok.kind != "w" or tok.key in STOPWORDS or mixed_abbreviation(tok.text):
            return False
        # "sq" is a unit ("sq cm") and a square ("maverick sq"): a place word, as only a listed place takes it on
        return tok.text[0].isupper() if tok.cased else (tok.key not in self._units or tok.key == "sq")

    def _distinctive(self, tok: Token) -> bool:
        """A word that names something: a known name or city, or a word that is not common English (not a slip of
        a function word: "TA DAVITA" is "at DaVita", "form feldberg 7" "from" it)."""
        if self.swapped_slip(tok, words_too=True):
            return False
        return self.words.is_name(tok.key) or tok.key in self.words.cities or (
            self.tier(tok) == Ambiguity.NAME_ONLY)

    def _streets(self, tokens: list[Token]) -> list[Span]:
        """"221B Baker Street", "12 ELM ST APT 4, SPRINGFIELD", and in mixed case "on Maple Avenue"."""
        suffixes, spans = self.rules.words("street_suffixes"), []
        for i, tok in enumerate(tokens):
            if tok.kind == "w" and tok.key in suffixes and tok.cased and tok.text[0].isupper() and len(tok.key) > 3:
                j = i
                while j > 0 and i - j < 3 and self._place_word(tokens[j - 1]) and tokens[j - 1].key not in suffixes:
                    j -= 1
                if j < i and any(self._distinctive(t) for t in tokens[j:i]):
                    spans.append(Span(tokens[j].start, tok.end, PhiType.STREET))
            elif tok.kind == "w" and tok.key in NAMED_STREET_SUFFIXES and not tok.cased and i >= 2:
                spans += self._streetafter_cue(tokens, i)
            if tok.kind == "d" and len(tok.text) <= 6 and not (i and tokens[i - 1].end == tok.start):
                spans += self._numbered_street(tokens, i)
        return spans

    def _streetafter_cue(self, tokens: list[Token], i: int) -> list[Span]:
        """"FOUND DOWN ON WASHINGTON ST", "stays at pine st inn": on a line without case, a street named without
        its number after "on", "at", "off", "near" or another street and "and": one or two words no clinical list
        explains (or a word streets are named with), then the suffix."""
        nxt = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].first else None
        if nxt is not None and (nxt.kind == "d" or (nxt.key in self.rules.words("units") and nxt.key != "in")):
            return []  # "HR ST 110S": sinus tachycardia and a rate; but "ON CEDAR ST IN SOMERVILLE"
        for j in (i - 1, i - 2):
            cue = tokens[j - 1] if j >= 1 and not tokens[j].first else None
            words = tokens[j:i]
            crossing = cue is not None and cue.key in ("and", "&") and j >= 2 \
                and tokens[j - 2].key in NAMED_STREET_SUFFIXES  # "AT CENTRE ST AND SOUTH ST"
            if cue is None or (cue.key not in ("on", "at", "off", "near") and not crossing) or any(
                    t.kind != "w" or t.first or len(t.key) < 3 or t.key in STOPWORDS
                    or (self.tier(t) == Ambiguity.CLINICAL and t.key not in STREET_NAME_WORDS)
                    or self.words.is_shorthand(t.key) or t.key in self.rules.words("units") for t in words):
                continue
            return [Span(words[0].start, tokens[i].end, PhiType.STREET)]
        return []

    def _numbered_street(self, tokens: list[Token], i: int) -> list[Span]:
        """A street from the house number at token i, with its unit and the town after it."""
        tok, suffixes, units = tokens[i], self.rules.words("street_suffixes"), self.rules.words("street_units")
        if tok.first and not tok.cased and len(tok.text) == 4 and int(tok.text[:2]) < 24 and int(tok.text[2:]) < 60:
            return []  # "0345 PAGED DR. SMITH": a nursing-note time, not a house number
        if tok.text[0] == "0":
            return []  # "SINCE 0500 REPEAT CT": no house number starts with a zero
        j, words, ordinal = i + 1, 0, False
        if j < len(tokens) and tokens[j].kind == "w" and tokens[j].start == tok.end:
            if tokens[j].key not in HOUSE_LETTERS:
                return []  # "350cc", "24h": a measure, not "221B" or "5th"
            j += 1
        distinct = False
        while j < len(tokens) and words < 4:
            t = tokens[j]
            if t.kind == "w" and t.key in suffixes and words:
                break
            if t.kind == "d" and j + 1 < len(tokens) and tokens[j + 1].key in ("st", "nd", "rd", "th"):
                words, j, ordinal = words + 1, j + 2, True
            elif self._place_word(t):
                words, j, distinct = words + 1, j + 1, distinct or self._distinctive(t)
            elif t.text == "." and words and len(tokens[j - 1].text) <= 2:
                j += 1
            else:
                break
        if not words or j >= len(tokens) or tokens[j].key not in suffixes or tokens[j].kind != "w":
            return []
        suffix, after = tokens[j], tokens[j + 1] if j + 1 < len(tokens) else None
        if suffix.cased and not suffix.text[0].isupper():
            return []
        if suffix.key in self._titles and after is not None and after.text == "." and j + 2 < len(tokens) \
                and self.name_like(tokens[j + 2], 0):
            return []  # "... PAGED DR. SMITH"
        if not suffix.cased:
            listed = " ".join(t.key for t in tokens[i + 1:j + 1]) in self.words.local_places  # "77 MASS AVE"
            named = [t for k, t in enumerate(tokens[i + 1:j], i + 1) if t.kind == "w" and t.key not in STREET_NAME_WORDS
                     and t.key not in _ORDINAL_WORDS
                     and not (tokens[k - 1].kind == "d" and t.key in ("st", "nd", "rd", "th"))]  # "73TH", "2ND"
            if not listed and any(self.tier(t, Slips.NONE) == Ambiguity.CLINICAL or self.words.is_shorthand(t.key)
                                  or self.swapped_slip(t) for t in named):
                return []  # "12 LEAD ST ONLY", "AT 1800 MED PASS.", "SECTION 12 NI PLACE": jargon, not a street's name
            cue = i > 0 and tokens[i - 1].key in self.rules.words("place_cues")
            boundary = after is None or after.text in ",#" or after.key in units or after.first
            unit_after = after is not None and after.key in units and not after.first
            if not (distinct or ordinal or cue or boundary or len(suffix.key) > 4) \
                    or (len(tok.text) < 2 and not (cue or unit_after)):
                return []  # a one-digit house number only after "at" or before an apartment ("9 cottage st apt 2")
            if suffix.key in WORD_SUFFIXES and not (cue or boundary):
                return []  # "REPLETED 20 PO. TOLERATED WALK TO", "HEAD CT NEG": a common word, not a street's end
        end = j
        k = j + 1 + (j + 1 < len(tokens) and tokens[j + 1].text in ".,")
        if k < len(tokens) and (tokens[k].key in units or tokens[k].text == "#"):
            k += 1
            while k < len(tokens) and tokens[k].text in ".#:" and k - j < 5:
                k += 1
            if k < len(tokens) and tokens[k].kind in "dw" and len(tokens[k].text) <= 6:
                end = k + (k + 1 < len(tokens) and tokens[k + 1].start == tokens[k].end
                           and tokens[k + 1].kind in "dw" and len(tokens[k + 1].text) <= 2)  # 12B
        spans = [Span(tok.start, tokens[end].end, PhiType.STREET)]
        k = end + 1 + (end + 1 < len(tokens) and tokens[end + 1].text == ".")
        if k + 1 < len(tokens) and tokens[k].text == "," and self._place_word(tokens[k + 1]) \
                and (tokens[k + 1].cased or self._distinctive(tokens[k + 1])):  # "41 HANOVER ST, HOTEL": no town
            town = k + 1
            while town + 1 < len(tokens) and town - k < 3 and self._place_word(tokens[town + 1]) \
                    and tokens[town + 1].start - tokens[town].end <= 1:
                town += 1
            if tokens[k + 1].key not in self.rules.words("states") or town > k + 1:
                spans.append(Span(tokens[k + 1].start, tokens[town].end, PhiType.CITY))
        return spans
