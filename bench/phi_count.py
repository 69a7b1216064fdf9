"""PHI detection's work counted in machine instructions, which the machine's load does not move (its timings move by
a third with the other sessions' work): run under callgrind, this turns counting on only around `detect`.

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=cg.out \\
        .venv/bin/python bench/phi_count.py --sets independent --rounds 2
    callgrind_annotate cg.out | grep "PROGRAM TOTALS"      # divide by rounds x notes (printed)

The rule pack is loaded and every note detected once first (as a long export would have warmed the detector),
outside the count. Without valgrind it only runs the rounds.
Run: .venv/bin/python bench/phi_count.py [--sets independent,heldout2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess

import phi_sets

from medhelm_local.redact.detector import detector_for
from medhelm_local.settings import default_redaction_dir


def _instrument(on: bool) -> None:
    """Turn callgrind's counting on or off for this process (nothing when not under valgrind)."""
    control = shutil.which("callgrind_control")
    if control and "vgpreload" in os.environ.get("LD_PRELOAD", ""):  # valgrind preloads its own libraries
        subprocess.run([control, "-i", "on" if on else "off", str(os.getpid())], capture_output=True, check=False)


def main() -> None:
    """Warm the detector on the chosen sets, then detect them `--rounds` times with counting on."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sets", default="independent", help="comma-separated hand-annotated sets")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    detector = detector_for(default_redaction_dir().resolve())
    texts = [text for name in args.sets.split(",") for text, _ in phi_sets.hand_annotated(name)]
    for text in texts:
        detector.detect(text)
    _instrument(True)
    for _ in range(args.rounds):
        for text in texts:
            detector.detect(text)
    _instrument(False)
    print(f"counted {args.rounds} rounds x {len(texts)} notes = {args.rounds * len(texts)} detections")


if __name__ == "__main__":
    main()
