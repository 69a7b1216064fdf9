"""Organisms and signs that the token rules read as names on lines without case, dropped from the spans after them.

An organism after what a culture or an infection is said to grow, or before the specimen it grew in, is no person:
"URINE GREW CANDIDA", "infected with candida", "UCX + CANDIDA", "CANDIDA IN SPUTUM". A sign with its reading mark is no
person either: "+MURPHY'S", "(-) HOMANS", "murphy's +". A genus that is a first name too ("Candida") and a sign that is
a common surname ("Murphy", "Allen") are names to the token rules when they stand bare, as no eponym noun follows; a
one-word name span in one of these places is dropped, whatever the case. A name with its surname ("spoke with Candida
Lopez") and a name after a relation written with a plus ("DTR + SON", "mom + dad") are left alone.
"""

from __future__ import annotations

from bisect import bisect_left

from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

# The words just before an organism's name: one word ("grew"), or two ("infected with", "positive for").
_CUES_ONE = frozenset({"grew", "growing", "grows", "grown", "speciated", "speciating"})
_CUES_TWO = frozenset({("infected", "with"), ("infection", "with"), ("infections", "like"), ("colonized", "with"),
                       ("colonised", "with"), ("positive", "for"), ("pos", "for"), ("growth", "of"),
                       ("infection", "by"), ("caused", "by"), ("species", "of"), ("grew", "out"), ("cx", "+"),
                       ("culture", "+"), ("cultures", "+"), ("ucx", "+"), ("bcx", "+"), ("sputum", "+"),
                       ("urine", "+"), ("yeast", "(")})
# Specimens an organism is found in or on: "CANDIDA IN URINE", "candida on skin".
_SPECIMENS = frozenset({"urine", "sputum", "blood", "stool", "wound", "bal", "culture", "cultures", "cx", "swab",
                        "skin", "groin", "mouth", "tongue", "throat", "esophagus", "bcx", "ucx", "trach", "aspirate",
                        "bile", "peritoneal", "fluid", "drain", "line", "tip"})
_READINGS = frozenset({"+", "-"})


def drop_organisms(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` less the one-word name spans that are an organism or a sign by where they stand."""
    if not spans:
        return spans
    starts = [t.start for t in tokens]
    out = []
    for span in spans:
        a = bisect_left(starts, span.start)
        if span.type == PhiType.NAME and a < len(tokens) and tokens[a].start == span.start \
                and tokens[a].end == span.end and (_after_cue(tokens, a) or _before_specimen(tokens, a)
                                                   or _sign_read(tokens, a)):
            continue
        out.append(span)
    return out


def _before_specimen(tokens: list[Token], a: int) -> bool:
    """"CANDIDA IN URINE", "candida on skin": the word, "in" / "on" / "from", a specimen, on one line."""
    after = tokens[a + 1:a + 3]
    return len(after) == 2 and not after[0].first and not after[1].first and after[0].key in ("in", "on", "from") \
        and after[1].key in _SPECIMENS


def _sign_read(tokens: list[Token], a: int) -> bool:
    """"+MURPHY'S", "(+) murphy", "(-) HOMANS", "MURPHY'S +": a sign and its reading, a plus with no space before
    the word (a minus there starts a sign-off: "-DS"), a mark in brackets, or a mark after the possessive."""
    tok = tokens[a]
    if a and tokens[a - 1].text == "+" and tokens[a - 1].end == tok.start and not tok.first \
            and (a < 2 or tokens[a - 2].end < tokens[a - 1].start or tokens[a - 2].text == "("):
        return True  # "+MURPHY'S", "(+MURPHY)"; not "WIFE+JOHN", nor a sign-off "-DS", "-pam rn"
    if a >= 3 and tokens[a - 1].text == ")" and tokens[a - 2].text in _READINGS and tokens[a - 3].text == "(":
        return True  # "(+) MURPHY"
    j = a + 1
    if j + 1 < len(tokens) and tokens[j].text in ("'", "’") and tokens[j + 1].key == "s":
        j += 2
        return j < len(tokens) and tokens[j].text in _READINGS and not tokens[j].first \
            and (j + 1 >= len(tokens) or tokens[j + 1].kind != "w" or tokens[j + 1].first)  # "MURPHY'S +"
    return False


def _after_cue(tokens: list[Token], a: int) -> bool:
    if tokens[a].first:
        return False
    one = tokens[a - 1].key if a >= 1 else ""
    two = (tokens[a - 2].key, one) if a >= 2 and not tokens[a - 1].first else ("", "")
    return one in _CUES_ONE or two in _CUES_TWO
