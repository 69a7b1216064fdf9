"""PHI detection on notes typed with slips of the keyboard: the seventh round's dense tuning sets (dev14 to dev23) with
seeded slips added outside their marked spans (a letter after the first dropped, doubled, swapped with the next or
struck for a neighbouring key, in about one word in 17 of four letters or more; a space after a stop or comma left out
in about one place in seven; a word doubled in about one in 100), scored as bench/phi.py scores (token level).

The marked identifiers are left as written, so what moves is what slips do to the words around them: jargon typed
wrong and read as a name or a place (false alarms), and cue words typed wrong. These sets were tuned on (their
false alarms were read); the held-out sets heldout23, heldout29 and heldout32, typed with slips by their own hands, are
the measurement. Prints, per set and pooled, recall, precision and false-alarm tokens per 1,000 with and without
slips, then `slips_false_alarms_per_1000 F clean_false_alarms_per_1000 C`.
Run: .venv/bin/python bench/phi_slips.py [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import re

import phi_sets  # noqa: F401  (puts tests/ on the path for the note reader)
from support import phi_notes
from support.phi_scoring import Tally

from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir

SETS = [f"dev{k}" for k in range(14, 24)]
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = {ch: row[max(0, i - 1):i] + row[i + 1:i + 2] for row in _ROWS for i, ch in enumerate(row)}
_MARK = re.compile(r"(\{\{.*?\}\}|^###[^\n]*$)", re.MULTILINE | re.DOTALL)


def slip(word: str, rnd: random.Random) -> str:
    """The word with one slip after its first letter (words of fewer than four letters are left as they are)."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = rnd.randrange(1, len(word) - 1)
    kind = rnd.choice(("swap", "drop", "double", "near"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2:]
    if kind == "drop":
        return word[:i] + word[i + 1:]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    near = _NEIGHBOURS.get(word[i].lower(), "")
    if not near:
        return word
    key = rnd.choice(near)
    return word[:i] + (key.upper() if word[i].isupper() else key) + word[i + 1:]


def with_slips(markup: str, seed: int) -> str:
    """A set's markup with slips added to the text outside its marks and note headers."""
    rnd = random.Random(seed)
    out = []
    for part in _MARK.split(markup):
        if part.startswith("{{") or part.startswith("###"):
            out.append(part)
            continue
        words = []
        for tok in re.split(r"(\s+)", part):
            m = re.match(r"^([^A-Za-z]*)([A-Za-z]+)(.*)$", tok)
            if m and rnd.random() < 0.06:
                tok = m.group(1) + slip(m.group(2), rnd) + m.group(3)
            if m and rnd.random() < 0.01:
                tok = f"{tok} {m.group(2)}"
            words.append(tok)
        text = "".join(words)
        out.append(re.sub(r"([A-Za-z][.,]) (?=[A-Za-z])",
                          lambda m: m.group(1) if rnd.random() < 0.15 else m.group(0), text))
    return "".join(out)


def main() -> None:
    """Score each set as written and with slips; print the pooled false alarms last."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="added to each set's number for its slips")
    args = parser.parse_args()
    detect = detector_for(default_redaction_dir().resolve()).detect
    pooled = {"clean": Tally(), "slips": Tally()}
    for name in SETS:
        markup = (phi_notes.FOLDER / f"{name}.txt").read_text(encoding="utf-8")
        line = []
        for kind, text in (("clean", markup), ("slips", with_slips(markup, args.seed + int(name[3:])))):
            tally = Tally()
            for note in phi_notes.parse_markup(text):
                gold = [(s.start, s.end, "" if s.type == phi_notes.NEUTRAL else s.type, s.cls) for s in note.spans]
                found = [(s.start, s.end, s.type.value) for s in detect(note.text)]
                tally.add((note.text, gold), found)
                pooled[kind].add((note.text, gold), found)
            line.append(f"{kind} {tally.recall():.3f} / {tally.precision():.3f} ({tally.per_thousand()[1]:.2f} FA)")
        print(f"{name:<6} " + "   ".join(line))
    for kind, tally in pooled.items():
        print(f"pooled {kind}: recall {tally.recall():.3f} precision {tally.precision():.3f}, "
              f"{tally.per_thousand()[1]:.2f} false-alarm tokens per 1,000")
    print(f"slips_false_alarms_per_1000 {pooled['slips'].per_thousand()[1]:.2f} "
          f"clean_false_alarms_per_1000 {pooled['clean'].per_thousand()[1]:.2f}")


if __name__ == "__main__":
    main()
