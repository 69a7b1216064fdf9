"""Address rules that need the first pass: what follows an address cue, streets written name-first or
number-last, the short lines of an address block, postcodes beside streets, and times after dates."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.place_words import CONNECTORS
from medhelm_local.redact.places import PlaceRules
from medhelm_local.redact.tokens import STOPWORDS, Token, where
from medhelm_local.redact.types import PhiType, Span

_TIME = re.compile(r"(?:,?[ T]|[ \t]{1,2}(?:at|@)[ \t]{1,2})\d{1,2}:\d{2}(?::\d{2})?"
                   r"(?:[ \t]{0,2}[ap]\.?m\.?)?(?![\w:])", re.IGNORECASE)
# Street prefixes that ICU shorthand writes too: "C/O PAIN", "VIA PIV", "AV PACED", "PO INTAKE", "PL EFFUSION".
_SHORTHAND_PREFIXES = frozenset({"c", "via", "av", "po", "pl", "camino"})
_BLOCK_LINE = 48  # an address-block line is short: "Springfield, MA 01103", "Suite 501"
_POSTCODE = re.compile(r"(?<![\w.,/-])(?:[a-z]{1,2}-)?\d{4,5}(?:-\d{3,4})?(?![\w]|[.,/-]\d)", re.IGNORECASE)

# Units of a measure after a number, which no street's name is ("LOCATED AT 40 CM"); the units list's letters ("m",
# "l", "u") and words ("unit") are left out, since a street can be named by them ("45 M Street", "12 Unit 4").
_MEASURES = frozenset({"cm", "mm", "ml", "cc", "kg", "mg", "mcg", "gm", "lb", "lbs", "meq", "mmol", "mmhg"})


class AddressRules(PlaceRules):
    """The second pass over addresses and dates, given the spans of the first."""

    def _second_pass(self, text: str, tokens: list[Token], spans: list[Span]) -> list[Span]:
        """The first-pass spans (names retyped where an address shows them to be places) and those found now."""
        places = self._street_first(text, tokens) + self._number_last(text, tokens)
        places += self._after_place_label(text, tokens)
        blocks = self._after_address_cue(text, tokens)
        streets = sorted(s for s in spans + places + blocks if s.type is PhiType.STREET)
        blocks += self._block_lines(text, streets)
        kept = []
        for span in spans:  # "Calle de la Paz, 23": "Paz" is the street's; "12 Elm St, Springfield": a town
            if span.type is PhiType.NAME and _inside(span, places):
                continue
            if span.type is PhiType.NAME and _inside(span, blocks) and text[:span.start].rstrip().endswith(","):
                span = Span(span.start, span.end, PhiType.CITY)
            kept.append(span)
        found = places + [piece for span in blocks for piece in self._uncovered(text, tokens, span, kept)]
        found += self._postcodes(text, sorted(kept + found))
        found += [Span(s.start, s.end + m.end() - m.start(), s.type) for s in kept
                  if s.type is PhiType.DATE and (m := _TIME.match(text, s.end))]
        return kept + found

    def _uncovered(self, text: str, tokens: list[Token], span: Span, spans: list[Span]) -> list[Span]:
        """The parts of a second-pass span that no first-pass span types better, without US states
        (not PHI): "12 Elm St, Springfield, MA 01103" keeps its STREET, CITY and ZIP and leaves "MA"."""
        states, cuts = self.rules.words("states"), []
        k = bisect_left([s.end for s in spans], span.start + 1)
        while k < len(spans) and spans[k].start < span.end:
            cuts.append((spans[k].start, spans[k].end))
            k += 1
        t = bisect_left([tok.start for tok in tokens], span.start)
        while t < len(tokens) and tokens[t].start < span.end:
            tok = tokens[t]
            if tok.key in states and (tok.text.isupper() or len(tok.key) > 2) and t and tokens[t - 1].text == ",":
                cuts.append((tok.start, tok.end))
            t += 1
        pieces, pos = [], span.start
        for a, b in [*sorted(cuts), (span.end, span.end)]:
            chunk = text[pos:max(pos, a)]
            body = chunk.strip(" \t\n,.;:->")
            if any(ch.isalnum() for ch in body):
                start = pos + chunk.index(body)
                pieces.append(Span(start, start + len(body), span.type))
            pos = max(pos, b)
        return pieces

    def _same_line(self, text: str, a: Token, b: Token) -> bool:
        return "\n" not in text[a.end:b.start]

    def _after_address_cue(self, text: str, tokens: list[Token]) -> list[Span]:
        """"Address: 6750 Koskikatu 25 Apt. 864", "lives at 86036 Rua do Arenque 1634, Goiânia"."""
        spans, cues = [], self.rules.words("address_cues")
        firsts = {cue.split()[0] for cue in cues}
        for i in where(tokens, firsts):
            if tokens[i].kind != "w":
                continue
            n = next((n for n in (3, 2, 1) if " ".join(t.key for t in tokens[i:i + n]) in cues), 0)
            if not n:
                continue
            k = i + n
            while k < len(tokens) and k - i - n < 3 and (tokens[k].text in ":-,=" or tokens[k].key in ("is", "es")):
                k += 1
            if k >= len(tokens) or text.count("\n", tokens[k - 1].end, tokens[k].start) > 1:
                continue
            if tokens[k].kind == "d" and k + 1 < len(tokens) and tokens[k + 1].key in _MEASURES:
                continue  # "OGT LOCATED AT 40 CM FROM THE INCISORS": a measure, no house number
            end = self._address_end(text, tokens, k)
            if end > k:
                spans.append(Span(tokens[k].start, tokens[end - 1].end, PhiType.STREET))
        return spans

    def _after_place_label(self, text: str, tokens: list[Token]) -> list[Span]:
        """"City: Springfield", "Localidad/ Provincia: La palma": the rest of a labelled line is a town."""
        labels, spans = self.rules.words("place_labels"), []
        for i in where(tokens, labels):
            tok = tokens[i]
            if tok.kind != "w":
                continue
            k = i + 1
            while k < len(tokens) and (tokens[k].text in "/" or tokens[k].key in labels) and k - i < 4:
                k += 1
            if k + 1 >= len(tokens) or tokens[k].text != ":" or not self._same_line(text, tok, tokens[k + 1]):
                continue
            j = k + 1
            while j < len(tokens) and j - k <= 5 and self._same_line(text, tok, tokens[j]) \
                    and (tokens[j].kind == "w" or tokens[j].text in "-'’"):
                j += 1
            if j > k + 1 and tokens[k + 1].text[0].isupper() and (j == len(tokens) or tokens[j].text in ".,;(" or
                                                                  not self._same_line(text, tok, tokens[j])):
                spans.append(Span(tokens[k + 1].start, tokens[j - 1].end, PhiType.CITY))
        return spans

    def _address_end(self, text: str, tokens: list[Token], k: int) -> int:
        """Index past an address starting at token k (a number, a P.O. box or a capitalised street), or k."""
        first = tokens[k]
        digit_soon = any(t.kind == "d" for t in tokens[k:k + 6] if self._same_line(text, first, t))
        if not (first.kind == "d" or (first.kind == "w" and first.text[0].isupper() and digit_soon)):
            return k
        if first.kind == "w" and not first.cased and first.key not in ("po", "p") and first.text[1:2] != ".":
            return k  # "HOME ADDRESS CONFIRMED: 27 ELM ST": without case only a number or a P.O. box starts one
        j = k
        while j < len(tokens) and j - k < 24 and self._same_line(text, first, tokens[j]):
            t = tokens[j]
            if t.text in "?!;()[]\"" or (t.kind == "w" and t.key in STOPWORDS and t.key not in CONNECTORS):
                break
            if t.text == "." and not (tokens[j - 1].kind == "w" and len(tokens[j - 1].text) <= 4
                                      and j + 1 < len(tokens) and self._same_line(text, t, tokens[j + 1])):
                break  # a sentence ends the address; "St.", "Apt.", "Avda." do not
            j += 1
            if j - 1 > k and t.kind == "d" and len(t.text) == 5 and not t.cased and not first.cased \
                    and tokens[j - 2].kind != "d":
                break  # "LIVES AT 14 ELM ST, MALDEN 02148, ADMITTING NOTIFIED": on a line without case (a US
                # nursing note) the ZIP code ends the address
        while j > k and tokens[j - 1].kind == "p":
            j -= 1
        if not any(t.kind == "d" for t in tokens[k:j]) and sum(t.kind == "w" for t in tokens[k:j]) < 2:
            return k  # "Av." alone (its name already masked) is not an address
        return j

    def _street_word(self, tok: Token) -> bool:
        """A word that may name a street: capitalised (or any, on a line without case), not a clinical term."""
        if tok.kind != "w" or tok.key in self._never_names or tok.key in self.words.clinical_terms:
            return tok.kind == "w" and tok.key in CONNECTORS
        if tok.cased:
            return tok.text[0].isupper() or tok.key in CONNECTORS
        return tok.key not in self.rules.words("units")

    def _street_first(self, text: str, tokens: list[Token]) -> list[Span]:
        """Streets written type-first: "Calle de la Paz, 23, 5A", "Avda. de Elvas s/n", "Via Franscini 71"."""
        prefixes, spans = self.rules.words("street_prefixes"), []
        for i in where(tokens, prefixes):
            tok = tokens[i]
            if tok.kind != "w" or (tok.cased and not tok.text[0].isupper()):
                continue
            j = i + 1
            while j < len(tokens) and tokens[j].text in "./" and j - i < 3:
                j += 1
            if len(tok.key) == 1 and j == i + 1:
                continue  # "C/ Mayor 5" has its slash; "pa-c ext 44312" is no street
            words = 0
            while j < len(tokens) and words < 6 and self._street_word(tokens[j]) \
                    and self._same_line(text, tok, tokens[j]):
                words, j = words + 1, j + 1
            if not words or not any(t.kind == "w" and t.key not in CONNECTORS for t in tokens[i + 1:j]):
                continue
            if not tok.cased and tok.key in _SHORTHAND_PREFIXES and not self._street_name_without_case(tokens[i + 1:j]):
                continue  # "AV PACED 80", "VIA PIV 18", "PO INTAKE 200", "PL EFFUSION 2": shorthand, not a street
            end = self._house_number_end(text, tokens, j)
            if end > j:
                spans.append(Span(tok.start, tokens[end - 1].end, PhiType.STREET))
        return spans

    def _street_name_without_case(self, words: list[Token]) -> bool:
        """Whether the words after a street prefix on a line without case may name a street: none is clinical,
        shorthand or an abbreviation, and not all are English words ("VIA GARIBALDI", not "VIA PIV", "AV PACED" or
        "VIA BEEPER")."""
        named = [t for t in words if t.kind == "w" and t.key not in CONNECTORS]
        if all(t.key in self.words.everyday for t in named):
            return False  # "PAGED VIA BEEPER 31474": English words after "via", the way a thing went
        return not any(self.tier(t) == Ambiguity.CLINICAL or self.words.is_shorthand(t.key)
                       or t.key in self.words.abbreviations or t.key in self.words.clinical_terms for t in named)

    def _house_number_end(self, text: str, tokens: list[Token], j: int) -> int:
        """Index past ", 23, 5A", " s/n", " 579 2º Frente" at token j, or j when no house number is there."""
        k = j + (j < len(tokens) and tokens[j].text == ",")
        if k < len(tokens) and tokens[k].key in ("no", "n", "num", "numero", "km"):
            k += 1 + (k + 1 < len(tokens) and tokens[k + 1].text in ".º°")
        if k + 2 < len(tokens) and tokens[k].key == "s" and tokens[k + 1].text == "/" and tokens[k + 2].key == "n":
            return k + 3
        if k >= len(tokens) or tokens[k].kind != "d" or not self._same_line(text, tokens[j - 1], tokens[k]) \
                or len(tokens[k].text) > 5 or text[tokens[k].end:tokens[k].end + 1] in ("/", ":") \
                or (tokens[k].start == tokens[k - 1].end and tokens[k - 1].kind == "w") \
                or self._measure_glued(tokens, k):
            return j  # "RUE WEAKNESS 3/5", "VIA R FEM, 1:1": a score or a ratio; "VIA D5W": part of a word
        end, units = k + 1, self.rules.words("street_units")
        while end < len(tokens) and end - k < 8 and self._same_line(text, tokens[k], tokens[end]):
            t = tokens[end]
            short = (t.kind == "d" and len(t.text) <= 4) or (t.kind == "w" and (len(t.text) <= 2 or t.key in units))
            if t.text in ",-/ºª°" and end + 1 < len(tokens) and tokens[end + 1].start - t.end <= 1:
                end += 1
            elif short and t.start - tokens[end - 1].end <= 2:
                end += 1
            else:
                break
        while tokens[end - 1].kind == "p" and tokens[end - 1].text not in "ºª°":
            end -= 1
        return end

    def _measure_glued(self, tokens: list[Token], k: int) -> bool:
        """Whether a unit is written onto the number at k: "VIA BEDPAN, 900CC" is a volume, not a house number."""
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        return nxt is not None and nxt.start == tokens[k].end and nxt.key in self.rules.words("units")

    def _number_last(self, text: str, tokens: list[Token]) -> list[Span]:
        """A street name with its number after it, after a house number or as a compound ("Koskikatu 25")."""
        compounds, spans = tuple(self.rules.words("street_compounds")), []
        for i, tok in enumerate(tokens):
            if tok.kind != "d" or len(tok.text) > 5 or i + 1 >= len(tokens) or tokens[i + 1].start == tok.end:
                continue
            if i > 0 and tokens[i - 1].end == tok.start:
                continue  # "K2HPO4", "SPO2": a number run into the word before is part of it, no street's number
            j = i
            while j > 0 and i - j < 3 and self._street_word(tokens[j - 1]) \
                    and self._same_line(text, tokens[j - 1], tok):
                j -= 1
            named = [t for t in tokens[j:i] if t.kind == "w" and t.key not in CONNECTORS]
            if not named or self._unit_after(tokens, i):
                continue
            compound = any(t.key.endswith(compounds) and len(t.key) > 6 for t in named)
            house = j > 0 and tokens[j - 1].kind == "d" and self._same_line(text, tokens[j - 1], tok) \
                and not (tokens[j - 1].first and not tokens[j - 1].cased and len(tokens[j - 1].text) == 4)
            if compound or (house and any(self._unusual(t) for t in named)
                            and (tok.cased or self._street_name_without_case(named))):  # "1 RUN OF NSVT 7 BEATS"
                spans.append(Span(tokens[j - 1 if house else j].start, tok.end, PhiType.STREET))
        return spans

    def _unusual(self, tok: Token) -> bool:
        return self.tier(tok) == Ambiguity.NAME_ONLY and tok.key not in self.words.clinical_terms

    def _unit_after(self, tokens: list[Token], i: int) -> bool:
        return i + 1 < len(tokens) and tokens[i + 1].key in self.rules.words("units")

    def _block_lines(self, text: str, streets: list[Span]) -> list[Span]:
        """The short lines under a street that ends its line: "Suite 501", "Riisa", "Estonia 62488"."""
        spans = []
        for street in streets:
            line_end = text.find("\n", street.end)
            if line_end < 0 or text[street.end:line_end].strip(" \t.,>"):
                continue
            pos, blank, taken = line_end + 1, 0, 0
            while taken < 4 and pos < len(text):
                nxt = text.find("\n", pos)
                nxt = len(text) if nxt < 0 else nxt
                line = text[pos:nxt]
                body = line.strip(" \t>,")
                if not body:
                    blank += 1
                    if blank > 1:
                        break
                elif len(body) <= _BLOCK_LINE and self._address_line(body):
                    start = pos + line.index(body)
                    spans.append(Span(start, start + len(body), PhiType.STREET))
                    taken += 1
                else:
                    break
                pos = nxt + 1
        return spans

    def _address_line(self, body: str) -> bool:
        """A line that can only be the rest of an address: places, states, postcodes, unit numbers."""
        words = re.findall(r"[^\W\d_]+|\d+", body)
        if not words or len(words) > 5 or re.search(r"[:@?!;=]|\d[./]\d", body):
            return False
        states, units = self.rules.words("states"), self.rules.words("street_units")
        ok = 0
        for w in words:
            key = w.lower()
            if w.isdigit():
                ok += len(w) >= 3
            elif key in states or key in units or key in CONNECTORS:
                continue
            elif w[0].isupper() and (self._distinctive_key(key) or key in self.words.cities):
                ok += 1
            elif not (w[0].isupper() and self.words.ambiguity(key) < Ambiguity.CLINICAL):
                return False
        return ok > 0

    def _distinctive_key(self, key: str) -> bool:
        return self.words.is_name(key) or self.words.ambiguity(key) == Ambiguity.NAME_ONLY

    def _postcodes(self, text: str, spans: list[Span]) -> list[Span]:
        """A 4-5 digit postcode right after a street, or before a town with a street shortly before it
        on the same line: "Avda. Gaspar Aguilar, 90 46017 Valencia", "Teseo, 5 3-N. 29010. Málaga"."""
        found, starts = [], [s.start for s in spans]
        street_ends = sorted(s.end for s in spans if s.type is PhiType.STREET)
        for m in _POSTCODE.finditer(text):
            k = bisect_right(street_ends, m.start())
            street = street_ends[k - 1] if k else -1
            between = text[street:m.start()] if street >= 0 else "\n"
            if street >= 0 and not between.strip(" ,.-\t"):
                found.append(Span(m.start(), m.end(), PhiType.ZIP))
                continue
            k = bisect_left(starts, m.end())
            before = spans[k - 1] if k and spans[k - 1].end <= m.start() else None
            town = before is not None and before.type in (PhiType.CITY, PhiType.NAME)  # "malden" is a surname too
            if before is not None and town and street >= 0 and len(between) < 80 \
                    and "\n" not in between and _STATE_BETWEEN.fullmatch(text[before.end:m.start()]):
                found.append(Span(m.start(), m.end(), PhiType.ZIP))
                continue  # "22 elm terrace apt 3, framingham 01702", "..., LYNN, MA 01902": the town's ZIP code
            after = spans[k] if k < len(spans) else None
            if after is not None and after.type in (PhiType.CITY, PhiType.NAME) and len(between) < 60 \
                    and "\n" not in between and not text[m.end():after.start].strip(" ,.-\t"):
                found.append(Span(m.start(), m.end(), PhiType.ZIP))
        return found


# What may stand between a town and its ZIP code: a comma, spaces, a state's postal code ("LYNN, MA 01902").
_STATE_BETWEEN = re.compile(r"[ \t,]{1,3}(?:[A-Za-z]{2}\.?[ \t,]{1,3})?")


def _inside(span: Span, others: list[Span]) -> bool:
    return any(o.start <= span.start and span.end <= o.end for o in others)
