"""Abbreviations a text defines in brackets after the words they stand for ("ACUTE LUNG INJURY (ALI)", "juvenile absence
epilepsy (jae)", "Monoamine Oxidase (MAO) inhibitors"), which the token rules read as names when the letters are a name
too ("Ali", "Jae", "Mao"). A one-word name span in brackets whose letters are the first letters of the words just
before the bracket is dropped, with the text's other one-word mentions of the same word ("HX ALI. ALI IMPROVING").
A bracketed name that the words before do not spell ("SPOKE WITH ALI (SON)", "wife (Ann)") is left alone.
"""

from __future__ import annotations

from medhelm_local.redact.mentions import drop_with_mentions
from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

_NAME_LIKE = frozenset({PhiType.NAME, PhiType.HOSPITAL, PhiType.CITY})
# Words an abbreviation leaves out of its letters: "CENTERS FOR DISEASE CONTROL (CDC)", "burden of disease (bod)".
_LEFT_OUT = frozenset({"of", "and", "the", "for", "in", "on", "to", "with", "a", "an", "&"})


def drop_defined_abbreviations(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` less the one-word name-like spans that an abbreviation defined in the text stands in, and the text's
    other one-word name-like spans of the same word."""
    return drop_with_mentions(tokens, spans, _NAME_LIKE, _defined_here)


def _defined_here(tokens: list[Token], a: int) -> bool:
    """Whether token a stands alone in brackets after words whose first letters spell it."""
    word = tokens[a]
    letters = word.key
    if not 2 <= len(letters) <= 6 or not letters.isalpha() or a < 2 or a + 1 >= len(tokens) \
            or tokens[a - 1].text != "(" or tokens[a + 1].text != ")" or word.first:
        return False
    k, left = a - 2, len(letters)
    skipped = 0
    while k >= 0 and left:
        tok = tokens[k]
        if tok.kind != "w":
            return False  # the words stop at punctuation: "EPILEPSY, (JAE)" defines nothing
        if tok.key[0] == letters[left - 1]:
            left -= 1
        elif tok.key in _LEFT_OUT and skipped < 2:
            skipped += 1
        else:
            return False
        if tok.first:
            break
        k -= 1
    return left == 0
