"""Item 14: a whole chart on one line is detected in bounded memory, with the same spans as at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import CLI, REPO

from medhelm_local.redact import detector_for
from medhelm_local.redact.batch import WINDOW, detect_long

NOTES = [
    "Mr. Oyelaran was seen on 03/14/2021 for chest pain; call (617) 555-0143 with results.",
    "Lactate 4.1, BP 88/50, HR 124. MRN 48213377. Plan: fluids, cultures, reassess in 1 hour.",
    "Daughter Chiamaka reachable at 555-0188. Lives at 42 Maple Street, Springfield.",
    "ABG 7.35/45/88, O2 sat 94% on 2L. No distress. Oyelaran agrees with the plan.",
    "Seen by Dr. Wojciech Przybylski, e-mail w.przybylski@example.org, SSN 123-45-6789.",
]


def _chart(characters: int) -> str:
    parts, n = [], 0
    while sum(len(p) + 1 for p in parts) < characters:
        parts.append(NOTES[n % len(NOTES)].replace("1 hour", f"{n % 7 + 1} hours"))
        n += 1
    return " ".join(parts)


def test_window_by_window_finds_what_detection_at_once_finds() -> None:
    detector = detector_for((REPO / "redaction").resolve())
    text = _chart(3 * WINDOW + 5000)
    assert "\n" not in text and len(text) > 3 * WINDOW
    assert detect_long(detector, text) == detector.detect(text)


def test_a_name_cued_in_one_window_is_marked_in_another() -> None:
    detector = detector_for((REPO / "redaction").resolve())
    filler = "Lactate 4.1, BP 88/50, HR 124, reassess in one hour. " * (2 * WINDOW // 50)
    text = f"Patient: Mr. Zbigniewski, admitted. {filler} Zbigniewski agrees with the plan."
    found = {text[s.start:s.end] for s in detect_long(detector, text)}
    assert text.rindex("Zbigniewski") > 2 * WINDOW and "Zbigniewski" in found
    assert [s for s in detect_long(detector, text) if s.start == text.rindex("Zbigniewski")]


def _peak_kb(tmp_path: Path, text: str) -> int:
    """Peak memory of `redact scan` over one line holding `text`, in KB."""
    chart = tmp_path / "chart.jsonl"
    chart.write_text(json.dumps({"id": "c1", "text": text}) + "\n")
    # A fresh parent whose only child is the CLI: its children's peak RSS is the command's own.
    probe = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
             "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", probe, str(CLI), "redact", "scan", "-i", str(chart), "-o",
                           str(tmp_path / "spans.jsonl")], capture_output=True, text=True, timeout=600)
    code, peak_kb = map(int, done.stdout.split())
    assert code == 0, done.stderr
    return peak_kb


def test_scan_of_a_one_megabyte_line_stays_in_bounded_memory(tmp_path: Path) -> None:
    small = _peak_kb(tmp_path, _chart(1000))
    large = _peak_kb(tmp_path, _chart(1_000_000))
    assert len(json.loads((tmp_path / "spans.jsonl").read_text())["spans"]) > 25_000
    # Detected at once, a line cost ~95 MB per MB of text on top of the program (2.2 GB for 20 MB);
    # window by window it costs the line, its spans and their JSON: ~15 MB per MB.
    assert large - small < 40_000, f"{(large - small) / 1024:.0f} MB more for a 1 MB line"
