"""Pets' names, which notes write where a relative's would stand ("DOG NAMED RUSTY AT HOME", "lives w/ her cat mitzi",
"golden retriever bella", 'a lab named "gus"'): no person's name, so Safe Harbor leaves them and a detector that masks
them only hides what the note says. A one-word name span just after an animal's word (with "named", "called", a
comma, a bracket or a quote between) is dropped, with the note's other mentions of the same word ("who is feeding
bella?"). A name of two words ("cat sitter ann lee") and a name a title vouches for are left alone.
"""

from __future__ import annotations

from medhelm_local.redact.mentions import drop_with_mentions
from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

# Animals kept as pets, and dog breeds notes name them by. "Lab" only with "named" or "called" after it (else the
# laboratory), "shepherd" and other breeds that are surnames too are left out.
_PETS = frozenset({"dog", "dogs", "cat", "cats", "puppy", "pup", "kitten", "kitty", "pet", "pets", "retriever",
                   "terrier", "poodle", "beagle", "labrador", "chihuahua", "dachshund", "husky", "pug", "collie",
                   "spaniel", "schnauzer", "pitbull", "doodle", "labradoodle", "goldendoodle", "corgi", "parrot",
                   "bird", "birds", "cockatiel", "parakeet", "budgie", "hamster", "rabbit", "ferret", "horse", "pony",
                   "turtle", "tortoise", "iguana", "goldfish"})
_NAMED_ONLY = frozenset({"lab"})  # "A LAB NAMED GUS", not "per lab" nor "lab aware"
_NAMING = frozenset({"named", "called", "name", "is"})
_BETWEEN = frozenset({",", "(", '"', "'", ":", "-"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "rev", "fr", "sr"})  # "DR BELLA AWARE": a person, whatever pet


def drop_pet_names(tokens: list[Token], spans: list[Span]) -> list[Span]:
    """`spans` without the one-word NAME spans that name a pet, and the other mentions of those words."""
    return drop_with_mentions(tokens, spans, (PhiType.NAME,), _after_a_pet, _after_a_title)


def _after_a_title(tokens: list[Token], k: int) -> bool:
    """Whether a title stands just before the word at k ("DR BELLA", "dr. bella")."""
    j = k - 1 - (k > 1 and tokens[k - 1].text == ".")
    return j >= 0 and tokens[j].key in _TITLES


def _after_a_pet(tokens: list[Token], k: int) -> bool:
    """Whether the word at k follows an animal's word on its line, over "named"/"called" and punctuation."""
    j, named = k - 1, False
    while j >= 0 and k - j <= 4 and not tokens[j + 1].first:
        tok = tokens[j]
        if tok.key in _NAMING:
            named = True
        elif tok.text not in _BETWEEN:
            return tok.key in _PETS or (named and tok.key in _NAMED_ONLY)
        j -= 1
    return False
