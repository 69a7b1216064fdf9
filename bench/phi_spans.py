"""Every span the detector finds on every PHI set, as one fingerprint a set: proof that a change to how
the detector runs (speed work) left what it finds alone.

Prints one line a set (notes, spans, the SHA-256 of its spans with their types) and, with --dump FILE,
writes every span as `set<TAB>note<TAB>start<TAB>end<TAB>type` so two dumps can be compared with `diff`.
Sets are those of bench/phi.py (plus the masked copies of the hand-annotated notes, so the path that blanks
masks first is covered too); public sets are skipped when ../shared/datasets (or PHI_BENCH_DATASETS) lacks them.
Run: .venv/bin/python bench/phi_spans.py [--dump spans.tsv]
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Iterator
from pathlib import Path

import phi_sets
from phi_sets import SHARED

from medhelm_local.redact.detector import detector_for
from medhelm_local.redact.surrogates import mask
from medhelm_local.settings import default_redaction_dir

HAND = ("independent", "dev", "dev2", "dev3", "dev4", "heldout2", "heldout3", "heldout4", "heldout5")


def texts() -> Iterator[tuple[str, list[str]]]:
    """(set name, its note texts) for every set found here."""
    for name in HAND:
        if (phi_sets.phi_notes.FOLDER / f"{name}.jsonl").exists():
            yield name, [t for t, _ in phi_sets.hand_annotated(name)]
    presidio = SHARED / "presidio_synth_pii" / "synth_dataset_v2.json"
    if presidio.exists():
        yield "presidio", [t for t, _ in phi_sets.presidio(presidio)]
    meddocan = SHARED / "meddocan_es" / "corpus" / "test" / "brat"
    if meddocan.exists():
        yield "meddocan", [t for t, _ in phi_sets.meddocan(meddocan)]
    aci = SHARED / "aci_bench" / "challenge_data"
    if aci.exists():
        yield "aci", [t for t, _ in phi_sets.aci_dialogues(aci)]
    vignettes = SHARED / "medbullets" / "medbullets_op4.csv"
    if vignettes.exists():
        yield "vignettes", phi_sets.vignettes(vignettes)
    yield "synthetic", [t for t, _ in phi_sets.synthetic(400, 0)]


def main() -> None:
    """Fingerprint every set's spans; the masked copies of the hand-annotated sets last."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--dump", type=Path, help="write every span here, one a line")
    args = parser.parse_args()
    detector = detector_for(default_redaction_dir().resolve())
    lines: list[str] = []
    masked: list[tuple[str, list[str]]] = []
    for name, notes in texts():
        digest, count = hashlib.sha256(), 0
        for i, text in enumerate(notes):
            spans = detector.detect(text)
            for s in spans:
                row = f"{name}\t{i}\t{s.start}\t{s.end}\t{s.type.value}"
                digest.update(row.encode() + b"\n")
                lines.append(row)
            count += len(spans)
            if name in HAND:
                masked.append((name, [mask(text, spans)]))
        print(f"{name:<12} {len(notes):>5} notes {count:>6} spans  {digest.hexdigest()[:16]}")
    # A masked note run again: the detector blanks the masks first, a second path through detect().
    digest, count = hashlib.sha256(), 0
    for i, (name, (text,)) in enumerate(masked):
        for s in detector.detect(text):
            row = f"masked-{name}\t{i}\t{s.start}\t{s.end}\t{s.type.value}"
            digest.update(row.encode() + b"\n")
            lines.append(row)
            count += 1
    print(f"{'masked':<12} {len(masked):>5} notes {count:>6} spans  {digest.hexdigest()[:16]}")
    if args.dump:
        args.dump.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
