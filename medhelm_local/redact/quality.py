"""What PHI detection was measured to find on clinical text its rules were not tuned on: the 44 hand-annotated notes of
tests/data/phi_notes/independent.jsonl, the ICU nursing notes of heldout2.jsonl, heldout3.jsonl, heldout5.jsonl,
heldout6.jsonl to heldout21.jsonl written by other hands without reading the rules (the long notes of heldout6 to
heldout21 hold identifiers as sparsely as real ones, so their precision is the one to expect on a real corpus), and
heldout4.jsonl (issue 32's third round, written before its rules changed), scored by bench/phi.py (token-level). A
test checks these figures against the shipped rules, so a rule change that moves them must restate them."""

from __future__ import annotations

INDEPENDENT_NOTES = 44
INDEPENDENT_RECALL = 0.970
INDEPENDENT_PRECISION = 0.957
# set name -> (notes, recall, precision)
HELDOUT = {"heldout2": (130, 0.975, 0.982), "heldout3": (166, 0.974, 0.984), "heldout5": (120, 0.954, 0.985),
           "heldout6": (80, 0.991, 0.947), "heldout7": (80, 0.968, 0.973), "heldout8": (80, 0.995, 0.971),
           "heldout9": (80, 0.986, 0.941), "heldout10": (72, 0.973, 0.947), "heldout11": (80, 0.982, 0.944),
           "heldout12": (80, 0.983, 0.938), "heldout13": (80, 0.973, 0.965), "heldout14": (80, 0.964, 0.969),
           "heldout15": (80, 0.938, 0.947), "heldout16": (80, 0.991, 0.950), "heldout17": (80, 0.979, 0.963),
           "heldout18": (80, 0.989, 0.928), "heldout19": (80, 0.974, 0.949), "heldout20": (80, 0.969, 0.941),
           "heldout21": (80, 0.995, 0.954)}
# Measured only too, but written by the engineer who then changed the rules (before changing them), so it is kept
# out of the residual-risk sentence, which speaks of notes written by others.
SAME_HAND = {"heldout4": (45, 0.963, 0.990)}


def residual_risk() -> str:
    """One sentence for `policy check` and the README: the measured recall and what it leaves."""
    lowest = min(recall for _, recall, _ in HELDOUT.values())
    icu_notes = sum(notes for notes, _, _ in HELDOUT.values())
    missed = round(1 / (1 - lowest))
    return (f"measured recall {INDEPENDENT_RECALL:.3f} (precision {INDEPENDENT_PRECISION:.3f}) on "
            f"{INDEPENDENT_NOTES} hand-annotated clinical notes independent of its rules, and {lowest:.3f} at worst on "
            f"{icu_notes} ICU nursing notes written by others without reading them: about 1 identifier word in "
            f"{missed} is missed, so redacted text is not anonymous (the shipped export.yaml never lets prompts of "
            "gated or private data out)")
