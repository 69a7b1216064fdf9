"""PHI detection: regex rules for shaped identifiers, token rules with dictionaries for names and places.

Capital letters are evidence only on lines written in mixed case; on ALL-CAPS or all-lower lines
(nursing notes, transcripts) a word counts as a name only through a dictionary and its ambiguity
tier, or a cue (a title, a relation, a credential). A name found once marks its other mentions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries, load_dictionaries
from medhelm_local.redact.patterns import Rules, find_pattern_spans, load_rules
from medhelm_local.redact.types import PhiType, Span, merge_spans

_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")
_CONTRACTIONS = frozenset({"s", "t", "ll", "re", "ve", "d", "m"})
# What may stand between a cue and the name: "Dr. Lee", "Name: Lee", "wife (Mary)", "hi, Martha".
_SKIP_AFTER_CUE = {"titles_abbrev": ".", "titles_word": "", "name_labels": ".:#-", "name_verbs": ":,",
                   "relations": ":,;(-", "greetings": ",", "credentials": ""}
_SENTENCE_END = frozenset({".", "!", "?", ":", ";", "[", "]", "-", "*", "•", ">", "(", '"'})
STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor
not now of off on once only or other our ours out over own same she should so some such than that the their
theirs them then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself um uh okay ok yes yeah yep no nope hmm alright
right well oh so sure mm mhm please thanks let lets let's gonna wanna got get go going went see saw seen still
gon na wan gotta dunno bye hey hi hello guys folks everybody everyone there glad dragon
""".split())


class Token(NamedTuple):
    """A word, a digit run or one punctuation mark; `key` is the lower-case dictionary form."""

    start: int
    end: int
    text: str
    key: str
    kind: str  # "w" word, "d" digits, "p" punctuation
    cased: bool  # on a mixed-case line, so capitals carry information
    first: bool  # the first token of its line


def tokenize(text: str) -> list[Token]:
    """Tokens of `text`, line by line, each marked with its line's case mode."""
    tokens: list[Token] = []
    doc_cased = _is_cased(text)
    pos = 0
    for line in text.splitlines(keepends=True):
        cased = _is_cased(line) if len(line) >= 12 and sum(map(str.isalpha, line)) >= 12 else doc_cased
        raw = [(m.start() + pos, m.end() + pos, m.group()) for m in _TOKEN.finditer(line)]
        i = 0
        while i < len(raw):
            start, end, word = raw[i]
            if (i + 2 < len(raw) and word.isalpha() and raw[i + 1][2] in "'’" and raw[i + 1][0] == end
                    and raw[i + 2][0] == raw[i + 1][1] and raw[i + 2][2].isalpha()
                    and raw[i + 2][2].lower() not in _CONTRACTIONS):
                end, word = raw[i + 2][1], text[start:raw[i + 2][1]]  # O'Brien, D'Angelo
                i += 2
            kind = "w" if word[0].isalpha() else "d" if word[0].isdigit() else "p"
            key = word.lower().replace("'", "").replace("’", "")
            tokens.append(Token(start, end, word, key, kind, cased, i == 0))
            i += 1
        pos += len(line)
    return tokens


def _is_cased(chunk: str) -> bool:
    letters = sum(map(str.isalpha, chunk))
    upper = sum(map(str.isupper, chunk))
    return letters > 0 and 0.005 <= upper / letters <= 0.6


class Detector:
    """Finds PHI spans in text with one rule pack (rules.yaml plus dictionaries)."""

    def __init__(self, rules: Rules, words: Dictionaries) -> None:
        self.rules = rules
        self.words = words
        w = rules.words
        self._titles = w("titles_abbrev") | w("titles_word")
        self._cues_strict = w("name_verbs") | w("relations") | w("greetings") | w("titles_word")
        labels = {part for label in rules.label_types for part in label.split()}
        self._never_names = STOPWORDS | self._titles | w("credentials") | labels | {"patient", "pt", "doctor", "nurse"}
        self._non_names = (self._never_names | w("relations") | w("facility_words") | w("street_suffixes")
                           | w("states") | words.clinical_terms)
        self._phrase_index = _phrase_index({k: w(k) for k in ("titles_abbrev", "titles_word", "name_labels",
                                                              "name_verbs", "relations", "greetings",
                                                              "facility_words", "credentials")})

    @classmethod
    def from_dir(cls, folder: Path) -> Detector:
        """A detector for the rule pack in `folder` (rules.yaml and dictionaries/)."""
        return cls(load_rules(folder / "rules.yaml"), load_dictionaries(folder / "dictionaries"))

    def detect(self, text: str) -> list[Span]:
        """Typed PHI spans in `text`: sorted, merged, non-overlapping, end-exclusive code-point offsets."""
        spans = find_pattern_spans(text, self.rules)
        tokens = tokenize(text)
        spans += self._names(tokens)
        spans += self._streets(tokens) + self._facilities(tokens) + self._cities(tokens)
        return merge_spans(spans)

    # ---- names ----

    def cue_at(self, tokens: list[Token], i: int) -> tuple[str, int] | None:
        """The longest cue phrase starting at token i, as (list name, tokens it spans), or None."""
        best: tuple[str, int] | None = None
        for phrase, kind in self._phrase_index.get(tokens[i].key, ()):
            j, ok = i, True
            for part in phrase:
                while j < len(tokens) and tokens[j].kind == "p" and tokens[j].text in ".'’" and part != tokens[j].key:
                    j += 1
                if j >= len(tokens) or tokens[j].key != part:
                    ok = False
                    break
                j += 1
            if ok and (best is None or j - i > best[1]):
                best = (kind, j - i)
        return best

    def name_like(self, tok: Token, level: int) -> bool:
        """Whether a word may be (part of) a name: level 0 after a title, 1 after a label, 2 elsewhere, 3 after
        another name word (on lines without case, only words that are nothing but names go on)."""
        if tok.kind != "w" or tok.key in (self._never_names if level < 2 else self._non_names):
            return False
        if len(tok.key) < 2:
            return tok.text.isupper()
        known = self.words.is_name(tok.key)
        tier = self.words.ambiguity(tok.key)
        if tok.cased and not tok.text.isupper():
            return tok.text[0].isupper() and (level == 0 or known or tier == Ambiguity.NAME_ONLY)
        if known:
            return level < 2 or tier < Ambiguity.CLINICAL - (level > 2)
        return tier == Ambiguity.NAME_ONLY and len(tok.key) >= (2 if level == 0 else 3)

    def _run(self, tokens: list[Token], i: int, level: int, step: int = 1) -> int:
        """Index just past (or before, with step -1) a run of up to three name words from token i."""
        j, words = i, 0
        while 0 <= j < len(tokens) and words < 3:
            tok = tokens[j]
            if words and abs(tok.start - tokens[j - step].end if step > 0 else tokens[j - step].start - tok.end) > 2:
                break
            prev = tokens[j - step]
            follows_first = step > 0 and words and prev.key in self.words.first_names and tok.key in self.words.surnames
            sure_first = follows_first and self.words.ambiguity(prev.key) == Ambiguity.NAME_ONLY
            if tok.kind == "w" and self.name_like(tok, level if words == 0 else 1 if sure_first
                                                  else 2 if follows_first else 3):
                words += 1
                j += step
                if 0 <= j < len(tokens) and tokens[j].text == "." and len(tok.text) == 1:
                    j += step  # an initial: "J. Smith"
                continue
            if words and tok.text in ",-" and 0 <= j + step < len(tokens) and self.name_like(tokens[j + step], 2) \
                    and tokens[j + step].start - tok.end <= 1:
                j += step  # "SMITH, JOHN", "Smith-Jones"
                continue
            break
        while j - step != i - step and tokens[j - step].kind == "p":
            j -= step
        return j

    def _names(self, tokens: list[Token]) -> list[Span]:
        found: list[tuple[int, int]] = []
        i = 0
        while i < len(tokens):
            cue = self.cue_at(tokens, i) if tokens[i].kind == "w" else None
            if cue is None or cue[0] == "facility_words":
                end = self._dictionary_name(tokens, i) if tokens[i].kind == "w" else i
                if end > i:
                    found.append((i, end))
                i = max(end, i + 1)
                continue
            kind, length = cue
            k = i + length
            skip = _SKIP_AFTER_CUE[kind]
            while k < len(tokens) and tokens[k].text in skip and k - i - length < 3:
                k += 1
            if kind == "credentials":
                j = i - 1 if i and tokens[i - 1].text == "," else i
                if j > 0 and (tokens[i].text.isupper() or tokens[i].cased):
                    start = self._run(tokens, j - 1, 2, -1)
                    if start < j - 1 and self._not_eponym(tokens, j):
                        found.append((start + 1, j))
                i += length
                continue
            colon = any(t.text == ":" for t in tokens[i + length:k])
            if kind == "name_labels" and (not colon or any(t.key in STOPWORDS for t in tokens[k:k + 4])):
                i += length
                continue
            level = 0 if kind == "titles_abbrev" else 1 if kind in ("name_labels", "greetings") else 2
            end = self._run(tokens, k, level)
            if end > k and (level == 0 or self._not_eponym(tokens, end)):
                found.append((k, end))
                i = end
                continue
            if kind == "relations" and i >= 2 and tokens[i - 1].text == "(":
                start = self._run(tokens, i - 2, 2, -1)
                if start < i - 2:
                    found.append((start + 1, i - 1))
            i += length
        return self._with_other_mentions(tokens, found)

    def _dictionary_name(self, tokens: list[Token], i: int) -> int:
        """End of a name found by the dictionaries alone at token i (a first name + surname, or one word)."""
        tok, words = tokens[i], self.words
        if not self.name_like(tok, 2) or (tok.cased and tok.text.isupper() and len(tok.text) <= 4):
            return i  # a short capitalised word on a mixed-case line is an abbreviation (TIA, EMG)
        j = i + 1
        if j + 1 < len(tokens) and len(tokens[j].text) == 1 and tokens[j].kind == "w":
            j += 2 if tokens[j + 1].text == "." else 1  # middle initial
        sure_first = tok.key in words.first_names and words.ambiguity(tok.key) == Ambiguity.NAME_ONLY
        if j < len(tokens) and tok.key in words.first_names and self.name_like(tokens[j], 1 if sure_first else 2) \
                and tokens[j].key in words.surnames and tokens[j].start - tokens[j - 1].end <= 2:
            tiers = (words.ambiguity(tok.key), words.ambiguity(tokens[j].key))
            if sure_first or max(tiers) < Ambiguity.CLINICAL or (tok.cased and min(tiers) < Ambiguity.CLINICAL):
                return j + 1 if self._not_eponym(tokens, j + 1) else i
        tier = words.ambiguity(tok.key)
        pair_end = self._unknown_pair(tokens, i, j)
        if pair_end > i:
            return pair_end
        if not words.is_name(tok.key) or not self._not_eponym(tokens, i + 1):
            return i
        if tok.key in words.cities and i and tokens[i - 1].key in self.rules.words("place_cues"):
            return i  # "from Springfield": the city rule types it
        if tier == Ambiguity.NAME_ONLY and (len(tok.key) >= 4 or (tok.cased and len(tok.key) >= 3)
                                            or (tok.key in words.first_names and len(tok.key) >= 3)):
            return i + 1
        if tier == Ambiguity.EVERYDAY and tok.cased and not tok.text.isupper() and not self._sentence_start(tokens, i):
            return i + 1
        return i

    def _unknown_pair(self, tokens: list[Token], i: int, j: int) -> int:
        """End of two capitalised words that are neither English nor clinical ("Ubul Csonka"), or i."""
        tok = tokens[i]
        if j >= len(tokens) or not (tok.cased and tok.text[0].isupper() and not tok.text.isupper()):
            return i
        nxt = tokens[j]
        if not (nxt.kind == "w" and nxt.cased and nxt.text[0].isupper() and not nxt.text.isupper()
                and nxt.start - tokens[j - 1].end <= 2 and self.name_like(nxt, 2)):
            return i
        unusual = all(self.words.ambiguity(t.key) == Ambiguity.NAME_ONLY and t.key not in self.words.cities
                      for t in (tok, nxt))
        return j + 1 if unusual and len(tok.key) >= 3 and self._not_eponym(tokens, j + 1) else i

    @staticmethod
    def _sentence_start(tokens: list[Token], i: int) -> bool:
        return i == 0 or tokens[i].first or tokens[i - 1].text in _SENTENCE_END

    def _not_eponym(self, tokens: list[Token], end: int) -> bool:
        """False when the words after a candidate make it a medical eponym (Foley catheter, Bell's palsy)."""
        j = end
        while j < len(tokens) and tokens[j].text in ("'", "’", "s") and j - end < 2:
            j += 1
        return not (j < len(tokens) and tokens[j].key in self.rules.words("eponym_followers"))

    def _with_other_mentions(self, tokens: list[Token], found: list[tuple[int, int]]) -> list[Span]:
        """Spans for the runs found, plus every other mention of their words (a surname seen once)."""
        known = {t.key for a, b in found for t in tokens[a:b] if t.kind == "w" and len(t.key) > 1}
        covered = {k for a, b in found for k in range(a, b)}
        spans = [Span(tokens[a].start, tokens[b - 1].end, PhiType.NAME) for a, b in found]
        for k, tok in enumerate(tokens):
            if tok.key in known and k not in covered and tok.key not in self._non_names \
                    and tok.key not in self.words.clinical_terms and self._not_eponym(tokens, k + 1):
                if tok.cased and not tok.text.isupper():
                    ok = tok.text[0].isupper() and (self.words.is_name(tok.key) or self._sentence_start(tokens, k)
                                                    or self.words.ambiguity(tok.key) < Ambiguity.CLINICAL)
                else:
                    ok = self.words.ambiguity(tok.key) < Ambiguity.CLINICAL
                if ok and (self.words.is_name(tok.key) or not tok.text.islower()):
                    spans.append(Span(tok.start, tok.end, PhiType.NAME))
        return spans


    # ---- places ----

    def _place_word(self, tok: Token) -> bool:
        """A word that may belong to a street, city or facility name."""
        if tok.kind != "w" or tok.key in STOPWORDS:
            return False
        return tok.text[0].isupper() if tok.cased else tok.key not in self.rules.words("units")

    def _distinctive(self, tok: Token) -> bool:
        """A word that names something: a known name or city, or a word that is not common English."""
        return self.words.is_name(tok.key) or tok.key in self.words.cities or (
            self.words.ambiguity(tok.key) == Ambiguity.NAME_ONLY)

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
            if tok.kind == "d" and len(tok.text) <= 6 and not (i and tokens[i - 1].end == tok.start):
                spans += self._numbered_street(tokens, i)
        return spans

    def _numbered_street(self, tokens: list[Token], i: int) -> list[Span]:
        """A street from the house number at token i, with its unit and the town after it."""
        tok, suffixes, units = tokens[i], self.rules.words("street_suffixes"), self.rules.words("street_units")
        if tok.first and not tok.cased and len(tok.text) == 4 and int(tok.text[:2]) < 24 and int(tok.text[2:]) < 60:
            return []  # "0345 PAGED DR. SMITH": a nursing-note time, not a house number
        j, words, ordinal = i + 1, 0, False
        if j < len(tokens) and tokens[j].kind == "w" and len(tokens[j].text) <= 2 and tokens[j].start == tok.end:
            j += 1  # 221B, 5th
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
            cue = i > 0 and tokens[i - 1].key in self.rules.words("place_cues")
            boundary = after is None or after.text in ",#" or after.key in units or after.first
            if len(tok.text) < 2 or not (distinct or ordinal or cue or boundary or len(suffix.key) > 4):
                return []
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
        if k + 1 < len(tokens) and tokens[k].text == "," and self._place_word(tokens[k + 1]):
            town = k + 1
            while town + 1 < len(tokens) and town - k < 3 and self._place_word(tokens[town + 1]) \
                    and tokens[town + 1].start - tokens[town].end <= 1:
                town += 1
            if tokens[k + 1].key not in self.rules.words("states") or town > k + 1:
                spans.append(Span(tokens[k + 1].start, tokens[town].end, PhiType.CITY))
        return spans

    def _facilities(self, tokens: list[Token]) -> list[Span]:
        """"St. Mary's Hospital", "MERCY MEDICAL CENTER", "Hospital of Springfield"."""
        generic, spans = self.rules.words("facility_generic"), []
        for i, tok in enumerate(tokens):
            cue = self.cue_at(tokens, i) if tok.kind == "w" else None
            if cue is None or cue[0] != "facility_words" or (tok.cased and not tok.text[0].isupper()):
                continue
            j, named = i, list[Token]()
            while j > 0 and len(named) < 5:
                t = tokens[j - 1]
                if self._place_word(t) or (t.key in ("st", "of", "the", "and") and named):
                    named.append(t)
                elif t.text not in ".'’&-" and not (t.key == "s" and j > 1 and tokens[j - 2].text in "'’"):
                    break
                j -= 1
            end = i + cue[1] - 1
            if end + 2 < len(tokens) and tokens[end + 1].key in ("of", "at", "in") \
                    and self._place_word(tokens[end + 2]):
                named.append(tokens[end + 2])
                end += 2
            while j < i and tokens[j].kind != "w":
                j += 1
            if any(t.key not in generic and t.key not in STOPWORDS and self._distinctive(t) for t in named):
                spans.append(Span(tokens[j].start, tokens[end].end, PhiType.HOSPITAL))
        return spans

    def _cities(self, tokens: list[Token]) -> list[Span]:
        """Dictionary cities (with a cue when the word is also common), and "Anytown, MA" in mixed case."""
        states, cues, spans = self.rules.words("states"), self.rules.words("place_cues"), []
        credentials = self.rules.words("credentials")
        for i, tok in enumerate(tokens):
            if tok.kind != "w" or not self._place_word(tok) or (i and tokens[i - 1].kind == "w"
                                                                  and tokens[i - 1].key in ("st", "saint")):
                continue
            words, end = [tok], i + 1
            while end < len(tokens) and len(words) < 3 and self._place_word(tokens[end]):
                words.append(tokens[end])
                end += 1
            state_after = (end + 1 < len(tokens) and tokens[end].text == "," and tokens[end + 1].key in states
                           and tokens[end + 1].key not in credentials
                           and (tokens[end + 1].text.isupper() or tokens[end + 1].text[0].isupper()))
            zip_after = state_after and end + 2 < len(tokens) and tokens[end + 2].kind == "d" \
                and len(tokens[end + 2].text) == 5
            if ((state_after and tok.cased) or zip_after) and (i == 0 or tokens[i - 1].kind != "w"
                                                             or not self._place_word(tokens[i - 1])):
                spans.append(Span(tok.start, tokens[end - 1].end, PhiType.CITY))
                continue
            before = f"{tokens[i - 2].key} {tokens[i - 1].key}" if i > 1 else ""
            if not tok.cased and before in cues and len(tok.key) >= 5 \
                    and not self.words.is_name(tok.key) and self.words.ambiguity(tok.key) == Ambiguity.NAME_ONLY:
                spans.append(Span(tok.start, tok.end, PhiType.CITY))  # "back from ashgrove": an unknown place
                continue
            for n in range(min(len(words), self.words.city_max_words), 0, -1):
                key = " ".join(t.key for t in words[:n])
                if key in self.words.cities and self._city_ok(tokens, i, words[:n], state_after, cues):
                    spans.append(Span(tok.start, words[n - 1].end, PhiType.CITY))
                    break
        return spans

    def _city_ok(self, tokens: list[Token], i: int, words: list[Token], state_after: bool,
                 cues: frozenset[str]) -> bool:
        """Whether a dictionary city match is a place here, given case, ambiguity and cues."""
        if not self._not_eponym(tokens, i + len(words)) or " ".join(t.key for t in words) in self.rules.words("states"):
            return False
        before = tokens[i - 1].key if i and tokens[i - 1].kind == "w" else ""
        two_before = f"{tokens[i - 2].key} {before}" if i > 1 else before
        cue = before in cues or two_before in cues
        tiers = [self.words.ambiguity(t.key) for t in words]
        if len(words) > 1:
            return words[0].cased or min(tiers) == Ambiguity.NAME_ONLY or cue
        if len(words[0].key) < 4:
            return False
        if tiers[0] == Ambiguity.NAME_ONLY:
            return True
        if words[0].cased and not words[0].text.isupper():
            return state_after or (cue and tiers[0] == Ambiguity.EVERYDAY) or (two_before in cues and " " in two_before)
        return state_after or (" " in two_before and two_before in cues and tiers[0] == Ambiguity.EVERYDAY)

def _phrase_index(lists: dict[str, frozenset[str]]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    index: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for kind, phrases in lists.items():
        for phrase in phrases:
            parts = tuple(p for p in re.split(r"[\s.'’]+", phrase.replace("'s", " s")) if p)
            if parts:
                index.setdefault(parts[0], []).append((parts, kind))
    return index


@lru_cache(maxsize=4)
def detector_for(folder: Path) -> Detector:
    """A cached detector for a rule-pack folder (loading takes ~0.2 s; detecting does not reload)."""
    return Detector.from_dir(folder)


def detect(text: str, folder: Path | None = None) -> list[Span]:
    """PHI spans in `text` using the rule pack in `folder` (default: the `redaction_dir` default)."""
    from medhelm_local.settings import default_redaction_dir

    return detector_for((folder or default_redaction_dir()).resolve()).detect(text)
