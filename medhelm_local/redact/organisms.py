"""Organisms and signs that the token rules read as names on lines without case, dropped from the spans after them.

An organism after what a culture or an infection is said to grow, or before the specimen it grew in, is no person:
"URINE GREW CANDIDA", "infected with candida", "UCX + CANDIDA", "CANDIDA IN SPUTUM". A sign with its reading mark is no
person either: "+MURPHY'S", "(-) HOMANS", "murphy's +"; nor an eponymous disease written by its possessive alone
("(BARRETT'S HX)", "?wilson's vs"), nor Boston's "TRIPLE-DECKER". A genus that is a first name too ("Candida") and a
sign that is a common surname ("Murphy", "Allen") are names to the token rules when they stand bare, as no eponym noun
follows; a one-word name span in one of these places is dropped, whatever the case. A name with its surname ("spoke
with Candida Lopez") and a name after a relation written with a plus ("DTR + SON", "mom + dad") are left alone.
"""

from __future__ import annotations

from medhelm_local.redact.tokens import Token, one_word
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
# Diseases and signs notes write by their eponym's possessive alone: "(BARRETT'S HX)", "?wilson's vs autoimmune",
# "FOURNIER'S GANGRENE" (a surname written so is a person's only before what is theirs: "BARRETT'S WIFE").
_EPONYM_DISEASES = frozenset({"barrett", "fournier", "wilson", "cushing", "addison", "graves", "crohn", "hashimoto",
                              "parkinson", "alzheimer", "hodgkin", "guillain", "raynaud", "sjogren", "whipple",
                              "zenker", "meckel", "paget", "kaposi", "cullen", "homan", "kernig", "brudzinski",
                              "babinski", "trousseau", "chvostek", "murphy", "mcburney", "virchow", "ludwig",
                              "charcot", "wernicke", "korsakoff", "marfan", "tourette", "huntington", "bell",
                              "buerger", "peyronie", "dupuytren", "still", "reiter", "kawasaki", "takayasu", "behcet",
                              "wegener", "goodpasture", "conn", "cullens", "turner", "grey", "kussmaul", "cheyne",
                              "beck", "levine", "osler", "janeway", "roth", "quincke", "horner", "todd", "broca",
                              "bickerstaff", "ogilvie", "hirschsprung", "boerhaave", "mallory", "reynold", "reynolds"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "rev", "fr", "prof", "np", "rn", "md", "pa"})
# What follows an eponymous disease's possessive ("BARRETT'S ESOPHAGUS", "bell's palsy", "?wilson's vs"); anything
# else after it ("TODD'S PAGER", "BARRETT'S WIFE") may be a person's.
_DISEASE_AFTER = frozenset({"disease", "diseases", "dz", "syndrome", "sign", "signs", "triad", "pentad", "palsy",
                            "gangrene", "esophagus", "hx", "vs", "flare", "exacerbation", "type", "ulcer", "ulcers",
                            "contracture", "thyroiditis", "encephalopathy", "phenomenon", "criteria", "paralysis",
                            "lymphoma", "sarcoma", "node", "nodes", "diverticulum", "dementia", "tumor", "aneurysm"})


def drop_organisms(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` less the one-word name spans that are an organism or a sign by where they stand."""
    if not spans:
        return spans
    starts = [t.start for t in tokens]
    out = []
    for span in spans:
        a = one_word(tokens, starts, span.start, span.end) if span.type == PhiType.NAME else None
        if a is not None and (_after_cue(tokens, a) or _before_specimen(tokens, a) or _sign_read(tokens, a)
                              or _disease_possessive(tokens, a) or _sign_absent(tokens, a) or _device_sized(tokens, a)
                              or _triple_decker(tokens, a)):
            continue
        out.append(span)
    return out


def _sign_absent(tokens: list[Token], a: int) -> bool:
    """"no cullen.", "NEG MURPHY": an eponymous sign after a word that reads it, with nothing of a person's after."""
    return tokens[a].key in _EPONYM_DISEASES and a >= 1 and not tokens[a].first \
        and tokens[a - 1].key in ("no", "neg", "negative", "pos", "positive")


def _device_sized(tokens: list[Token], a: int) -> bool:
    """"(blake 24fr)", "BLAKE 19 FR": a drain or catheter named for its maker, then its size in French."""
    k = a + 1
    if k < len(tokens) and tokens[k].kind == "d":
        k += 1
    return k < len(tokens) and k > a + 1 and tokens[k].key == "fr" and not tokens[k].first


def _disease_possessive(tokens: list[Token], a: int) -> bool:
    """"(BARRETT'S), NEOADJUVANT", "?wilson's vs autoimmune": an eponymous disease's possessive, with no person's
    thing after it."""
    if tokens[a].key not in _EPONYM_DISEASES or a + 2 >= len(tokens) or tokens[a + 1].text not in "'’" \
            or tokens[a + 2].key != "s" or tokens[a + 1].start != tokens[a].end:
        return False
    titled = (a >= 1 and tokens[a - 1].key in _TITLES) or (a >= 2 and tokens[a - 1].text == "."
                                                            and tokens[a - 2].key in _TITLES)
    if titled:
        return False  # "DR. WILSON'S NOTE": a person's
    after = tokens[a + 3] if a + 3 < len(tokens) and not tokens[a + 3].first else None
    return after is None or after.kind == "p" or after.key in _DISEASE_AFTER


def _triple_decker(tokens: list[Token], a: int) -> bool:
    """"LIVES ALONE IN A TRIPLE-DECKER": Boston's three-family house, not Mr. Decker."""
    kinds = ("triple", "three", "3", "two", "2")  # "TRIPLE-DECKER", "3-DECKER"
    return tokens[a].key == "decker" and a >= 1 and (
        tokens[a - 1].key in kinds or (a >= 2 and tokens[a - 1].text == "-" and tokens[a - 2].key in kinds))


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
