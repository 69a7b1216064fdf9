"""Names found by a cue word: a title ("DR PIKE"), a label ("PT: ..."), a relation ("SON TOM"), a credential before or
after ("NP HEATHER DOYLE", "SUJAI PARISH, RN"), a greeting or a naming verb; between cues, the dictionary pass of
NameRules. The name words themselves are tested in names.py.
"""

from __future__ import annotations

from medhelm_local.redact import name_words
from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.mentions import with_other_mentions
from medhelm_local.redact.name_words import REPORTED, TEAMS
from medhelm_local.redact.names import NameRules
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.types import Span

# Words that grade a valve's leak before "MR" (mitral regurgitation, not a title): "TRACE MR.", "MOD MR".
_SEVERITY = frozenset({"trace", "mild", "mod", "moderate", "severe", "sev", "min", "minimal", "significant", "new",
                       "worsening", "worse", "functional", "ischemic", "no", "residual", "torrential",
                       "1", "2", "3", "4"})


def after_with(tokens: list[Token], i: int) -> bool:
    """Whether token i follows "w/", "with" or "per" on its line."""
    if not i or tokens[i].first:
        return False
    if tokens[i - 1].key in ("with", "per"):
        return True
    return i >= 2 and tokens[i - 1].text == "/" and tokens[i - 2].key == "w" and not tokens[i - 1].first


def _shorthand_letter(tokens: list[Token], a: int, b: int) -> bool:
    """Whether a name found is one letter that is shorthand: joined by "&" or "+" to another letter ("PER S&S", "L&D
    RN", "L+D"), or a Child-Pugh class ("CHILD C")."""
    if b != a + 1 or len(tokens[a].text) != 1:
        return False
    if a >= 2 and tokens[a - 1].text in "&+" and len(tokens[a - 2].text) == 1 \
            and tokens[a - 2].end == tokens[a - 1].start == tokens[a].start - 1:
        return True
    if a + 2 < len(tokens) and tokens[a + 1].text in "&+" and len(tokens[a + 2].text) == 1 \
            and tokens[a].end == tokens[a + 1].start == tokens[a + 2].start - 1:
        return True
    return a >= 1 and tokens[a - 1].key in ("child", "childs", "child's") and tokens[a].key in ("a", "b", "c")


class CueNameRules(NameRules):
    """The cue pass of the name rules; the place rules and the detector build on it."""

    @staticmethod
    def _pulmonary_artery(tokens: list[Token], i: int, j: int) -> bool:
        """Whether "pa" at i is the pulmonary artery: its pressures after it ("pa 58/30"; not a PA's pager, "JEN PA
        41234"), or a side before it ("SWAN IN R PA"); or, after a "t", the clot-busting drug ("GIVEN T PA AT OSH")."""
        if tokens[i].key != "pa":
            return False
        side = j > 0 and j == i and tokens[j - 1].key in ("r", "l", "t") and not tokens[i].first
        pressure = i + 2 < len(tokens) and tokens[i + 1].kind == "d" and not tokens[i + 1].first \
            and tokens[i + 2].text == "/" and tokens[i + 2].start == tokens[i + 1].end
        return side or pressure

    def _names(self, tokens: list[Token]) -> list[Span]:
        """Names after a cue (a title, a label, a relation, a credential, a greeting, a naming verb) and, between
        cues, names the dictionaries find alone, with their other mentions."""
        found: list[tuple[int, int]] = []
        memo = self._name_like_memo  # most words are known not to be names: no call for them (name_like's memo)
        i = 0
        speech_end = -1  # the end of words quoted as said: the dictionaries alone name no one there
        while i < len(tokens):
            if tokens[i].text == '"' and self._quoted_speech(tokens, i):
                speech_end = _past_quote(tokens, i + 1)  # 'GREETED EVERYONE "TENA YISTILIGN"', '"GRAZIE MILLE"'
            cue = self.cue_at(tokens, i) if tokens[i].kind == "w" and tokens[i].key in self._phrase_index else None
            if cue is None or cue[0] == "facility_words":
                tok = tokens[i]
                end = i if tok.kind != "w" or memo.get((tok.text, tok.cased, 2)) is False \
                    else self._dictionary_name(tokens, i)
                if end > i and not (i < speech_end and (end == i + 1 or tok.key not in self.words.first_names)):
                    # in speech, only a first name and a surname ('"JOHN SMITH IS HCP"')
                    found.append((i - 1 if self._capitalised_first_before(tokens, i) else i, end))
                i = max(end, i + 1)
                continue
            kind, length = cue
            k = i + length
            skip = name_words.SKIP_AFTER_CUE[kind]
            while k < len(tokens) and tokens[k].text in skip and k - i - length < 3:
                k += 1
            if kind == "name_verbs" and self._names_a_thing(tokens, i):
                i += length
                continue  # "A PROTEIN CALLED BESTROPHIN", "THIS IS CALLED TONOMETRY": a thing's name, not a person's
            if kind == "name_verbs" and tokens[i].key in name_words.SPEECH_VERBS \
                    and any(t.text == '"' for t in tokens[i + length:k]):
                speech_end = _past_quote(tokens, k)
                i = k
                continue  # 'WIFE SAYS "MÈSI" TO EVERYONE', 'said "inshallah"': what was said, in quotes, not who
            if kind == "credentials" and tokens[i].key == "do" and not tokens[i].cased and i + 1 < len(tokens) \
                    and not tokens[i + 1].first and tokens[i + 1].kind == "w":
                i += length
                continue  # "FOLEY (3-WAY, DO NOT IRRIGATE)": the verb, not a doctor of osteopathy
            if kind == "credentials":
                nxt = tokens[k] if k < len(tokens) and not tokens[k].first else None
                if nxt is not None and self.name_like(nxt, 1) and self.tier(nxt) != Ambiguity.CLINICAL and (
                        self.words.is_name(nxt.key) or (tokens[i].key in name_words.NAMING_CREDENTIALS
                                                        and self._surname_unlisted(nxt))):
                    end = self._run(tokens, k, 1)  # "NSURG NP HEATHER DOYLE": a role before a name
                    found.append((k, end))
                    i = end
                    continue
                j = i - 1 if i and tokens[i - 1].text == "," else i
                if j > 0 and tokens[j - 1].key in name_words.ROLE_WORDS:
                    i += length
                    continue  # "GINA (NIGHT RN)", "charge rn": which nurse, not who
                ends_line = i + length >= len(tokens) or tokens[i + length].first
                reported = not ends_line and tokens[i + length].key in REPORTED and j > 0 \
                    and tokens[j - 1].key in self.words.first_names \
                    and self.tier(tokens[j - 1]) != Ambiguity.CLINICAL  # "sue rn notified", not "heparin held rn
                # aware" nor "started on peg, rn aware" (a first name that is a clinical word, before a credential)
                if self._done_before_credential(tokens, j):
                    i += length
                    continue  # "HEPARIN HELD RN AWARE", "NOT YET GIVEN, RN AWARE": what was done, then who was told
                if self._pulmonary_artery(tokens, i, j):
                    i += length
                    continue  # "SWAN IN R PA", "ra 18, pa 58/30": the artery and its pressure, not a PA
                if self._clause_after_credential(tokens, i, j, length):
                    i += length
                    continue  # "INDEPENDENT W/ WALKER, RN SUPERVISING": a thing, then a clause the nurse opens
                if j > 0 and (tokens[i].text.isupper() or tokens[i].cased or ends_line or reported):  # "k lee rn"
                    start = self._run(tokens, j - 1, 1, -1)  # "SUJAI PARISH, RN": the credential vouches
                    slashed = start == j - 2 and len(tokens[j - 1].text) == 1 and tokens[start].text == "/"
                    if start < j - 1 and self.not_eponym(tokens, j) and not slashed:  # "D/W NP", "W/ MD"
                        found.append((_with_initial(tokens, start + 1), j))
                i += length
                continue
            if kind == "name_labels" and tokens[i].key == "pt" and after_with(tokens, i):
                i += length
                continue  # "AMBULATED W/ PT, WALKER", "w/ pt (walker)": with physical therapy, not the patient's name
            colon = any(t.text == ":" for t in tokens[i + length:k])
            if kind == "name_labels" and tokens[i].cased and any(t.text == "." for t in tokens[i + length:k]) \
                    and k < len(tokens) and tokens[k].text[:1].isupper():
                i += length
                continue  # "No LOC per pt. Head CT neg.": a sentence ends after the label
            if kind == "name_labels" and not colon and k < len(tokens) and len(tokens[k].key) >= 4 \
                    and tokens[k].start - tokens[k - 1].end <= 2:
                end = self._run(tokens, k, 3)  # "PT KAVERI ACHTERBERG ADMITTED": only words that are nothing else
                if end > k and self.not_eponym(tokens, end):
                    found.append((k, end))
                    i = end
                    continue
            if kind == "name_labels" and (not colon or any(t.key in STOPWORDS for t in tokens[k:k + 4])):
                i += length
                continue
            if kind == "titles_abbrev" and k < len(tokens) and tokens[k].first and not tokens[i].cased:
                i += length
                continue  # "HR 60S SR.\nRESP: 2L NC": sinus rhythm ends its line; no name starts the next one
            if kind == "titles_abbrev" and tokens[i].key == "mr" and i and not tokens[i].first \
                    and (tokens[i - 1].key in _SEVERITY or tokens[i - 1].text == "+"):
                i += length
                continue  # "TRACE MR. R FEM SITES", "2+ MR": mitral regurgitation, graded
            if kind == "titles_abbrev" and tokens[i].key in ("ms", "mr") and tokens[i].cased \
                    and tokens[i].text.isupper() and k < len(tokens) and not self.words.is_name(tokens[k].key):
                i += length
                continue  # "forms of MS. Tests to check", "severe MR. Currently": multiple sclerosis or mitral
                # regurgitation closing a sentence in a text with case, where the title is written "Ms."
            if kind == "titles_word" and tokens[i].key in self._relations:
                kind = "relations"  # "Her father, Chiamaka Bolt", "her brother Lane": a relation, not a priest
                k += k < len(tokens) and tokens[k].text == ","
            level = 0 if kind == "titles_abbrev" else 1 if kind in ("name_labels", "greetings") else 2
            if kind == "titles_abbrev" and tokens[i].key == "sr" and not tokens[i].cased:
                level = 2  # "HR 70S SR. ECHO: LVH", "SINCE SR STABLE": sinus rhythm; a sister needs a name ("SR MARY")
            if kind == "titles_abbrev" and not tokens[k - 1].text == "." and k < len(tokens) and not tokens[k].cased \
                    and i and not tokens[i].first and self._street_name_word(tokens[i - 1]):
                level = 2  # "willow dr last month": after a word that can name a street, "dr" may be its suffix
            if kind == "relations" and k < len(tokens) and tokens[k].cased and tokens[k].text[:1].isupper():
                level = 1  # "her brother Lane": a capital after a relation outweighs the street suffix
            if kind == "greetings" and k < len(tokens) and not tokens[k].cased and self._weak_after_greeting(tokens[k]):
                i += length
                continue
            end = self._run(tokens, k, level)
            if end > k and kind == "name_labels" and colon and self._label_word_goes_on(tokens, k, end):
                i += length
                continue  # "by fellow: small residual effusion", "FELLOW: PEAK GRADIENT 92", "TECH: R MCA 110"
            if end == k and kind == "titles_abbrev" and self._short_surname_after_dr(tokens, i, k):
                end = k + 1  # "per dr mas.", "(DR. OH)", "w/ dr. lo in 4 wks"
            if end > k and kind != "titles_abbrev" and end < len(tokens) and tokens[end].key in TEAMS \
                    and not tokens[end].first and tokens[end - 1].text[-1:].isalpha():
                i += length
                continue  # "per eve team", "per pah team": a team named by its shift or its specialty
            if end > k and (level == 0 or self.not_eponym(tokens, end)):
                found.append((k, end))
                i = end
                continue
            if kind == "relations" and i >= 2 and tokens[i - 1].text == "(":
                start = self._run(tokens, i - 2, 2, -1)
                if start < i - 2:
                    found.append((start + 1, i - 1))
            i += length
        return with_other_mentions(self, tokens, [f for f in found if not _shorthand_letter(tokens, *f)])

    def _capitalised_first_before(self, tokens: list[Token], i: int) -> bool:
        """Whether the word just before a name found at token i is a first name written with a capital on a line with
        case, which a clinical list holds too ("Mae Smith", "Elisa Jones", "Bari Klein"): there the capital says it
        begins the name ("MAE" in capitals, and every word on a line without case, stays what the list says)."""
        if i == 0 or tokens[i].first:
            return False
        prev, tok = tokens[i - 1], tokens[i]
        return prev.kind == "w" and prev.cased and len(prev.text) > 1 and prev.text[0].isupper() \
            and prev.text[1:].islower() and tok.text[:1].isupper() and tok.start - prev.end == 1 \
            and prev.key in self.words.first_names and prev.key in self.words.clinical_terms \
            and prev.key not in self._never_names and prev.key not in self._relations

    def _names_a_thing(self, tokens: list[Token], i: int) -> bool:
        """Whether "called" or "known as" at token i names a thing: the word before it on its line, past "also", "is"
        and the like, is neither a person nor a name ("A PROTEIN CALLED BESTROPHIN", "MERCURY (CALLED THIMEROSAL)",
        "THIS IS CALLED TONOMETRY", "ALSO KNOWN AS ADRENOMYELONEUROPATHY"); "PT CALLED", "DR LEE CALLED", "SON
        CALLED" and "PT IS KNOWN AS BUD" still name whoever follows."""
        if tokens[i].key not in _THING_NAMING or tokens[i].first:
            return False
        j = i - 1
        while j > 0 and not tokens[j].first and tokens[j].key in _NAMING_FILLERS:
            j -= 1
        word = tokens[j]
        if word.key in _THING_PRONOUNS:
            return True
        if word.kind != "w" or word.key in _PEOPLE or word.key in self._relations or word.key in self._titles \
                or word.key in self._credentials or word.key in name_words.ROLE_WORDS \
                or word.key in self.rules.words("name_labels"):
            return False
        return self.tier(word) == Ambiguity.CLINICAL or (not self.words.is_name(word.key)
                                                          and self.tier(word) != Ambiguity.NAME_ONLY)

    def _quoted_speech(self, tokens: list[Token], i: int) -> bool:
        """Whether the quote at i opens two words or more on a line without case, after no word that names or nicknames
        a person ("CALLS HIM", "goes by", "aka", a relation): a phrase someone said."""
        before = {t.key for t in tokens[max(0, i - 2):i]}
        if i + 1 >= len(tokens) or tokens[i + 1].cased or tokens[i + 1].start != tokens[i].end \
                or before & _NAMING_BEFORE_A_QUOTE or (i and tokens[i - 1].key in self._relations):
            return False
        end = _past_quote(tokens, i + 1)
        return end > i + 1 and sum(t.kind == "w" for t in tokens[i + 1:end]) >= 2

    def _label_word_goes_on(self, tokens: list[Token], k: int, end: int) -> bool:
        """Whether the one word after a label and its colon, on a line without case, begins what was found rather
        than naming who found it: a lone letter ("TECH: R MCA 110"), a short word before a number ("fellow: ra 18"),
        or an English word the sentence goes on from ("fellow: small residual effusion")."""
        tok = tokens[k]
        if end != k + 1 or tok.cased or k + 1 >= len(tokens) or tokens[k + 1].first:
            return False
        nxt = tokens[k + 1]
        if len(tok.key) == 1:
            return nxt.text != "."
        if nxt.kind == "d":
            return len(tok.key) <= 2
        return nxt.kind == "w" and tok.key in self.words.everyday and tok.key not in self.words.first_names \
            and nxt.key not in REPORTED and not self.words.is_name(nxt.key) \
            and (nxt.key in self.words.everyday or nxt.key in self.words.clinical)

    def _short_surname_after_dr(self, tokens: list[Token], i: int, k: int) -> bool:
        """A word of two or three letters after "dr" that closes a phrase ("per dr mas.", "(DR. OH)", "f/u w/ dr. lo in
        4 wks"), on a line without case: a short surname, whatever word it is in English or Spanish too; not
        shorthand or an English function word ("DR ON CALL", "dr ok")."""
        if tokens[i].key != "dr" or k >= len(tokens):
            return False
        tok = tokens[k]
        if tok.cased or tok.kind != "w" or tok.first or not 2 <= len(tok.key) <= 3 or not tok.text.isalpha() \
                or tok.key in _SHORT_ENGLISH or tok.key in self._titles or tok.key in self._credentials \
                or self.words.is_shorthand(tok.key):
            return False
        nxt = tokens[k + 1] if k + 1 < len(tokens) else None
        return nxt is None or nxt.first or nxt.text in ").,;" or nxt.key in ("in", "at")

    def _clause_after_credential(self, tokens: list[Token], i: int, j: int, length: int) -> bool:
        """On a line without case, one clinical word, a comma, then a credential that opens a clause on the same line
        ("W/ WALKER, RN SUPERVISING", "HOLDING HAND, RN STAYED", "MARKED W/ PEN, NP AWARE"): the word ends what came
        before, and the credential names no one. A name clinical text does not write ("JEN, RN AWARE", "BAKER, RN")
        and a run of names ("J. WALKER, RN SEES PT") still name the nurse; so does a signature ending its line
        ("S. WALKER, RN")."""
        word, after = tokens[j - 1], i + length
        return j == i - 1 and not word.cased and self.tier(word) == Ambiguity.CLINICAL \
            and self._run(tokens, j - 1, 1, -1) == j - 2 \
            and after < len(tokens) and not tokens[after].first and tokens[after].kind == "w"

    def _done_before_credential(self, tokens: list[Token], j: int) -> bool:
        """On a line without case, a clinical word before a credential ("HELD", "GIVEN", "LOW") is what was done
        when a known word that is no name stands before it on its line ("HEPARIN HELD RN AWARE", "LASIX GIVEN MD
        AWARE"); "ANN WHITE RN", "SUJAI PARISH RN", "-STONE RN" and "REPORT TO HOPE RN" still name a nurse."""
        word = tokens[j - 1]
        if word.cased or word.first or j < 2 or self.tier(word) != Ambiguity.CLINICAL:
            return False
        prev = tokens[j - 2]
        return prev.kind == "w" and not self.words.is_name(prev.key) and self.tier(prev) != Ambiguity.NAME_ONLY \
            and prev.key not in name_words.BEFORE_A_NURSE

    def _weak_after_greeting(self, tok: Token) -> bool:
        """On a line without case, "hi , good to see you", "i'm feeling": a common word, not a first name."""
        return tok.key not in self.words.first_names and self.tier(tok) != Ambiguity.NAME_ONLY


# Naming verbs that name things as often as people ("A PROTEIN CALLED BESTROPHIN", "ALSO KNOWN AS AMN"), the words
# that may stand between the thing and the verb ("IS ALSO CALLED", "(CALLED THIMEROSAL)", "COLLECTIVELY KNOWN AS"),
# words that stand for a thing before them ("THIS IS CALLED TONOMETRY") and words for a person, whom the verb names
# ("A MAN CALLED OVE", "HE IS KNOWN AS BUD", "PREFERS TO BE CALLED BUD").
_THING_NAMING = frozenset({"called", "known"})
_NAMING_FILLERS = frozenset({"also", "sometimes", "often", "commonly", "usually", "now", "previously", "formerly",
                             "collectively", "generally", "otherwise", "simply", "is", "are", "was", "were", "be",
                             "being", "been", "(", ","})
_THING_PRONOUNS = frozenset({"this", "it", "that", "which", "these", "those", "what", "they're", "it's"})
_PEOPLE = frozenset({"he", "she", "they", "who", "i", "we", "you", "someone", "somebody", "everyone", "family", "man",
                     "woman", "men", "women", "boy", "girl", "lady", "gentleman", "guy", "person", "people", "child",
                     "baby", "infant", "himself", "herself", "one", "team", "staff", "pts", "patients", "name",
                     "nickname", "friend", "neighbor", "neighbour", "roommate", "caregiver", "visitor", "visitors",
                     "to", "prefers", "likes", "wants", "wishes", "asks", "asked", "insists", "preferred"})

# Words before a quoted name or nickname: 'CALLS HIM "JIMMY"', 'goes by "ti-jean"', 'aka "bud"', 'named "gus"',
# 'calls herself "bunny"'.
_NAMING_BEFORE_A_QUOTE = frozenset({"calls", "called", "call", "by", "aka", "nickname", "nicknamed", "named", "as",
                                    "to", "him", "her", "himself", "herself", "name", "is"})


def _past_quote(tokens: list[Token], k: int) -> int:
    """The index past the closing quote of words quoted from token k on, on their line (within eight tokens), or k."""
    for j in range(k, min(len(tokens), k + 8)):
        if j > k and tokens[j].first:
            break
        if tokens[j].text == '"':
            return j + 1
    return k


def _with_initial(tokens: list[Token], start: int) -> int:
    """`start`, or the index of an initial just before it on its line ("J. MILLER", "k lee"); a letter that ends a
    word is none ("NEURO CHECKS Q1H. NANCY B, RN": the hour of "q1h")."""
    j = start - 1 if start and tokens[start - 1].text == "." else start
    if j and len(tokens[j - 1].text) == 1 and tokens[j - 1].kind == "w" and not tokens[start].first \
            and tokens[start].start - tokens[j - 1].end <= 3 \
            and (j < 2 or tokens[j - 1].first or tokens[j - 2].kind == "p" or tokens[j - 2].end < tokens[j - 1].start):
        return j - 1
    return start


# English words of two or three letters that follow "dr" in a sentence, not as a surname ("DR ON CALL", "dr ok.").
_SHORT_ENGLISH = frozenset("""on in at to is am pm ok me us we he it of or an as be by do go no so up and the for was
are has had his her its not but all can did may saw see yes who how now out off per too yet due new old our any
via""".split())
