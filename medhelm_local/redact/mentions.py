"""A name found once marks the rest of its note: single words listed with it ("Usamov and Bowers") and
its other mentions (a surname seen once)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from medhelm_local.redact.dictionaries import Ambiguity
from medhelm_local.redact.name_words import PERSON_VERBS, REPORTED, SAID_OF_A_RELATIVE
from medhelm_local.redact.tokens import Token, one_word, where
from medhelm_local.redact.types import PhiType, Span

if TYPE_CHECKING:  # names imports this module; the class is only named here
    from medhelm_local.redact.names import NameRules

# Before an everyday word, what makes it the word and not the person it names elsewhere in the note: "RATHER ROCKY
# NIGHT", "the price of", "their patience", "very frank", "a swift decision", "walked in hall", "at dawn".
_WORD_BEFORE = frozenset({"a", "an", "the", "their", "his", "her", "its", "our", "your", "my", "very", "rather",
                          "quite", "more", "most", "less", "in", "at", "not", "no"})  # not "so": "so john, what's"
# After a name that is a clinical word too, what only a person does ("summer tearful", "JOY BROUGHT LIST", "penny
# also worried"): the words said of a relative, less those a word takes as well ("hope is", "may present", "joy
# and", "will be at").
_ACTS = (SAID_OF_A_RELATIVE | PERSON_VERBS | REPORTED | {"reminded", "worried", "concerned", "wondering", "asked",
                                                         "voiced", "verbalized", "expressed", "confirmed"}) \
    - {"is", "was", "and", "at", "in", "on", "(", ",", "has", "had", "here", "present", "very", "who", "remains",
       "took", "takes", "plans", "reports", "comes", "helps", "updated"}
_ADVERBS = frozenset({"also", "just", "again", "still", "then", "too", "now"})  # between a name and what they did
# Of those, what a modal that is a first name ("may", "can") can go before: after one, only a past tense names
# ("MAY CALLED BACK"; "may visit" stays the modal).
_PAST = frozenset(w for w in _ACTS if w.endswith("ed")) | {"came", "went", "left", "drove", "flew", "said", "brought",
                                                           "spent", "slept"}


def drop_with_mentions(tokens: list[Token], spans: list[Span], types: Collection[PhiType],
                       marks: Callable[[list[Token], int], bool],
                       vouched: Callable[[list[Token], int], bool] | None = None) -> list[Span]:
    """The reverse of `with_other_mentions`: `spans` less the one-word spans of `types` whose word `marks` shows is no
    identifier where it stands ("DOG NAMED RUSTY", "ACUTE LUNG INJURY (ALI)"), and the text's other one-word spans of
    the same word, except those `vouched` says stand where only a person would ("DR RUSTY")."""
    if not spans:
        return spans
    starts = [t.start for t in tokens]
    at = [one_word(tokens, starts, s.start, s.end) if s.type in types else None for s in spans]
    words = {tokens[a].key for a in at if a is not None and marks(tokens, a)}
    if not words:
        return spans
    return [s for s, a in zip(spans, at, strict=True)
            if a is None or tokens[a].key not in words or (vouched is not None and vouched(tokens, a))]


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
                tier = names.tier(tok)
                ok = (tier < Ambiguity.CLINICAL and not (tier == Ambiguity.EVERYDAY and _a_word_here(tokens, k))) \
                    or (tier == Ambiguity.CLINICAL and _acts_after(names, tokens, k))
            if ok and (names.words.is_name(tok.key) or not tok.text.islower()):
                spans.append(Span(tok.start, tok.end, PhiType.NAME))
    return spans


def _a_word_here(tokens: list[Token], k: int) -> bool:
    """On a line without case, whether the everyday word at k, which names someone elsewhere in the note, is the word
    here: a number, a determiner, an adverb of degree or "in"/"at" right before it ("30 MILES AWAY"), or a hyphen
    joining it to the next ("honey-thick liquids")."""
    tok = tokens[k]
    if k and not tok.first and (tokens[k - 1].kind == "d" or tokens[k - 1].key in _WORD_BEFORE):
        return True
    return k + 1 < len(tokens) and tokens[k + 1].text == "-" and tokens[k + 1].start == tok.end


def _acts_after(names: NameRules, tokens: list[Token], k: int) -> bool:
    """On a line without case, whether a first name that is a clinical word too ("summer", "joy", "penny"), which
    names someone elsewhere in the note, is that person here: what only a person does follows it, or its possessive
    ("HOPE'S REQUEST")."""
    tok = tokens[k]
    if tok.cased or tok.key not in names.words.first_names or k + 1 >= len(tokens) or tokens[k + 1].first \
            or tokens[k + 1].start - tok.end > 1:
        return False
    if tokens[k + 1].key in _ADVERBS and k + 2 < len(tokens) and not tokens[k + 2].first:
        k += 1  # "penny also worried about"
    nxt = tokens[k + 1]
    if nxt.text in "'’" and k + 2 < len(tokens) and tokens[k + 2].key == "s" and tokens[k + 2].start == nxt.end:
        return True
    return nxt.key in (_PAST if tok.key in ("will", "may", "can", "must") else _ACTS)
