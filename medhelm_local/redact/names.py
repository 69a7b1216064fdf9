"""What a name word is: dictionaries and their ambiguity tiers, the slip reading, runs of name words, and names found
by the dictionaries alone (cue_names.py reads names after a cue word and builds on these).

Capital letters are evidence only on lines written in mixed case; on ALL-CAPS or all-lower lines
(nursing notes, transcripts) a word counts as a name only through a dictionary and its ambiguity
tier, or a cue (a title, a relation, a credential). A name found once marks its other mentions.
"""

from __future__ import annotations

from medhelm_local.redact import name_words
from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries
from medhelm_local.redact.eponyms import EponymTest
from medhelm_local.redact.name_words import MEMO_LIMIT, mixed_abbreviation, verb_shaped
from medhelm_local.redact.patterns import Rules
from medhelm_local.redact.place_words import STATE_CODES_AFTER_A_TOWN
from medhelm_local.redact.slips import Slips, misspelt, slip_tier
from medhelm_local.redact.tokens import SENTENCE_END, STOPWORDS, Token

# Particles a surname is written with, read as part of it after a title or a name: "DR VAN DER BERG", "de la cruz".
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "la", "le", "di", "da", "dos", "das", "du",
                        "ter", "ten"})


class NameRules:
    """The name half of the token rules; the place rules and the detector build on it."""

    def __init__(self, rules: Rules, words: Dictionaries) -> None:
        self.rules = rules
        self.words = words
        w = rules.words
        self._titles = w("titles_abbrev") | w("titles_word")
        self._relations = w("relations")
        self._cues_strict = w("name_verbs") | w("relations") | w("greetings") | w("titles_word")
        labels = {part for label in rules.label_types for part in label.split()}
        self._never_names = STOPWORDS | self._titles | w("credentials") | labels | name_words.NEVER_NAMES
        self.non_names = (self._never_names | w("relations") | w("facility_words") | w("street_suffixes")
                           | w("states") | words.clinical_terms)
        self._phrase_index = name_words.phrase_index({k: w(k) for k in ("titles_abbrev", "titles_word", "name_labels",
                                                              "name_verbs", "relations", "greetings",
                                                              "facility_words", "credentials")})
        self._clinical, self._everyday = words.clinical, words.everyday
        self._clinical_without_case = words.short_forms | words.caps_names
        self._name_like_memo: dict[tuple[str, bool, int], bool] = {}
        self._slip_memo: dict[str, tuple[Ambiguity | None, bool, bool]] = {}
        # Names the pack lists are never slips of a word ("SHRINERS" is no slip of "shiners").
        self._listed_names = w("facility_names") | w("facility_names_anywhere") | words.facility_names_one \
            | words.ward_names
        # Context lists the token rules ask about many times a note, held here rather than looked up each time.
        followers = w("eponym_followers") | w("eponym_nouns")
        # "BULKY JONES DRESSINGS", "ON BRAUN FRAMES": a follower in the plural follows an eponym too
        self._eponyms = EponymTest(followers | {f + "s" for f in followers if not f.endswith("s")}, self._never_names,
                                   words.every_eponym)
        self._units, self._credentials = w("units"), w("credentials")
        self._facility_words, self._street_suffixes = w("facility_words"), w("street_suffixes")

    def tier(self, tok: Token, slips: Slips = Slips.ANY) -> Ambiguity:
        """A token's ambiguity tier. Short forms ("levo", "satu") and names medical text writes in capitals
        ("lima", "tia") count as clinical only on lines without case, where ICU shorthand is written; with
        case, a capitalised one is as likely a name ("Satu", "Tia"). Without case, a word no list holds takes the
        tier of the word it is a slip of the keyboard from ("FOLLEY", "neruo"), as far as `slips` allows: after a
        relation or a title an unknown word is the name unless it slips from a word medical text writes often ("wife
        perpetua", "DR QUARTEY"; "WIFE VEYR WORRIED")."""
        key = tok.key  # Dictionaries.ambiguity, with the case test folded in (asked ~100 times a note)
        if key in self._clinical or (not tok.cased and key in self._clinical_without_case):
            return Ambiguity.CLINICAL  # "LIMA TO LAD", "POD 2", "HX TIA": on a line without case, the abbreviation
        if key in self._everyday:
            return Ambiguity.EVERYDAY
        if self.words.medical_form(key):
            return Ambiguity.CLINICAL
        if key in self._listed_names or len(key) < 2 or tok.cased:  # with case, a capital says what a name is
            return Ambiguity.NAME_ONLY
        return slip_tier(self.words, key, slips, self._slip_memo)

    def swapped_slip(self, tok: Token, words_too: bool = False) -> bool:
        """Whether a short word on a line without case is a function word with two letters swapped ("ta", "ni",
        "teh", "fro") or one dropped ("wll"), which never begins a name or a place however a list holds it ("TA" is a
        surname too); an English word so made ("form") only with `words_too`."""
        if tok.cased or tok.kind != "w" or len(tok.key) > 4:
            return False
        slip = self._slip_memo.get(tok.key)
        if slip is None:
            if len(self._slip_memo) >= MEMO_LIMIT:
                self._slip_memo.clear()
            slip = self._slip_memo[tok.key] = misspelt(self.words, tok.key)
        return slip[2] and (words_too or tok.key not in self._everyday)

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
        memo = self._name_like_memo
        key = (tok.text, tok.cased, level)  # all the answer reads: a token's kind and key follow from its text
        found = memo.get(key)
        if found is None:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[key] = self._name_like(tok, level)
        return found

    def _name_like(self, tok: Token, level: int) -> bool:
        if tok.kind != "w" or tok.key in (self._never_names if level < 2 else self.non_names) \
                or tok.key in self._relations:
            return False  # "HCP: NIECE SHARON DUBE": the relation is no part of the name
        if mixed_abbreviation(tok.text):
            return False  # "MoCA", "HbA1c", "FiO2": capitals after a small letter end an abbreviation
        if len(tok.key) < 2:
            return tok.text.isupper()
        if level and tok.text.isupper() and len(tok.text) <= 4 and self.words.is_shorthand(tok.key):
            return False  # "ED RN NOTE": department shorthand in capitals, not "Ed"
        known = self.words.is_name(tok.key)
        tier = self.tier(tok, Slips.ANY if level >= 2 else Slips.CLINICAL if level else Slips.FREQUENT)
        if tok.cased and not tok.text.isupper():
            if tok.text.islower():  # "Pt: lacey morgan", "per owner (mr. pike)": lower case right after a cue
                return level <= 1 and known and tier != Ambiguity.CLINICAL
            return tok.text[0].isupper() and (level == 0 or known or tier == Ambiguity.NAME_ONLY)
        if known:
            return level < 2 or tier < Ambiguity.CLINICAL - (level > 2)
        if level == 0 and tok.key in self.words.short_forms:
            return True  # "DR SATU": a title vouches for a word that is also a drug's first letters
        return tier == Ambiguity.NAME_ONLY and len(tok.key) >= (2 if level == 0 else 3) \
            and (level == 0 or not verb_shaped(tok.key))

    def _run(self, tokens: list[Token], i: int, level: int, step: int = 1) -> int:
        """Index just past (or before, with step -1) a run of up to three name words from token i."""
        j, words = i, 0
        while 0 <= j < len(tokens) and words < 3:
            tok = tokens[j]
            if words and abs(tok.start - tokens[j - step].end if step > 0 else tokens[j - step].start - tok.end) > 2:
                break
            if words and (tok.first if step > 0 else tokens[j - step].first):
                break  # a name stays on its line
            prev = tokens[j - step]
            first, last = (prev, tok) if step > 0 else (tok, prev)
            follows_first = words and first.key in self.words.first_names and last.key in self.words.surnames
            sure_first = (follows_first and self.tier(first) == Ambiguity.NAME_ONLY) or (
                step < 0 and words and tok.key in self.words.first_names)  # backwards: "BILL NADEAU, RRT"; after a
            # title (level 0) a first name vouches for the listed surname after it too: "DR JOHN WHITE AWARE"
            hyphened = step > 0 and words and tokens[j - 1].text == "-" and tokens[j - 1].end == tok.start
            if step > 0 and words and not hyphened and self._verb_like(tokens, j):
                break  # "wife yvonne gave list": a word going on with the sentence, not a surname (but
                # "DR SZCZEPANSKI-BROWN AWARE": a name's second half)
            if len(tok.text) == 1 and j + 1 < len(tokens) and tokens[j + 1].text == "/" \
                    and tokens[j + 1].start == tok.end:
                break  # "W/ OCC PVCS", "S/P": a letter before a slash is shorthand, not an initial
            if len(tok.text) == 1 and j and tokens[j - 1].kind == "d" and tokens[j - 1].end == tok.start:
                break  # "RESP: 4L NP": a unit after its number, not an initial
            particles = self._particles_then_name(tokens, j) if step > 0 and tok.key in _PARTICLES else 0
            if particles:
                words, j = words + 1, particles + 1  # "DR VAN DER BERG", "per dr de la cruz": a surname's particles
                continue
            unlisted_first = step > 0 and words and tok.key in self.words.surnames and not self.words.is_name(prev.key)
            joined_here = step > 0 and words and prev.text == "-" and prev.end == tok.start  # "SAUNDERS-PIKE"
            if tok.kind == "w" and self.name_like(tok, level if words == 0 else min(level, 1) if joined_here
                                                  else 1 if sure_first or (follows_first and level == 0)
                                                  else 2 if follows_first or unlisted_first else 3):
                words += 1
                j += step
                if 0 <= j < len(tokens) and tokens[j].text == "." and len(tok.text) == 1:
                    j += step  # an initial: "J. Smith"
                elif len(tok.text) == 1 and 0 <= j < len(tokens) and tokens[j].kind == "d" \
                        and tokens[j].start == tok.end:
                    words -= 1  # "PAGED X2": a count, not an initial
                    j -= step
                    break
                continue
            joined = tok.text == "-" and 0 <= j + step < len(tokens) and tokens[j - step].end == tok.start \
                and tokens[j + step].start == tok.end and tokens[j + step].kind == "w" and step > 0
            if words and tok.text in ",-" and 0 <= j + step < len(tokens) \
                    and self.name_like(tokens[j + step], min(level, 1) if joined else 2) \
                    and tokens[j + step].start - tok.end <= 1:
                j += step  # "SMITH, JOHN", "Smith-Jones", "REV. OKAFOR-BELL" (a joined name: any name word after)
                continue
            break
        while j - step != i - step and tokens[j - step].kind == "p":
            j -= step
        return j

    def _particles_then_name(self, tokens: list[Token], j: int) -> int:
        """Index of the surname after one or two particles from token j on its line ("van der berg", "de la cruz"),
        or 0."""
        k = j
        while k < len(tokens) and k - j < 2 and tokens[k].key in _PARTICLES and (k == j or not tokens[k].first) \
                and (k == j or tokens[k].start - tokens[k - 1].end <= 1):
            k += 1
        if k == j or k >= len(tokens) or tokens[k].first or tokens[k].kind != "w" \
                or tokens[k].start - tokens[k - 1].end > 1 or tokens[k].key in _PARTICLES \
                or not self.name_like(tokens[k], 1):
            return 0
        return k

    def _surname_unlisted(self, tok: Token) -> bool:
        """A word of five letters or more that no list knows, in capitals or capitalised: after a credential
        ("BY NP DELACROIX") a surname the census lists miss, not shorthand ("NP NOTE" is a word, "NP RECS" short)."""
        return len(tok.key) >= 5 and self.tier(tok, Slips.FREQUENT) == Ambiguity.NAME_ONLY \
            and not self.words.is_shorthand(tok.key) \
            and tok.key not in self.words.abbreviations and not verb_shaped(tok.key) \
            and (tok.text.isupper() or tok.text[:1].isupper() or not tok.cased)

    def _verb_like(self, tokens: list[Token], j: int) -> bool:
        """A clinical word without a capital that the sentence goes on after ("gave list", "will call")."""
        tok = tokens[j]
        return self.tier(tok) == Ambiguity.CLINICAL and not (tok.cased and tok.text[:1].isupper()) \
            and j + 1 < len(tokens) and tokens[j + 1].kind == "w" and not tokens[j + 1].first

    def _street_name_word(self, tok: Token) -> bool:
        """A word that can stand before a street suffix: not punctuation, a letter ("d/w dr pike": discussed with), a
        cue, a stopword or clinical."""
        return tok.kind == "w" and len(tok.key) > 1 and tok.key not in self._never_names \
            and self.tier(tok) != Ambiguity.CLINICAL

    def _dictionary_name(self, tokens: list[Token], i: int) -> int:
        """End of a name found by the dictionaries alone at token i (a first name + surname, or one word)."""
        tok, words = tokens[i], self.words
        if not self.name_like(tok, 2) or (tok.cased and tok.text.isupper() and len(tok.text) <= 4):
            return i  # a short capitalised word on a mixed-case line is an abbreviation (TIA, EMG)
        if i > 1 and tokens[i - 1].text == "(" and tokens[i - 2].key in self._eponyms.followers \
                and tokens[i - 2].key != "law":  # not "SON-IN-LAW (HAROLD)"
            return i  # "DRAIN (BLAKE)", "incision (mercedes)": the device's or the cut's eponym in brackets
        if i > 1 and tokens[i - 1].text == "-" and tokens[i - 2].kind == "d" \
                and tokens[i - 2].end == tokens[i - 1].start and tokens[i - 1].end == tok.start:
            return i  # "FOLEY (3-WAY", "4-POINT RESTRAINTS": a count's noun, not a name
        saint = i - 1 - (i > 1 and tokens[i - 1].text == ".")
        if i and tokens[saint].key in name_words.SAINT_WORDS:
            return i  # "ST JUDE MECH", "St. John's wort", "STATUE OF SAN LAZARO", "the virgin mary": a saint's name
            # is a place's or a thing's
        if tok.first and i + 1 < len(tokens) and tokens[i + 1].text == ":" and tok.key not in words.first_names:
            return i  # "País:", "Medico:" opening a line is a field label; speakers ("Martha:") are first names
        j = i + 1
        if j + 1 < len(tokens) and len(tokens[j].text) == 1 and tokens[j].kind == "w":
            j += 2 if tokens[j + 1].text == "." else 1  # middle initial
        sure_first = tok.key in words.first_names and self.tier(tok) == Ambiguity.NAME_ONLY
        if j < len(tokens) and tok.key in words.first_names and self.name_like(tokens[j], 1 if sure_first else 2) \
                and tokens[j].key in words.surnames and tokens[j].start - tokens[j - 1].end <= 2:
            if self._town_and_state(tokens, i, j):
                return i  # "LIVES IN LYNN MA", "son in quincy ma": the town rule types the town, the state is none
            tiers = (self.tier(tok), self.tier(tokens[j]))
            if tiers[1] == Ambiguity.CLINICAL and tokens[j].key in self._eponyms.followers \
                    and not (tokens[j].cased and tokens[j].text[:1].isupper()) and not self.not_eponym(tokens, j):
                return i  # "OUTPUT AMT-BLAKE DRAIN", "S/P GRAHAM PATCH": the eponym and what it names, though the
                # second word is a surname too
            if (sure_first and not self._verb_like(tokens, j)) or max(tiers) < Ambiguity.CLINICAL \
                    or (tok.cased and min(tiers) < Ambiguity.CLINICAL):  # "yvonne gave list": not "Yvonne Gave"
                return j + 1 if self.not_eponym(tokens, j + 1) else i
        tier = self.tier(tok)
        if j < len(tokens) and self._surname_after(tokens, i, j):
            return j + 1
        pair_end = self._unknown_pair(tokens, i, j)
        if pair_end > i:
            return pair_end
        if not words.is_name(tok.key) or not self.not_eponym(tokens, i + 1):
            return i
        if self._country_after_a_town(tokens, i):
            return i  # "moved to lisbon, portugal", "FROM PONCE, PUERTO RICO": a country after its town, whatever
            # surname it is too
        if tok.key in words.cities and i and tokens[i - 1].key in self.rules.words("place_cues"):
            return i  # "from Springfield": the city rule types it
        if tier == Ambiguity.NAME_ONLY and (len(tok.key) >= 4 or (tok.cased and len(tok.key) >= 3)
                                            or (tok.key in words.first_names and len(tok.key) >= 3)):
            return i + 1
        if tier == Ambiguity.EVERYDAY and tok.cased and not tok.text.isupper() and not self.sentence_start(tokens, i):
            return i + 1
        return i

    def _country_after_a_town(self, tokens: list[Token], i: int) -> bool:
        """Whether token i is a word of a country written after a comma and a town ("moved to lisbon, portugal",
        "PONCE, PUERTO RICO"), with no postcode after it (an address keeps its country: "ARNSDORF, GERMANY 01477");
        on a line with case only after a place cue ("Arnsdorf, Germany" alone may be an address's last line)."""
        words = self.words
        if tokens[i].key not in words.country_words:
            return False
        c = i - 1
        while c > 0 and tokens[c].key in words.country_words and i - c < 3:
            c -= 1
        if c < 1 or tokens[c].text != "," or tokens[c - 1].kind != "w" \
                or (tokens[i].cased and (c < 2 or tokens[c - 2].key not in self.rules.words("place_cues"))):
            return False
        end = i + 1
        while end < len(tokens) and tokens[end].key in words.country_words and end - i < 3:
            end += 1
        return end >= len(tokens) or tokens[end].kind != "d" or len(tokens[end].text) < 4

    def _town_and_state(self, tokens: list[Token], i: int, j: int) -> bool:
        """Whether a first name and a surname at i and j are a town and its state's postal code after a place cue
        ("LIVES IN LYNN MA", "from florence ma"): a town named like a person, a state code that is a surname too."""
        state = tokens[j]
        return j == i + 1 and i > 0 and state.key in STATE_CODES_AFTER_A_TOWN \
            and (not state.cased or state.text.isupper()) and tokens[i].key in self.words.cities \
            and tokens[i - 1].key in self.rules.words("place_cues") and not tokens[i].first

    def _surname_after(self, tokens: list[Token], i: int, j: int) -> bool:
        """A first name (or any name word before an initial) followed by a surname no list holds:
        "Gregory Kudryashov", "olga krylova", "Daniela C Capon", "emidio p lombardo"."""
        tok, nxt, words = tokens[i], tokens[j], self.words
        if nxt.kind != "w" or nxt.key in self.non_names or nxt.start - tokens[j - 1].end > 2 or len(nxt.key) < 3 \
                or not self.not_eponym(tokens, j + 1):
            return False
        initial = j > i + 1
        if initial and tokens[i + 1].key in ("a", "i", "o"):
            return False  # "tell dax a little": English words, not an initial
        first = tok.key in words.first_names
        if not (first or (initial and (words.is_name(nxt.key) or self.tier(tok) == Ambiguity.NAME_ONLY))):
            return False
        if tok.cased and not tok.text.isupper():
            return nxt.text[0].isupper() and not nxt.text.isupper() and (
                initial or self.tier(nxt) == Ambiguity.NAME_ONLY)
        unusual = self.tier(nxt) == Ambiguity.NAME_ONLY or (
            initial and words.is_name(nxt.key) and self.tier(nxt) < Ambiguity.CLINICAL)
        return unusual and self.tier(tok) == Ambiguity.NAME_ONLY

    def _unknown_pair(self, tokens: list[Token], i: int, j: int) -> int:
        """End of two capitalised words that are neither English nor clinical ("Ubul Csonka"), or i."""
        tok = tokens[i]
        if j >= len(tokens) or not (tok.cased and tok.text[0].isupper() and not tok.text.isupper()):
            return i
        nxt = tokens[j]
        if not (nxt.kind == "w" and nxt.cased and nxt.text[0].isupper() and not nxt.text.isupper()
                and nxt.start - tokens[j - 1].end <= 2 and self.name_like(nxt, 2)):
            return i
        unusual = all(self.tier(t) == Ambiguity.NAME_ONLY and t.key not in self.words.cities
                      for t in (tok, nxt)) or (  # "Trainsairzi Hitchcock": a first name no list holds
            self.tier(tok) == Ambiguity.NAME_ONLY and not self.words.is_name(tok.key)
            and tok.key not in self.words.cities and nxt.key in self.words.surnames)
        return j + 1 if unusual and len(tok.key) >= 3 and self.not_eponym(tokens, j + 1) else i

    @staticmethod
    def sentence_start(tokens: list[Token], i: int) -> bool:
        """Whether token i opens a sentence or a line."""
        return i == 0 or tokens[i].first or tokens[i - 1].text in SENTENCE_END

    def not_eponym(self, tokens: list[Token], end: int) -> bool:
        """False when the words after a candidate make it a medical eponym (Foley catheter, Bell's palsy)."""
        return self._eponyms.not_eponym(tokens, end)
