"""Slips of the keyboard: how a word no list holds, on a line without case, is read as the clinical or English word it
is one slip from ("INFLUNZA", "per reenal", "adn", "verry"), and how far a cue lets that reading go (NameRules.tier
asks; the tuning sets typed with slips and bench/phi_slips.py measure it)."""

from __future__ import annotations

from enum import IntEnum

from medhelm_local.redact.dictionaries import Ambiguity, Dictionaries
from medhelm_local.redact.name_words import MEMO_LIMIT
from medhelm_local.redact.tokens import STOPWORDS


class Slips(IntEnum):
    """When NameRules.tier reads a word no list holds, on a line without case, as a slip of the keyboard."""

    ANY = 0  # where no cue names a person: a slip (four letters or more) of any clinical or English word
    CLINICAL = 1  # after a label or a place cue: a slip of a frequent word, or from five letters of a clinical one
    FREQUENT = 2  # after a relation or a title: from five letters, only a slip of a word medical text writes often
    NONE = 3  # after a naming verb, words of wards and abbreviations: only two letters of a common word swapped


def misspelt(words: Dictionaries, word: str) -> tuple[Ambiguity | None, bool, bool]:
    """The tier of the clinical or English word that a word no list holds is one slip of the keyboard from (a
    letter after the first dropped, doubled, swapped with the next or struck for another: "pateint", "neruo"),
    or None; whether a word it slips from is frequent in medical text; and whether it is a slip of a function word
    or a frequent word that every rule reads as jargon ("adn", "ni", "teh", "syas", "wehn", "verry", "perr"; a
    three-letter word no list holds that is a four-letter function word with a letter dropped: "wll", "thn").
    First names and common surnames are never read as slips ("brian" stays a name, not "brain"); a rare surname
    or a far town is, where it slips from a function word or a frequent one ("Verry", "Tema"). A word that is a short
    function word run into a frequent one ("startof", "bythis") is read as English."""
    if len(word) < 2 or not word.isalpha() or not word.isascii():
        return None, False, False
    swaps = [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(len(word) - 1)]
    if len(word) == 2 and any(near in STOPWORDS for near in swaps):
        return Ambiguity.CLINICAL, True, True  # "ni", "ta": "in", "at", even where a first name
    if word in words.first_names:
        return None, False, False
    if len(word) == 3 and not words.is_name(word) and any(
            len(near) == 4 and near[0] == word[0] and near in STOPWORDS for near in _one_slip(word)):
        return Ambiguity.CLINICAL, True, True  # "wll", "thn": a function word with a letter dropped
    rare = word not in words.common_names
    if (len(word) == 3 and any(near in STOPWORDS for near in swaps)) or (rare and any(
            near in STOPWORDS or (len(near) >= 4 and near in words.frequent) for near in swaps)):
        return Ambiguity.CLINICAL, True, True  # "adn", "syas", "wehn": two letters of a common word swapped
    if len(word) < 4 or (words.is_name(word) and not rare):
        return None, False, False
    if len(word) >= 5 and not words.is_name(word) and word not in words.cities and _glued(words, word):
        return Ambiguity.EVERYDAY, True, False  # "startof", "BYTHIS": two words run together
    known = words.is_name(word) or word in words.cities
    best: Ambiguity | None = None
    frequent = False
    for near in _one_slip(word):
        if len(near) < 3 or word == near + "s" or near[0] != word[0]:
            continue  # "childrens" is a name's possessive, not a slip; a typist strikes the first letter right
            # ("umass" is no slip of "mass")
        if known or len(near) == 3:
            if near in STOPWORDS or near in _SHORT_FUNCTION_WORDS or (len(near) >= 4 and near in words.frequent):
                return Ambiguity.CLINICAL, True, False  # "verry", "perr": a rare surname or a short word as a
                # slip of a common word, read so where no relation or title names a person (see NameRules.tier)
            continue
        frequent = frequent or near in words.frequent
        if near in words.clinical:
            best = Ambiguity.CLINICAL
        elif best is None and (near in words.everyday or near in STOPWORDS or _inflected(words, near)):
            best = Ambiguity.EVERYDAY
    return best, frequent, False


# Short English words a hurried typist runs into the next word ("BYTHIS", "inthe") or, fewer of them, the last
# ("startof", "givenby"); a name rarely begins with them and ends with these fewer still ("Tamsin", "Achebe" do).
_GLUE_BEFORE = frozenset({"of", "the", "to", "in", "at", "by", "on", "and", "for", "with", "this", "that", "from"})
_GLUE_AFTER = frozenset({"of", "the", "and", "for", "with", "this", "that", "from", "by"})


def _glued(words: Dictionaries, word: str) -> bool:
    """Whether a word no list holds is a short English word run into a frequent one of four letters or more, or two
    short ones ("bythis", "startof", "inthe")."""
    for k in range(2, len(word) - 1):
        left, right = word[:k], word[k:]
        if left in _GLUE_BEFORE and (right in _GLUE_BEFORE or (len(right) >= 4 and right in words.frequent)):
            return True
        if right in _GLUE_AFTER and len(left) >= 4 and left in words.frequent:
            return True
    return False


def slip_tier(words: Dictionaries, key: str, slips: Slips, memo: dict[str, tuple[Ambiguity | None, bool, bool]]) \
        -> Ambiguity:
    """The tier NameRules.tier gives a word no list holds on a line without case: that of the word it is one slip
    from, as far as `slips` allows ("OTHER SON COLM" is no "cold"), else NAME_ONLY. `memo` keeps each word's slip,
    asked again for the same words."""
    slip = memo.get(key)
    if slip is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        slip = memo[key] = misspelt(words, key)
    found, frequent, swapped = slip
    if swapped:
        return Ambiguity.CLINICAL  # "adn", "ni", "teh", "syas": two letters of a common word swapped
    if found is None or slips is Slips.NONE or len(key) < 4 \
            or (slips is Slips.FREQUENT and words.is_name(key)) \
            or (slips is Slips.CLINICAL and not frequent and (found is not Ambiguity.CLINICAL or len(key) < 5)) \
            or (slips is Slips.FREQUENT and (not frequent or len(key) < 5)):
        return Ambiguity.NAME_ONLY
    return found


def town_slip(words: Dictionaries, word: str) -> bool:
    """Whether a word no list holds is one slip (after its first letter) from a town of six letters or more:
    "lowel", "pittsfeild", "somervile" (read as the town after a place cue, not as the English word "lower")."""
    if len(word) < 5 or not word.isalpha() or not word.isascii() or word in words.cities or words.is_name(word):
        return False
    return any(len(near) >= 6 and near[0] == word[0] and near in words.cities for near in _one_slip(word))


def slips_of(vocabulary: frozenset[str]) -> frozenset[str]:
    """Every string one slip (after its first letter) from a word of five letters or more of `vocabulary`, but the
    words themselves: "askign", "notifeid", "vistied" for the verbs said of a person."""
    return frozenset(s for w in vocabulary if len(w) >= 5 for s in _one_slip(w) if s[0] == w[0]) - vocabulary


def place_word_slip(words: Dictionaries, word: str, place_words: frozenset[str]) -> str | None:
    """The town or facility-name word of six letters or more that a word no list holds is one slip from (after its
    first letter): "spaulidng", "wellsley", "wakefeild", "dorchestr", "bostn"; None when there is none, more than one,
    or an English or clinical word that is no place is one slip from it too ("nausa", "resite")."""
    if len(word) < 5 or not word.isalpha() or not word.isascii():
        return None
    nears = [near for near in _one_slip(word) if len(near) >= 4 and near[0] == word[0]]
    found = {near for near in nears if len(near) >= 6 and (near in words.cities or near in place_words)}
    if len(found) != 1 or any(near not in found and (near in words.clinical or near in words.everyday)
                              for near in nears):
        return None
    return found.pop()


_MONTHS = ("january", "february", "march", "april", "august", "september", "october", "november", "december")
_MONTH_SLIPS: frozenset[str] = frozenset()


def month_slip(word: str) -> bool:
    """Whether a word of five letters or more is one slip (after its first letter) from a month's name of five
    letters or more: "octobr", "janaury", "NOVMBER", "augut" (not the month itself)."""
    return 5 <= len(word) <= 10 and word in _month_slips()


def _month_slips() -> frozenset[str]:
    global _MONTH_SLIPS
    if not _MONTH_SLIPS:
        _MONTH_SLIPS = frozenset(s for m in _MONTHS for s in _one_slip(m) if len(s) >= 5 and s[0] == m[0]) \
            - frozenset(_MONTHS)
    return _MONTH_SLIPS


# Words that end a facility's name, read through a slip so that the name is read whole ("BEVERLY HOSPTIAL", "MASS
# GENRAL", "BOSTON MEDICAL CNETER", "LAHEY CLNIC").
_FACILITY_WORDS = ("hospital", "general", "center", "centre", "clinic", "medical", "nursing", "memorial", "regional",
                   "rehab", "rehabilitation", "infirmary", "hospice", "healthcare", "health")
_FACILITY_SLIPS: dict[str, str] = {}


def facility_word_slip(word: str) -> str | None:
    """The facility word ("hospital", "general", ...) a word of five letters or more is one slip from (after its
    first letter), or None."""
    return _facility_slips().get(word) if len(word) >= 5 else None


def _facility_slips() -> dict[str, str]:
    if not _FACILITY_SLIPS:
        for w in _FACILITY_WORDS:
            for s in _one_slip(w):
                if len(s) >= 5 and s[0] == w[0] and s not in _FACILITY_WORDS:
                    _FACILITY_SLIPS.setdefault(s, w)
    return _FACILITY_SLIPS


def slip_keys() -> frozenset[str]:
    """Every word that facility_word_slip or month_slip reads (for TokenList.where)."""
    global _SLIP_KEYS
    if not _SLIP_KEYS:
        _SLIP_KEYS = frozenset(_facility_slips()) | _month_slips()
    return _SLIP_KEYS


_SLIP_KEYS: frozenset[str] = frozenset()


def town_pair_slip(words: Dictionaries, first: str, second: str) -> bool:
    """Whether two words, one of them one slip (after its first letter) from its own, are a town of two words:
    "new bedfrod", "jamaca plain" (the slipped word of four letters or more)."""
    if not (first.isalpha() and second.isalpha() and first.isascii() and second.isascii()):
        return False
    for word, other, slipped_first in ((first, second, True), (second, first, False)):
        if len(word) < 4:
            continue
        for near in _one_slip(word):
            if len(near) >= 4 and near[0] == word[0]:
                pair = f"{near} {other}" if slipped_first else f"{other} {near}"
                if pair in words.cities:
                    return True
    return False


def _inflected(words: Dictionaries, word: str) -> bool:
    """Whether a word is an English or clinical word with -s, -ed, -ing or -ly on ("staying", "played")."""
    for ending in ("ing", "ed", "ly", "es", "s"):
        stem = word[:-len(ending)]
        if word.endswith(ending) and len(stem) >= 3 and (stem in words.everyday or stem in words.clinical
                                                         or stem + "e" in words.everyday):
            return True
    return False


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Short words notes write so often that a slip of them is read as them: "perr team", "pt's".
_SHORT_FUNCTION_WORDS = frozenset({"per", "pts"})


def _one_slip(word: str) -> set[str]:
    """Every string one deletion, adjacent transposition, substitution or insertion from `word` (lower-case ASCII)."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS if c != b[0]}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    out.discard(word)
    return out
