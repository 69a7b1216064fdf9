"""Would a learned component help PHI detection? Two small models measured against the rules (issue 32).

(1) Name-likeness of a word from its letters: logistic regression over hashed character 2-4-grams, trained on
the shipped lists (first names, surnames and one-word towns against clinical, everyday, abbreviation and short-form
words; 10% of them held out), then asked about the words of dev, dev2 and dev3 that no list knows: how many of
those that are PHI the rules miss and it would call names, and how many that are not PHI it would call names.
(2) A token classifier stacked on the rules: logistic regression over the token's case, length, ambiguity tier,
list memberships, the rules' verdict, and the words, cues and verdicts two tokens either side; trained on two of
dev, dev2, dev3 and tested on the third: rule misses it would add and rule finds it would drop, per threshold.
Both are measured only on the tuning sets (no held-out note is read). Prints the figures; ships nothing.
Run: .venv/bin/python bench/phi_learned.py
"""

from __future__ import annotations

import zlib

import numpy as np
import phi_sets

from medhelm_local.redact.detector import detector_for
from medhelm_local.redact.tokens import Token, tokenize
from medhelm_local.settings import default_redaction_dir

DETECTOR = detector_for(default_redaction_dir().resolve())
WORDS, RULES = DETECTOR.words, DETECTOR.rules
TUNING = ("dev", "dev2", "dev3")


def _hashed(items: list[str], bits: int) -> np.ndarray:
    return np.array([zlib.crc32(x.encode()) & ((1 << bits) - 1) for x in items])


def _fit(rows: list[np.ndarray], labels: np.ndarray, size: int, epochs: int, seed: int) -> np.ndarray:
    """Logistic regression by plain SGD (classes weighted equally), deterministic for a seed."""
    rng, weights, lr = np.random.default_rng(seed), np.zeros(size), 0.2
    share = {1: len(labels) / (2 * max(1, labels.sum())), 0: len(labels) / (2 * max(1, (labels == 0).sum()))}
    for _ in range(epochs):
        for k in rng.permutation(len(rows)):
            p = 1 / (1 + np.exp(-weights[rows[k]].sum()))
            weights[rows[k]] += lr * share[int(labels[k])] * (labels[k] - p)
        lr *= 0.6
    return weights


def _prob(weights: np.ndarray, row: np.ndarray) -> float:
    return float(1 / (1 + np.exp(-weights[row].sum())))


def _letters(word: str) -> np.ndarray:
    s = f"^{word}$"
    return _hashed(["b"] + [f"{n}{s[i:i + n]}" for n in (2, 3, 4) for i in range(len(s) - n + 1)], 16)


def _listed(key: str) -> bool:
    return (WORDS.is_name(key) or key in WORDS.clinical or key in WORDS.everyday or key in WORDS.cities
            or key in WORDS.abbreviations or key in WORDS.short_forms or key in DETECTOR.non_names)


def name_likeness() -> None:
    """Experiment (1)."""
    names = {x for x in WORDS.first_names | WORDS.surnames if x.isalpha()}
    towns = {c for c in WORDS.cities if c.isalpha()}
    other = {x for x in WORDS.clinical | WORDS.everyday | WORDS.abbreviations | WORDS.short_forms if x.isalpha()}
    data = [(x, 1) for x in sorted((names | towns) - other)] + [(x, 0) for x in sorted(other - names - towns)]
    order = np.random.default_rng(0).permutation(len(data))
    data = [data[i] for i in order]
    test, train = data[:len(data) // 10], data[len(data) // 10:]
    weights = _fit([_letters(x) for x, _ in train], np.array([y for _, y in train]), 1 << 16, 6, 0)
    p, y = np.array([_prob(weights, _letters(x)) for x, _ in test]), np.array([y for _, y in test])
    print(f"(1) name-likeness from letters: {len(train)} listed words to train, {len(test)} held out")
    for th in (0.05, 0.2, 0.5, 0.9):
        print(f"    threshold {th}: held-out names kept {((p >= th) & (y == 1)).sum() / (y == 1).sum():.3f}, "
              f"other words called names {((p >= th) & (y == 0)).sum() / (y == 0).sum():.3f}")
    phi = missed = non = flagged = 0
    gains, losses = [0, 0, 0], [0, 0, 0]
    for name in TUNING:
        for text, gold in phi_sets.hand_annotated(name):
            spans = DETECTOR.detect(text)
            for t in tokenize(text):
                if t.kind != "w" or len(t.key) < 3 or _listed(t.key):
                    continue
                is_phi = any(s < t.end and t.start < e and ty for s, e, ty, _ in gold)
                found = any(s.start < t.end and t.start < s.end for s in spans)
                q = _prob(weights, _letters(t.key))
                phi, missed, non, flagged = phi + is_phi, missed + (is_phi and not found), \
                    non + (not is_phi), flagged + (found and not is_phi)
                for k, th in enumerate((0.5, 0.9, 0.95)):
                    gains[k] += is_phi and not found and q >= th
                    losses[k] += (not is_phi) and q >= th
    print(f"    words no list knows in dev, dev2, dev3: {phi} PHI ({missed} missed by the rules), {non} not PHI "
          f"({flagged} flagged by the rules)")
    for k, th in enumerate((0.5, 0.9, 0.95)):
        print(f"    calling names those at >= {th}: {gains[k]} misses found, "
              f"{losses[k]} words that are not PHI called names")


def _features(tokens: list[Token], i: int, verdicts: list[str]) -> np.ndarray:
    t = tokens[i]
    shape = "U" if t.text.isupper() else "l" if t.text.islower() else "T" if t.text[:1].isupper() else "m"
    lists = [n for n, s in (("first", WORDS.first_names), ("sur", WORDS.surnames), ("city", WORDS.cities),
                            ("every", WORDS.everyday), ("clin", WORDS.clinical), ("abbr", WORDS.abbreviations))
             if t.key in s] or ["none"]
    f = ["b", f"s={shape}", f"c={t.cased}", f"n={min(len(t.key), 8)}", f"t={int(DETECTOR.tier(t))}",
         f"f={t.first}", f"r={verdicts[i]}", *(f"l={x}" for x in lists)]
    for off in (-2, -1, 1, 2):
        j = i + off
        if not 0 <= j < len(tokens):
            f.append(f"w{off}=NONE")
            continue
        u = tokens[j]
        f += [f"w{off}={u.key if u.kind == 'w' else u.kind + u.text[:1]}", f"r{off}={verdicts[j]}"]
        f += [f"q{off}={k}" for k in ("relations", "titles_abbrev", "name_labels", "credentials", "place_cues")
              if u.key in RULES.words(k)]
    return _hashed(f, 18)


def _tokens_of(name: str) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    rows, labels, found = [], [], []
    for text, gold in phi_sets.hand_annotated(name):
        tokens, spans = tokenize(text), DETECTOR.detect(text)
        verdicts = [next((s.type.value for s in spans if s.start < t.end and t.start < s.end), "-") for t in tokens]
        for i, t in enumerate(tokens):
            mark = next((ty for s, e, ty, _ in gold if s < t.end and t.start < e), None)
            if t.kind == "w" and mark != "":
                rows.append(_features(tokens, i, verdicts))
                labels.append(1 if mark else 0)
                found.append(verdicts[i] != "-")
    return rows, np.array(labels), np.array(found)


def stacked() -> None:
    """Experiment (2)."""
    sets = {name: _tokens_of(name) for name in TUNING}
    print("(2) token classifier stacked on the rules, trained on two tuning sets and tested on the third")
    for test in TUNING:
        rows = [r for n in TUNING if n != test for r in sets[n][0]]
        weights = _fit(rows, np.concatenate([sets[n][1] for n in TUNING if n != test]), 1 << 18, 8, 0)
        x, y, found = sets[test]
        p = np.array([_prob(weights, r) for r in x])
        print(f"    {test}: {y.sum()} PHI words, rules find {(found & (y == 1)).sum()} and flag "
              f"{(found & (y == 0)).sum()} others")
        for th in (0.5, 0.7, 0.9):
            add, drop = ~found & (p >= th), found & (p < 1 - th)
            print(f"      threshold {th}: would add {(add & (y == 1)).sum()} PHI and {(add & (y == 0)).sum()} others, "
                  f"drop {(drop & (y == 1)).sum()} PHI and {(drop & (y == 0)).sum()} others")


if __name__ == "__main__":
    name_likeness()
    stacked()
