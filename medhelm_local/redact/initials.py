"""Initials that stand for a nurse or a doctor in notes: a line of initials signing the note ("KJB",
"jrh/rn", "AB/cd", "-DS" on a note's last line), and two or three letters right after a word that hands
something to a person ("per JM,", "d/w kl (charge rn)", "spoke w/ rk re: heparin", "checked with JK.").
Letters that clinical shorthand explains stay shorthand unless the note ends on them alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.inhouse import InHouseRules
from medhelm_local.redact.name_words import DOTTED_WORDS
from medhelm_local.redact.regex_starts import matches_at
from medhelm_local.redact.tokens import STOPWORDS, Token
from medhelm_local.redact.types import PhiType, Span

_LINE_INITIALS = re.compile(
    r"(?m)^[ \t]*(-{0,2})[ \t]*([A-Za-z]{2,4})(?:[ \t]*/[ \t]*([A-Za-z]{2,3}))?"
    r"(?:[ \t]*[/,]?[ \t]*(?:rn|md|np|pa|rrt|lpn|sn))?[ \t]*$", re.IGNORECASE)
# Initials after a dash closing a note's last sentence: "WILL CONT TO MONITOR. -JT", "see flowsheet.  --kb"
_TRAILING_INITIALS = re.compile(
    r"(?m)(?<=[.!)][ \t])[ \t]{0,2}(-{1,2})[ \t]?([A-Za-z]{2,3})()(?:[ \t]{1,2}(?:rn|RN|md|MD|np|NP|rrt|RRT))?[ \t]*$")
_TRAILING_GATE = re.compile(r"[.!)][ \t]{1,3}-")
# Dotted initials after a dash closing a note's last sentence: "READY FOR AM. -- j.p.", "gas. -- c.o'b rn".
_TRAILING_DOTTED = re.compile(
    r"(?m)(?<=[.!)][ \t])[ \t]{0,2}-{1,2}[ \t]?((?:[A-Za-z]\.[ \t]?){1,2}[A-Za-z](?:['’][A-Za-z]{1,2}|\.)?)"
    r"(?:[ \t,]{1,2}(?:rn|RN|md|MD|np|NP|rrt|RRT))?[ \t]*$")
_NEWLINE = re.compile("\n")
# A line that is only dotted initials, after the note's first line: "t.r.", "-J.M.K." signing the note.
_DOTTED_LINE = re.compile(r"(?m)^[ \t]*-{0,2}[ \t]*((?:[A-Za-z]\.[ \t]?){1,2}[A-Za-z]\.?)[ \t]*$")
# A line that is only a first name and an initial, perhaps a credential, after the note's first line: "CAROL B",
# "meg o. rn" signing the note.
_NAME_INITIAL_LINE = re.compile(r"(?m)^[ \t]*-{0,2}[ \t]*([A-Za-z]{2,12}[ \t]{1,2}[A-Za-z]\.?)"
                                r"(?:[ \t,]{1,3}(?:rn|RN|md|MD|np|NP|rrt|RRT|lpn|LPN))?[ \t]*$")
# A line after the note's first that is an initial and a surname, perhaps a credential: "A. LACHANCE", "--f. quintal",
# "R. ST. PIERRE RN" signing the note.
_INITIAL_NAME_LINE = re.compile(
    r"(?m)^[ \t]*-{0,2}[ \t]*([A-Za-z]\.[ \t]?(?:(?:st|ST|St)\.?[ \t])?[A-Za-z][A-Za-z'’-]{1,20})"
    r"(?:[ \t,]{1,3}(?:rn|RN|md|MD|np|NP|rrt|RRT|lpn|LPN))?[ \t]*$")
# The note's last line when it is one word, perhaps after a dash: "aisling", "-deb", "VINNY" signing the note.
_LAST_WORD_LINE = re.compile(r"\n[ \t]*-{0,2}[ \t]*([A-Za-z][A-Za-z'’-]{1,14})[ \t]*\s*\Z")
# Words after which two or three letters name who was told or who decided: "per JM", "d/w kl", "spoke w/ rk".
_HANDED_TO = frozenset({"per", "d/w", "spoke w/", "spoke with", "spoke to", "checked with", "discussed with",
                        "reported to", "report to", "report given to", "endorsed to", "signed out to", "notified",
                        "paged", "informed", "verified with", "double checked with", "co-signed by", "cosigned by",
                        "witnessed by", "relieved by", "handed off to", "d/w'd", "discussed w/", "reviewed with",
                        "reviewed w/", "verified w/", "checked w/", "double checked w/", "phone to"})
# What may follow such initials: a stop, a bracket, a credential, "re:", or the news itself.
_AFTER_HANDED = frozenset({",", ".", ";", ":", "(", ")", "-", "re", "regarding", "about", "aware", "and", "who", "at"})
_CREDENTIAL_AFTER = frozenset({"rn", "md", "np", "pa", "rrt", "lpn", "rt", "cm", "sw", "do"})
# Letters after "per" or "d/w" that name a team, a role or an order, not a person: "per GI", "d/w NS", "per OR".
_TEAMS = frozenset("""md np pa pt ot rt sw cm rn gi id er ed or ct ir ep hd pd ns lr iv po ng og ob uf ua us tf ms
ad bp hr rr dr ho ac pc am pm em ep ent ems ic cs""".split())  # ic: infection control; cs: cardiac surgery


class InitialsRules(InHouseRules):
    """Initials signing a note and initials after a word that hands something to a person."""

    def _initials(self, text: str, tokens: list[Token]) -> list[Span]:
        """Both kinds of initials as NAME spans."""
        return self._initials_lines(text, tokens) + self._initials_after_cue(tokens) + _dotted_lines(text) \
            + self._name_initial_lines(text) + self._signature_lines(text)

    def _signature_lines(self, text: str) -> list[Span]:
        """A line after the note's first that is an initial and a surname ("A. LACHANCE", "--f. quintal"), and a
        note's last line that is one first name ("aisling", "-deb"): the nurse signing. The surname is no clinical
        word, and the first name no clinical word either ("PLAN", "STABLE" end notes too)."""
        spans = []
        if "." in text:
            for m in _INITIAL_NAME_LINE.finditer(text):
                surname = re.split(r"[ .\t]+", m.group(1))[-1].lower()
                if m.start() and text[:m.start()].strip() and surname not in self.words.clinical \
                        and surname not in self.words.clinical_terms and surname not in DOTTED_WORDS:
                    spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
        last = _LAST_WORD_LINE.search(text)
        if last is not None:
            word = last.group(1).lower()
            tier = self.words.ambiguity(word)
            if (word in self.words.first_names or (tier == Ambiguity.NAME_ONLY and len(word) >= 3)) \
                    and word not in self.words.clinical_terms and tier != Ambiguity.CLINICAL \
                    and not self.words.is_shorthand(word):
                spans.append(Span(last.start(1), last.end(1), PhiType.NAME))
        return spans

    def _name_initial_lines(self, text: str) -> list[Span]:
        """A line after the note's first that is only a first name and an initial ("CAROL B", "meg o. rn"): the nurse
        signing; the first name must be one the census lists and no clinical word ("PLAN B", "HEP C" are not)."""
        spans = []
        for m in _NAME_INITIAL_LINE.finditer(text):
            first = m.group(1).split()[0].lower()
            if m.start() and text[:m.start()].strip() and first in self.words.first_names \
                    and first not in self.words.clinical and first not in self.words.clinical_terms:
                spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
        return spans

    def _initials_lines(self, text: str, tokens: list[Token]) -> list[Span]:
        """A line that is only initials ("KJB", "jrh/rn", "AB/cd") after the first line: the nurse signing. On a
        note's last line, or after a dash, letters that are also shorthand ("CM", "-DS") sign it too."""
        spans: list[Span] = []
        # `^` matches only where a line starts: the regex is tried there, not at every character; the trailing
        # form holds a stop, a space and a dash, which a search jumping to the stops finds first.
        lines = [0, *(m.end() for m in _NEWLINE.finditer(text))]
        found = matches_at(_LINE_INITIALS, text, lines)
        if _TRAILING_GATE.search(text):
            found += _TRAILING_INITIALS.finditer(text)
            for m in _TRAILING_DOTTED.finditer(text):
                letters = re.sub(r"[^a-z]", "", m.group(1).lower())
                if letters not in DOTTED_WORDS and m.group(1).count(".") + m.group(1).count("'") >= 1:
                    spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
        if not found:
            return spans
        starts = [t.start for t in tokens]
        last = text.rstrip().rfind("\n") + 1
        for m in found:
            if m.start() == 0 or not text[:m.start()].strip():
                continue  # a note's title line ("NPN"), not its signature
            signed = bool(m.group(1)) or m.start() >= last
            parts = [g for g in (2, 3) if m.group(g) and (g == 2 or m.group(g).lower() not in _CREDENTIAL_AFTER)]
            toks = [tokens[k] for k in (bisect_left(starts, m.start(g)) for g in parts)
                    if k < len(tokens) and tokens[k].start in (m.start(g) for g in parts)]
            if len(toks) != len(parts):
                continue
            if all(self._signing(tok, signed) for tok in toks):
                spans += [Span(tok.start, tok.end, PhiType.NAME) for tok in toks]
        return spans

    def _signing(self, tok: Token, signed: bool) -> bool:
        """Whether letters alone on a line are initials: letters no list explains, or (on a note's last line or
        after a dash) two or three letters that only shorthand explains."""
        if self._unknown(tok) and tok.key not in self.words.everyday:
            return True
        if not signed or len(tok.key) > 3 or tok.key in STOPWORDS or tok.key in self.rules.words("credentials") \
                or tok.key in ("sw", "rt"):
            return False
        return len(tok.key) == 2 or (tok.key not in self.words.clinical_terms and tok.key not in self.words.everyday)

    def _initials_after_cue(self, tokens: list[Token]) -> list[Span]:
        """"per JM,", "d/w kl (charge rn)", "spoke w/ rk re: heparin": two or three letters that no list explains,
        right after a word that hands something to a person and before a stop, a credential or "re"."""
        spans = []
        for i, tok in enumerate(tokens[1:], 1):
            if tok.kind != "w" or not 2 <= len(tok.text) <= 3 or tok.first or (tok.cased and not tok.text.isupper()):
                continue
            nxt = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].first else None
            if nxt is not None and nxt.key not in _AFTER_HANDED and nxt.key not in _CREDENTIAL_AFTER:
                continue
            if not self._handed_to(tokens, i) or not self._bare_letters(tok):
                continue
            spans.append(Span(tok.start, tok.end, PhiType.NAME))
        return spans

    def _handed_to(self, tokens: list[Token], i: int) -> bool:
        """Whether the one, two or three tokens before token i spell a word of _HANDED_TO ("per", "d / w")."""
        for n in (1, 2, 3, 4):
            if i - n < 0 or (n > 1 and tokens[i - n + 1].first):
                break
            words = tokens[i - n:i]
            phrase = "".join(t.text if t.kind == "p" else (" " if k and words[k - 1].kind == "w" else "") + t.key
                             for k, t in enumerate(words))
            if phrase.strip() in _HANDED_TO:
                return True
        return False

    def _bare_letters(self, tok: Token) -> bool:
        """Letters that are no word, team, credential or unit ("jm", "kl", "sk"); of three letters, no abbreviation
        either ("per EMS", "w/ NGT"). Two letters are abbreviations half the time, which does not decide here."""
        key = tok.key
        if key in STOPWORDS or key in _TEAMS or key in self.words.lower_words or key in self.words.clinical_terms \
                or key in self.rules.words("units") or key in self.rules.words("credentials") \
                or key in self.rules.words("states") or key in self._never_names or key in self._relations:
            return False  # "PER GF": the girlfriend, not a colleague's initials
        return len(key) == 2 or not (key in self.words.clinical or key in self.words.everyday
                                     or key in self.words.short_forms)


def _dotted_lines(text: str) -> list[Span]:
    """A line of dotted initials after the note's first line ("t.r.", "-J.M.K."), unless an abbreviation ("p.o.")."""
    if ".\n" not in text and not text.rstrip().endswith("."):
        return []
    spans = []
    for m in _DOTTED_LINE.finditer(text):
        letters = re.sub(r"[^A-Za-z]", "", m.group(1)).lower()
        if m.start() and text[:m.start()].strip() and letters not in DOTTED_WORDS:
            spans.append(Span(m.start(1), m.end(1), PhiType.NAME))
    return spans
