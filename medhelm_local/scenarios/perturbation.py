"""Perturbations of an instance's input, for robustness: seeded, so a run entry gives the same text every time.

A run entry takes `perturbation=NAME` (and `perturbation_seed=N`, default 0). Each instance is
perturbed with its own random stream (seed and instance id), so the result does not depend on
order, sampling or sharding. The instance keeps its id: a perturbed run pairs with the clean run of
the same entry instance by instance.

    typos         about one word in ten of four letters or more gets a typing slip (two letters
                  swapped, one dropped, one doubled, or a neighbouring key)
    lowercase     the whole input in lower case
    whitespace    each space becomes one to three spaces, and about one in ten a line break
    contractions  "do not" -> "don't", "it is" -> "it's", ... (no synonyms: meaning unchanged)
    expansions    the reverse: "don't" -> "do not", ...
    option_order  the options of a multiple-choice question in a new order (the answer follows)
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import replace

from medhelm_local.errors import RunEntryError
from medhelm_local.records import Instance, TaskType

_CONTRACTIONS = {
    "do not": "don't", "does not": "doesn't", "did not": "didn't", "is not": "isn't", "are not": "aren't",
    "was not": "wasn't", "were not": "weren't", "has not": "hasn't", "have not": "haven't", "had not": "hadn't",
    "can not": "can't", "cannot": "can't", "could not": "couldn't", "should not": "shouldn't",
    "would not": "wouldn't", "will not": "won't", "it is": "it's", "that is": "that's", "there is": "there's",
    "what is": "what's", "he is": "he's", "she is": "she's", "i am": "I'm", "you are": "you're",
    "we are": "we're", "they are": "they're", "i have": "I've", "we have": "we've", "they have": "they've",
    "i will": "I'll", "you will": "you'll", "we will": "we'll", "they will": "they'll", "let us": "let's",
}
_EXPANSIONS = {v.lower(): k for k, v in _CONTRACTIONS.items() if k != "can not"}
_NEIGHBOURS = dict(zip("qwertyuiopasdfghjklzxcvbnm", ["wa", "qes", "wrd", "etf", "ryg", "tuh", "yij", "uok", "ipl",
                                                     "o", "qsz", "awdx", "sefc", "drgv", "fthb", "gyjn", "hukm",
                                                     "jil", "ko", "asx", "zdc", "xfv", "cgb", "vhn", "bjm", "nk"],
                       strict=True))
TYPO_RATE, BREAK_RATE = 0.1, 0.1


def _rng(seed: int, instance_id: str) -> random.Random:
    digest = hashlib.sha256(f"perturbation\0{seed}\0{instance_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _slip(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == 1:
        return word[:i] + word[i + 1:]
    if kind == 2:
        return word[:i] + word[i] + word[i:]
    near = _NEIGHBOURS.get(word[i].lower())
    if not near:
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    key = rng.choice(near)
    return word[:i] + (key.upper() if word[i].isupper() else key) + word[i + 1:]


def typos(text: str, rng: random.Random) -> str:
    """About one word in ten (of four letters or more) with one typing slip."""
    return re.sub(r"[A-Za-z]{4,}", lambda m: _slip(m.group(0), rng) if rng.random() < TYPO_RATE else m.group(0), text)


def whitespace(text: str, rng: random.Random) -> str:
    """Spaces widened to one to three, about one in ten turned into a line break."""
    return re.sub(" ", lambda _: "\n" if rng.random() < BREAK_RATE else " " * rng.randint(1, 3), text)


def _swap(text: str, table: dict[str, str]) -> str:
    pattern = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True)) + r")\b",
                         re.IGNORECASE)

    def one(match: re.Match[str]) -> str:
        found = table[match.group(0).lower()]
        return found[0].upper() + found[1:] if match.group(0)[0].isupper() else found

    return pattern.sub(one, text)


TEXT_PERTURBATIONS: dict[str, Callable[[str, random.Random], str]] = {
    "typos": typos,
    "lowercase": lambda text, _: text.lower(),
    "whitespace": whitespace,
    "contractions": lambda text, _: _swap(text, _CONTRACTIONS),
    "expansions": lambda text, _: _swap(text, _EXPANSIONS),
}
PERTURBATIONS = (*TEXT_PERTURBATIONS, "option_order")


def check_perturbation(args: dict[str, str], task: TaskType, benchmark: str, where: str) -> None:
    """A run entry's perturbation arguments, or a clear error naming what is wrong."""
    name = args.get("perturbation")
    if name is not None and name not in PERTURBATIONS:
        raise RunEntryError(f"there is no perturbation '{name}'", where=where,
                            fix=f"use one of: {', '.join(PERTURBATIONS)}")
    if name == "option_order" and task is not TaskType.MULTIPLE_CHOICE:
        raise RunEntryError(f"perturbation=option_order reorders options, and {benchmark} has none", where=where,
                            fix=f"use one of: {', '.join(p for p in PERTURBATIONS if p != 'option_order')}")
    seed = args.get("perturbation_seed")
    if seed is not None and (name is None or not seed.isdigit()):
        raise RunEntryError(f"perturbation_seed={seed} needs perturbation=NAME and a whole number", where=where,
                            fix="write e.g. perturbation=typos,perturbation_seed=1")


def perturb(instance: Instance, name: str, seed: int, task: TaskType) -> Instance:
    """The instance as the perturbation shows it to the model (same id; the answer follows a reordering)."""
    rng = _rng(seed, instance.id)
    if name == "option_order":
        if task is not TaskType.MULTIPLE_CHOICE:
            return instance
        options = list(instance.references)
        rng.shuffle(options)
        return replace(instance, references=tuple(options))
    return replace(instance, input=TEXT_PERTURBATIONS[name](instance.input, rng))
