"""Would a learned component help PHI detection? Two small models measured against the rules (issue 32).

(1) Name-likeness of a word from its letters: logistic regression over hashed character 2-4-grams, trained on
the shipped lists (first names, surnames and one-word towns against clinical, everyday, abbreviation and short-form
words; 10% of them held out), then asked about the words that no list knows in dev, dev2 and dev3 and in the ICU
nursing sets dev14 ... dev36: how many of those that are PHI the rules miss and it would call names, and how many
that are not PHI it would call names.
(2) A token classifier stacked on the rules: logistic regression over the token's case, length, ambiguity tier,
list memberships, the rules' verdict, and the words, cues and verdicts two tokens either side; trained on two of
dev, dev2, dev3 and tested on the third: rule misses it would add and rule finds it would drop, per threshold.
(3) The same classifier, leave one set out over the 23 ICU nursing tuning sets dev14 ... dev36 (1,840 notes):
trained on 22, tested on the held one, for each; by default with added features (slip readings, the word
itself, its place in the line, verdict and case conjunctions, more cue lists), calibrated (unweighted) and fitted
by minibatch Adagrad. Per set and pooled: rule misses it would add, non-PHI words it would add, rule finds it
would cut (true and false), and token recall and precision (tests/support/phi_scoring.Tally) of the rules alone
and of rules plus model, at thresholds 0.5, 0.7, 0.9.
(4) The same classifier trained on every tuning set (`dev*`, every hand that wrote one) and measured on every
sparse held-out set (`heldout*`, hands that wrote no tuning set and notes no rule was written from): pooled
figures only, as in (3), and the shape a shipped filter would need (a redaction cannot keep half a name): a whole
rule span dropped when every word in it scores below 1 - threshold, nothing added.
(1) to (3) read only tuning sets. (4) scores the held-out sets and prints pooled counts only: no held-out word,
note or error is printed, and nothing of theirs is used to fit. Prints the figures; ships nothing.
Run: PYTHONPATH=. .venv/bin/python bench/phi_learned.py [--only 1|2|3|4] [--plain | --no-word]
"""

from __future__ import annotations

import argparse
import time
import zlib
from collections import Counter
from dataclasses import dataclass

import numpy as np
import phi_sets
from phi_sets import phi_notes
from support.phi_scoring import Doc, Tally

from medhelm_local.redact.detector import detector_for
from medhelm_local.redact.slips import Slips
from medhelm_local.redact.tokens import Token, tokenize
from medhelm_local.settings import default_redaction_dir

DETECTOR = detector_for(default_redaction_dir().resolve())
WORDS, RULES = DETECTOR.words, DETECTOR.rules
TUNING = ("dev", "dev2", "dev3")
NURSING = (  # the dense ICU nursing tuning sets, 80 notes each
    "dev14", "dev15", "dev16", "dev17", "dev18", "dev19", "dev20", "dev21", "dev22", "dev23", "dev24",
    "dev25", "dev26", "dev27", "dev28", "dev29", "dev30", "dev31", "dev32", "dev33", "dev34", "dev35", "dev36")


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
    for group, label in ((TUNING, "dev, dev2, dev3"), (NURSING, "dev14 ... dev36")):
        _unknown_words(weights, group, label)


def _unknown_words(weights: np.ndarray, group: tuple[str, ...], label: str) -> None:
    """Experiment (1) asked about the words of `group` that no list knows."""
    phi = missed = non = flagged = 0
    gains, losses = [0, 0, 0], [0, 0, 0]
    for name in group:
        for text, gold in _docs(name):
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
    print(f"    words no list knows in {label}: {phi} PHI ({missed} missed by the rules), {non} not PHI "
          f"({flagged} flagged by the rules)")
    for k, th in enumerate((0.5, 0.9, 0.95)):
        print(f"    calling names those at >= {th}: {gains[k]} misses found, "
              f"{losses[k]} words that are not PHI called names")


CUES = ("relations", "titles_abbrev", "titles_word", "name_labels", "name_verbs", "credentials", "greetings",
        "place_cues", "facility_words", "street_suffixes", "eponym_followers", "units", "date_cues")
WIDTH = 40  # features a row holds at most; shorter rows are padded with PAD, whose weight stays 0


def _cues(key: str) -> list[str]:
    return [k for k in CUES if key in RULES.words(k)]


def _features(tokens: list[Token], i: int, verdicts: list[str], rich: bool, word: bool = True) -> list[str]:
    """The names of a word token's features: the token itself, its rule verdict and two tokens either side;
    `rich` adds its slip readings, its place in the line, a few conjunctions and (with `word`) the word itself."""
    t = tokens[i]
    shape = "U" if t.text.isupper() else "l" if t.text.islower() else "T" if t.text[:1].isupper() else "m"
    lists = [n for n, s in (("first", WORDS.first_names), ("sur", WORDS.surnames), ("city", WORDS.cities),
                            ("every", WORDS.everyday), ("clin", WORDS.clinical), ("abbr", WORDS.abbreviations))
             if t.key in s] or ["none"]
    tier = int(DETECTOR.tier(t))
    f = ["b", f"s={shape}", f"c={t.cased}", f"n={min(len(t.key), 8)}", f"t={tier}",
         f"f={t.first}", f"r={verdicts[i]}", *(f"l={x}" for x in lists)]
    if rich:
        # what the rules' slip reading makes of the word as cues tighten, the word itself, where it stands
        # in its line, and the verdict joined with the tier and the word before
        f += [f"t{int(x)}={int(DETECTOR.tier(t, x))}" for x in (Slips.CLINICAL, Slips.FREQUENT, Slips.NONE)]
        f += [f"k={t.key}"] if word else []
        f += [f"r={verdicts[i]}|t={tier}|c={t.cased}", f"s={shape}|c={t.cased}|t={tier}",
              *(f"cue={k}" for k in _cues(t.key))]
        line = 0
        while i - line > 0 and not tokens[i - line].first:
            line += 1
        f.append(f"pos={min(line, 4)}")
    for off in (-2, -1, 1, 2):
        j = i + off
        if not 0 <= j < len(tokens):
            f.append(f"w{off}=NONE")
            continue
        u = tokens[j]
        if off > 0 and u.first:
            f.append(f"w{off}=EOL")
        f += [f"w{off}={u.key if u.kind == 'w' else u.kind + u.text[:1]}", f"r{off}={verdicts[j]}"]
        f += [f"q{off}={k}" for k in ("relations", "titles_abbrev", "name_labels", "credentials", "place_cues")
              if u.key in RULES.words(k)]
        if rich and abs(off) == 1:
            f += [f"r{off}={verdicts[j]}|r={verdicts[i]}", f"w{off}={u.key}|s={shape}"]
    return f


def _tokens_of(name: str) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Experiment (2) as first run: each word token of a set (neutral ones left out) as hashed features."""
    rows, labels, found = [], [], []
    for text, gold in phi_sets.hand_annotated(name):
        tokens, spans = tokenize(text), DETECTOR.detect(text)
        verdicts = [next((s.type.value for s in spans if s.start < t.end and t.start < s.end), "-") for t in tokens]
        for i, t in enumerate(tokens):
            mark = next((ty for s, e, ty, _ in gold if s < t.end and t.start < e), None)
            if t.kind == "w" and mark != "":
                rows.append(_hashed(_features(tokens, i, verdicts, False), 18))
                labels.append(1 if mark else 0)
                found.append(verdicts[i] != "-")
    return rows, np.array(labels), np.array(found)


def stacked() -> None:
    """Experiment (2) on dev, dev2, dev3, as first run."""
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


# Experiment (3): the stacked classifier, leave one set out over the dense ICU nursing tuning sets.
THRESHOLDS = (0.5, 0.7, 0.9)
BITS = 20
PAD = 1 << BITS


def _docs(name: str, held_out: bool = False) -> list[Doc]:
    """A tuning set's documents, from its JSONL or, where only the authoring markup is there yet, from that; a
    held-out set's only with `held_out` (experiment (4), which prints pooled counts of them and nothing else)."""
    if name.startswith("heldout") and held_out:
        return phi_sets.hand_annotated(name)
    if not name.startswith("dev"):
        raise ValueError(f"{name}: only tuning sets are read here")
    if (phi_notes.FOLDER / f"{name}.jsonl").exists():
        return phi_sets.hand_annotated(name)
    notes = phi_notes.parse_markup((phi_notes.FOLDER / f"{name}.txt").read_text(encoding="utf-8"))
    return [(n.text, [(s.start, s.end, "" if s.type == phi_notes.NEUTRAL else s.type, s.cls) for s in n.spans])
            for n in notes]


@dataclass
class Units:
    """A set's word tokens as the classifier sees them (neutral ones left out), with what the rules made of them."""

    docs: list[Doc]
    rule_spans: list[list[tuple[int, int, str]]]
    x: np.ndarray  # (tokens, WIDTH) hashed feature indices, padded with PAD
    y: np.ndarray  # 1 where the token is PHI
    found: np.ndarray  # True where a rule span covers it
    doc: np.ndarray  # the document it is in
    where: np.ndarray  # (tokens, 2) its start and end


def _units(name: str, rich: bool, word: bool, held_out: bool = False) -> Units:
    docs = _docs(name, held_out)
    rule_spans, rows, labels, found, doc, where = [], [], [], [], [], []
    mask = (1 << BITS) - 1
    for d, (text, gold) in enumerate(docs):
        tokens, spans = tokenize(text), DETECTOR.detect(text)
        rule_spans.append([(s.start, s.end, s.type.value) for s in spans])
        verdicts = [next((s.type.value for s in spans if s.start < t.end and t.start < s.end), "-") for t in tokens]
        for i, t in enumerate(tokens):
            mark = next((ty for s, e, ty, _ in gold if s < t.end and t.start < e), None)
            if t.kind != "w" or mark == "":
                continue
            names = _features(tokens, i, verdicts, rich, word)[:WIDTH]
            rows.append([zlib.crc32(x.encode()) & mask for x in names] + [PAD] * (WIDTH - len(names)))
            labels.append(1 if mark else 0)
            found.append(verdicts[i] != "-")
            doc.append(d)
            where.append((t.start, t.end))
    return Units(docs, rule_spans, np.array(rows, dtype=np.int64), np.array(labels), np.array(found, dtype=bool),
                 np.array(doc), np.array(where).reshape(-1, 2))


def _train(x: np.ndarray, y: np.ndarray, epochs: int = 4, batch: int = 1024, lr: float = 0.2,
           l2: float = 1e-6) -> np.ndarray:
    """Logistic regression (unweighted, so its probabilities are calibrated) by minibatch Adagrad over a fixed
    seeded order: deterministic, and a few seconds for ~250,000 tokens."""
    weights, squares = np.zeros(PAD + 1), np.full(PAD + 1, 1e-8)
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for k in range(0, len(y), batch):
            rows = x[order[k:k + batch]]
            p = 1 / (1 + np.exp(-weights[rows].sum(axis=1)))
            used = np.unique(rows)
            grad = np.bincount(rows.ravel(), weights=np.repeat(p - y[order[k:k + batch]], WIDTH), minlength=PAD + 1)
            grad = grad[used] + l2 * len(rows) * weights[used]
            squares[used] += grad ** 2
            weights[used] -= lr * grad / np.sqrt(squares[used])
            weights[PAD] = 0.0
    return weights


def _combined(units: Units, p: np.ndarray, th: float) -> tuple[list[list[tuple[int, int, str]]], np.ndarray,
                                                                np.ndarray]:
    """Each document's spans as the rules plus the model at a threshold: a word token the rules leave is added
    at p >= th, a word token they find is cut out of its span at p < 1 - th; and those two token masks."""
    add, drop = ~units.found & (p >= th), units.found & (p < 1 - th)
    out = []
    for d in range(len(units.docs)):
        cuts = sorted((int(a), int(b)) for a, b in units.where[drop & (units.doc == d)])
        spans: list[tuple[int, int, str]] = []
        for s, e, ty in units.rule_spans[d]:
            for a, b in cuts:
                if a < e and s < b:
                    if s < a:
                        spans.append((s, a, ty))
                    s = max(s, b)
            if s < e:
                spans.append((s, e, ty))
        spans += [(int(a), int(b), "NAME") for a, b in units.where[add & (units.doc == d)]]
        out.append(spans)
    return out, add, drop


def _tally(docs: list[Doc], spans: list[list[tuple[int, int, str]]], into: Tally | None = None) -> Tally:
    tally = into if into is not None else Tally()
    for doc, found in zip(docs, spans, strict=True):
        tally.add(doc, found)
    return tally


def leave_one_out(rich: bool, word: bool) -> None:
    """Experiment (3): train on all of NURSING but one, score the held one, for each; then pooled."""
    started = time.process_time()
    sets = {name: _units(name, rich, word) for name in NURSING}
    words = sum(len(u.y) for u in sets.values())
    added = "the added features" + ("" if word else " but the word itself") if rich else "the first run's features"
    print(f"(3) stacked token classifier ({added}), leave one set out "
          f"over {', '.join(NURSING)}: {sum(len(u.docs) for u in sets.values())} notes, {words} word tokens "
          f"({time.process_time() - started:.0f} CPU-s to read and detect)")
    pooled_rules, pooled = Tally(), {th: Tally() for th in THRESHOLDS}
    counts = {th: np.zeros(4, dtype=int) for th in THRESHOLDS}
    for name in NURSING:
        test = sets[name]
        others = [sets[n] for n in NURSING if n != name]
        weights = _train(np.concatenate([u.x for u in others]), np.concatenate([u.y for u in others]))
        p = 1 / (1 + np.exp(-weights[test.x].sum(axis=1)))
        rules = _tally(test.docs, test.rule_spans)
        _tally(test.docs, test.rule_spans, pooled_rules)
        y, found = test.y == 1, test.found
        line = (f"    {name}: {y.sum()} PHI words, rules find {(found & y).sum()} and flag {(found & ~y).sum()} others;"
                f" rules R {rules.recall():.4f} P {rules.precision():.4f}")
        print(line)
        for th in THRESHOLDS:
            spans, add, drop = _combined(test, p, th)
            tally = _tally(test.docs, spans)
            _tally(test.docs, spans, pooled[th])
            row = np.array([(add & y).sum(), (add & ~y).sum(), (drop & y).sum(), (drop & ~y).sum()])
            counts[th] += row
            print(f"      {th}: add {row[0]} PHI / {row[1]} not PHI, drop {row[2]} true finds / {row[3]} false "
                  f"alarms; rules+model R {tally.recall():.4f} P {tally.precision():.4f}")
    y, found = np.concatenate([u.y for u in sets.values()]) == 1, np.concatenate([u.found for u in sets.values()])
    print(f"    pooled: {y.sum()} PHI words, rules miss {(~found & y).sum()} and flag {(found & ~y).sum()} others; "
          f"rules alone R {pooled_rules.recall():.4f} P {pooled_rules.precision():.4f} over "
          f"{sum(v for k, v in pooled_rules.gold.items() if '/' not in k and k != 'GPE')} PHI tokens of every kind")
    for th in THRESHOLDS:
        c = counts[th]
        print(f"      {th}: add {c[0]} PHI / {c[1]} not PHI, drop {c[2]} true finds / {c[3]} false alarms; "
              f"rules+model R {pooled[th].recall():.4f} P {pooled[th].precision():.4f}")
    print(f"    ({time.process_time() - started:.0f} CPU-s in all)")


def _span_drops(units: Units, p: np.ndarray, th: float) -> tuple[list[list[tuple[int, int, str]]], Counter[str]]:
    """Each document's rule spans less those whose every word token scores below 1 - th, and how many spans were
    dropped, by type and by whether any of their words is PHI."""
    out, dropped = [], Counter[str]()
    for d in range(len(units.docs)):
        mine = np.nonzero(units.doc == d)[0]
        kept = []
        for s, e, ty in units.rule_spans[d]:
            inside = [k for k in mine if units.where[k][0] < e and s < units.where[k][1]]
            if inside and max(p[k] for k in inside) < 1 - th:
                dropped[f"{ty} {'PHI' if any(units.y[k] for k in inside) else 'not PHI'}"] += 1
            else:
                kept.append((s, e, ty))
        out.append(kept)
    return out, dropped


def held_out(word: bool) -> None:
    """Experiment (4): train on every tuning set, score every sparse held-out set, pooled figures only."""
    started = time.process_time()
    folder = phi_notes.FOLDER
    tuning = sorted(p.stem for p in folder.glob("dev*.jsonl"))
    measured = sorted(p.stem for p in folder.glob("heldout*.jsonl"))
    train = [_units(name, True, word) for name in tuning]
    weights = _train(np.concatenate([u.x for u in train]), np.concatenate([u.y for u in train]))
    words = sum(len(u.y) for u in train)
    del train
    rules, tokens = Tally(), {th: Tally() for th in THRESHOLDS}
    spans_only = {th: Tally() for th in THRESHOLDS}
    counts = {th: np.zeros(4, dtype=int) for th in THRESHOLDS}
    dropped: dict[float, Counter[str]] = {th: Counter() for th in THRESHOLDS}
    notes = 0
    for name in measured:
        test = _units(name, True, word, held_out=True)
        notes += len(test.docs)
        p = 1 / (1 + np.exp(-weights[test.x].sum(axis=1)))
        _tally(test.docs, test.rule_spans, rules)
        y = test.y == 1
        for th in THRESHOLDS:
            spans, add, drop = _combined(test, p, th)
            _tally(test.docs, spans, tokens[th])
            counts[th] += [(add & y).sum(), (add & ~y).sum(), (drop & y).sum(), (drop & ~y).sum()]
            kept, gone = _span_drops(test, p, th)
            _tally(test.docs, kept, spans_only[th])
            dropped[th] += gone
    with_word = "with" if word else "without"
    print(f"(4) stacked token classifier ({with_word} the word itself) trained on {len(tuning)} tuning sets "
          f"({words} word tokens), scored on {len(measured)} held-out sets ({notes} notes; pooled counts only)")
    print(f"    rules alone: R {rules.recall():.4f} P {rules.precision():.4f}")
    for th in THRESHOLDS:
        c = counts[th]
        print(f"      {th}, tokens added and cut: add {c[0]} PHI / {c[1]} not PHI, cut {c[2]} true finds / {c[3]} "
              f"false alarms; R {tokens[th].recall():.4f} P {tokens[th].precision():.4f}")
        gone = dropped[th]
        print(f"      {th}, whole spans dropped only: {sum(v for k, v in gone.items() if not k.endswith('not PHI'))} "
              f"holding PHI / {sum(v for k, v in gone.items() if k.endswith('not PHI'))} not; "
              f"R {spans_only[th].recall():.4f} P {spans_only[th].precision():.4f} {dict(sorted(gone.items()))}")
    print(f"    ({time.process_time() - started:.0f} CPU-s in all)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=("1", "2", "3", "4"), help="run one experiment")
    parser.add_argument("--plain", action="store_true", help="(3) with the first run's features only")
    parser.add_argument("--no-word", action="store_true", help="(3), (4) without the word itself as a feature")
    args = parser.parse_args()
    if args.only in (None, "1"):
        name_likeness()
    if args.only in (None, "2"):
        stacked()
    if args.only in (None, "3"):
        leave_one_out(not args.plain, not args.no_word)
    if args.only in (None, "4"):
        held_out(not args.no_word)
