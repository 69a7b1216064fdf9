"""An organism after what a culture or an infection is said to grow is no person: "URINE GREW CANDIDA", "infected with
candida", "BCX POSITIVE FOR ..." A genus that is a first name too ("Candida") is read as a name by the token rules on
lines without case, and bare it is not one of the eponym pairs or nouns that clear it; a one-word name span right after
such a cue is dropped, whatever the case. A name with its surname ("spoke with Candida Lopez") is left alone.
"""

from __future__ import annotations

from bisect import bisect_left

from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

# The words just before an organism's name: one word ("grew"), or two ("infected with", "positive for").
_CUES_ONE = frozenset({"grew", "growing", "grows", "grown", "speciated", "speciating"})
_CUES_TWO = frozenset({("infected", "with"), ("infection", "with"), ("infections", "like"), ("colonized", "with"),
                       ("colonised", "with"), ("positive", "for"), ("pos", "for"), ("growth", "of"),
                       ("infection", "by"), ("caused", "by"), ("species", "of"), ("grew", "out")})


def drop_organisms(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` less the one-word name spans that stand right after an organism cue."""
    if not spans:
        return spans
    starts = [t.start for t in tokens]
    out = []
    for span in spans:
        a = bisect_left(starts, span.start)
        if span.type == PhiType.NAME and a < len(tokens) and tokens[a].start == span.start and not tokens[a].first \
                and tokens[a].end == span.end and _after_cue(tokens, a):
            continue
        out.append(span)
    return out


def _after_cue(tokens: list[Token], a: int) -> bool:
    one = tokens[a - 1].key if a >= 1 else ""
    two = (tokens[a - 2].key, one) if a >= 2 and not tokens[a - 1].first else ("", "")
    return one in _CUES_ONE or two in _CUES_TWO
