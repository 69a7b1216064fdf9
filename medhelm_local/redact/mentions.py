"""A name found once marks the rest of its note: single words listed with it ("Usamov and Bowers") and
its other mentions (a surname seen once)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.tokens import Token, where
from medhelm_local.redact.types import PhiType, Span

if TYPE_CHECKING:  # names imports this module; the class is only named here
    from medhelm_local.redact.names import NameRules


def listed_with(names: NameRules, tokens: list[Token], found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Add single words listed with a name found: "Usamov and Bowers", "silvana, adam, christopher"."""
    runs, taken = sorted(found), {k for a, b in found for k in range(a, b)}
    queue = list(runs)
    while queue:
        a, b = queue.pop()
        for link, cand in ((b, b + 1), (a - 1, a - 2)):
            if not (0 <= cand < len(tokens) and 0 <= link < len(tokens)) or cand in taken:
                continue
            joined = tokens[link].text == "," or tokens[link].key in ("and", "or", "y", "&")
            if joined and listable(names, tokens[cand]):
                taken.add(cand)
                queue.append((cand, cand + 1))
                runs.append((cand, cand + 1))
    return runs


def listable(names: NameRules, tok: Token) -> bool:
    """A word that is a name when it stands in a list of names."""
    if tok.kind != "w" or tok.key in names.non_names or len(tok.key) < 3:
        return False
    tier = names.tier(tok)
    if tok.cased and not tok.text.isupper():
        return tok.text[0].isupper() and (tier == Ambiguity.NAME_ONLY or names.words.is_name(tok.key))
    return tier == Ambiguity.NAME_ONLY or (tok.key in names.words.first_names and tier < Ambiguity.CLINICAL)


def with_other_mentions(names: NameRules, tokens: list[Token], found: list[tuple[int, int]]) -> list[Span]:
    """Spans for the runs found, plus every other mention of their words (a surname seen once)."""
    found = listed_with(names, tokens, found)
    known = {t.key for a, b in found for t in tokens[a:b] if t.kind == "w" and len(t.key) > 1}
    covered = {k for a, b in found for k in range(a, b)}
    spans = [Span(tokens[a].start, tokens[b - 1].end, PhiType.NAME) for a, b in found]
    for k in where(tokens, known):
        tok = tokens[k]
        if k not in covered and tok.key not in names.non_names \
                and tok.key not in names.words.clinical_terms and names.not_eponym(tokens, k + 1):
            if tok.cased and not tok.text.isupper():
                ok = tok.text[0].isupper() and (names.words.is_name(tok.key) or names.sentence_start(tokens, k)
                                                or names.tier(tok) < Ambiguity.CLINICAL)
            else:
                ok = names.tier(tok) < Ambiguity.CLINICAL
            if ok and (names.words.is_name(tok.key) or not tok.text.islower()):
                spans.append(Span(tok.start, tok.end, PhiType.NAME))
    return spans
