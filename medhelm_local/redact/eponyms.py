"""Whether the words after a name candidate make it a medical eponym instead ("FOLEY CATHETER", "Bell's palsy", "HOFFMAN
NEG", "TAY-SACHS DISEASE", "CANDIDA ESOPHAGITIS"), unless what follows is a person's ("BRIANNA'S CELL"): the one test
every name rule asks before it keeps a span (NameRules.not_eponym)."""

from __future__ import annotations

from medhelm_local.redact.name_words import DISEASE_ENDINGS, NOT_DISEASES, OWNED, PERSONAL, SIGN_READ
from medhelm_local.redact.tokens import Token


class EponymTest:
    """The eponym test, given the words that follow an eponym (rules.yaml's eponym_followers and eponym_nouns) and
    the words that are never names."""

    def __init__(self, followers: frozenset[str], never_names: frozenset[str],
                 eponyms: frozenset[str] = frozenset()) -> None:
        self.followers = followers
        self.never_names = never_names
        self.eponyms = eponyms  # vocabulary/eponyms.tsv: "BARRETT'S", written so, is the oesophagus

    def possessive_eponym(self, tokens: list[Token], i: int) -> bool:
        """Whether token i is a listed eponym written with "'s" ("BARRETT'S W/ ADENOCA", "GERD/BARRETT'S"): the
        disease or the sign, not a person or a town, unless what follows is a person's ("BARRETT'S CELL")."""
        if tokens[i].key not in self.eponyms or i + 2 >= len(tokens) or tokens[i + 1].text not in ("'", "’") \
                or tokens[i + 2].key != "s" or tokens[i + 1].start != tokens[i].end:
            return False
        return i + 3 >= len(tokens) or tokens[i + 3].key not in OWNED

    def not_eponym(self, tokens: list[Token], end: int) -> bool:
        """False when the words after a candidate make it a medical eponym (Foley catheter, Bell's palsy)."""
        j = end
        while j < len(tokens) and tokens[j].text in ("'", "’", "s", "S") and j - end < 2:  # "MURPHY'S SIGN"
            j += 1
        if j > end and j < len(tokens) and tokens[j].key in OWNED:
            return True  # "BRIANNA'S CELL", "wife's bag": what a person has, not an eponym
        if j + 1 < len(tokens) and tokens[j].key in ("cell", "phone") and not tokens[j + 1].first \
                and (tokens[j + 1].kind == "d" or tokens[j + 1].text in "#:-("):
            return True  # "DTR MARCY CELL 508...", "son roy cell-617...": the person's number, not a cell type
        if end and self.possessive_eponym(tokens, end - 1):
            return False
        if j < len(tokens) and tokens[j].key in SIGN_READ and not tokens[j].cased:
            return False  # "HOFFMAN NEG", "babinski positive": a sign and how it read, in a note without case
        if j < len(tokens) and (tokens[j].key in self.followers
                                or (not tokens[j].first and self._names_disease(tokens[j]))):
            return False
        return not self._eponym_pair(tokens, j)

    def _names_disease(self, tok: Token) -> bool:
        """An infection's or inflammation's name after the candidate on its line ("CANDIDA ESOPHAGITIS", "candida
        osteomyelitis", "lyme arthritis", "Hashimoto thyroiditis"): an organism or an eponym."""
        key = tok.key
        return tok.kind == "w" and len(key) >= 7 and key not in NOT_DISEASES \
            and key not in self.never_names and key.endswith(DISEASE_ENDINGS)

    def _eponym_pair(self, tokens: list[Token], j: int) -> bool:
        """Whether the candidate is the first of two or three joined eponyms before what they name: "TAY-SACHS
        DISEASE", "jervell and lange-nielsen syndrome", "Epstein-Barr virus" (a person's things excepted)."""
        k, joins = j, 0
        while k + 1 < len(tokens) and joins < 3 and not tokens[k + 1].first and (
                tokens[k].text in ("-", "–") or tokens[k].key == "and") and tokens[k + 1].kind == "w":
            k, joins = k + 2, joins + 1
        return bool(joins) and k < len(tokens) and tokens[k].key in self.followers \
            and tokens[k].key not in OWNED and tokens[k].key not in PERSONAL
