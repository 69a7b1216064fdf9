"""False alarms on public clinical text that holds no real PHI, in its own case, in capitals and in lower case
(issue 32: the real ICU notes it is measured on are written all in capitals or all in lower case).

Corpora, from the datasets folder of bench/phi_sets.py (each SOURCE.txt says what the text is): MedBullets
question vignettes with their explanations, the MedXpertQA text sample, SCT-Bench stems, MEDEC-MS notes, MTSamples
reports (the replicate and procedure folders, the same report once) and MedCalc-Bench's patient notes taken from
PubMed Central case reports (added at issue 32's twelfth round: real clinical writing by many hands). MedBullets,
MedXpertQA, SCT-Bench and MedCalc-Bench are in none of the vocabularies `redaction/vocabulary` is counted from; MEDEC
and MTSamples are (and MTSamples copies were read for false alarms in earlier rounds), so theirs are the easier
figures. ACI-Bench is left out: its dialogues hold people's names.

Every corpus is split by the SHA-256 of each document's text: an even first byte puts it in the TUNING half
(its flagged strings may be listed and read), an odd one in the MEASURING half (figures only, never a list).
At most `CAP` documents of each half are taken, in digest order, so a run stays short. Run alone
(`PYTHONPATH=.:bench .venv/bin/python bench/phi_negatives.py`), it lists what the detector flags in every document of
the tuning half, capped or not: where jargon read as an identifier is looked for (issue 32's fifteenth round).

What counts as a false alarm: a token inside a span typed NAME, HOSPITAL, CITY or STREET (the name-like types
that jargon is mistaken for). These texts are invented or de-identified vignettes, but they do carry ages over
89, years and the odd date or phone, which a detector is right to mask; those flags are counted apart
("other flags") and not called false alarms.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import phi_sets  # noqa: F401  (it puts tests/ on the path, for support)
from support.phi_scoring import TOKEN

NAME_LIKE = frozenset({"NAME", "HOSPITAL", "CITY", "STREET"})
CAP = 150
COPIES: dict[str, Callable[[str], str]] = {"original": lambda t: t, "UPPER": str.upper, "lower": str.lower}


@dataclass(frozen=True)
class Tallies:
    """Counts of one corpus half in one copy: tokens, false-alarm tokens, other flagged tokens, flagged strings."""

    tokens: int
    false_alarms: int
    other_flags: int
    flagged: Counter[str]


def _medbullets(root: Path) -> list[str]:
    rows = csv.DictReader((root / "medbullets" / "medbullets_op4.csv").open(encoding="utf-8"))
    return [f"{r['question']}\n\n{r['explanation']}" for r in rows]


def _medxpert(root: Path) -> list[str]:
    path = root / "medxpert_qa_text" / "medxpertqa_sampled_text_input.jsonl"
    return [json.loads(line)["question"] for line in path.open(encoding="utf-8") if line.strip()]


def _sct(root: Path) -> list[str]:
    rows = csv.DictReader((root / "sct_bench" / "sct_cleaned_full.csv").open(encoding="utf-8"))
    return [" ".join(r[k] for k in ("sct_stem", "question", "additional_info") if r.get(k)) for r in rows]


def _medec(root: Path) -> list[str]:
    texts = []
    for name in ("MEDEC-MS-TestSet-with-GroundTruth-and-ErrorType.csv",
                 "MEDEC-MS-ValidationSet-with-GroundTruth-and-ErrorType.csv"):
        texts += [r["Text"] for r in csv.DictReader((root / "medec" / name).open(encoding="utf-8"))]
    return texts


def _mtsamples(root: Path) -> list[str]:
    folders = (root / "mtsamples_replicate" / "mtsamples_processed",
               root / "mtsamples_procedures" / "mtsample_procedure")
    return [p.read_text(encoding="utf-8", errors="replace") for f in folders for p in sorted(f.glob("*.txt"))]


def _medcalc(root: Path) -> list[str]:
    rows = csv.DictReader((root / "medcalc_bench" / "test_data.csv").open(encoding="utf-8"))
    return [r["Patient Note"] for r in rows if r["Note ID"].startswith("pmc")]  # PubMed Central case reports


CORPORA: dict[str, tuple[str, Callable[[Path], list[str]]]] = {
    "medbullets": ("medbullets/medbullets_op4.csv", _medbullets),
    "medxpert": ("medxpert_qa_text/medxpertqa_sampled_text_input.jsonl", _medxpert),
    "sct": ("sct_bench/sct_cleaned_full.csv", _sct),
    "medec": ("medec", _medec),
    "mtsamples": ("mtsamples_replicate/mtsamples_processed", _mtsamples),
    "medcalc": ("medcalc_bench/test_data.csv", _medcalc),
}


def halves(texts: list[str], cap: int | None = CAP) -> dict[str, list[str]]:
    """The tuning and measuring halves (even / odd first byte of each text's SHA-256), duplicates once, `cap` each
    (None: every document of the half)."""
    keyed = sorted({hashlib.sha256(t.encode("utf-8")).digest(): t for t in texts if t.strip()}.items())
    tuning = [t for d, t in keyed if d[0] % 2 == 0][:cap]
    measuring = [t for d, t in keyed if d[0] % 2 == 1][:cap]
    return {"tuning": tuning, "measuring": measuring}


def corpora(root: Path) -> dict[str, dict[str, list[str]]]:
    """Every corpus present under `root`, split into its halves."""
    return {name: halves(load(root)) for name, (probe, load) in CORPORA.items() if (root / probe).exists()}


def tally(texts: list[str], detect: Callable[[str], list[tuple[int, int, str]]]) -> Tallies:
    """Detect on every text and count tokens, name-like flagged tokens and other flagged tokens."""
    tokens = false_alarms = other = 0
    flagged: Counter[str] = Counter()
    for text in texts:
        tokens += sum(1 for _ in TOKEN.finditer(text))
        for start, end, kind in detect(text):
            n = len(TOKEN.findall(text[start:end]))
            if kind in NAME_LIKE:
                false_alarms += n
                flagged[f"{text[start:end]}/{kind}"] += 1
            else:
                other += n
    return Tallies(tokens, false_alarms, other, flagged)


def _list_tuning_flags(root: Path, limit: int) -> None:
    """Every flag the shipped detector raises on every TUNING-half document (not only the first CAP), in capitals and
    in lower case, most frequent first with one context each: where jargon read as an identifier is looked for. The
    measuring half is never read here."""
    from medhelm_local.redact.detector import detector_for
    from medhelm_local.settings import default_redaction_dir

    detector = detector_for(default_redaction_dir().resolve())
    seen: Counter[str] = Counter()
    context: dict[str, str] = {}
    documents = 0
    for name, (probe, load) in CORPORA.items():
        if not (root / probe).exists():
            continue
        tuning = halves(load(root), cap=None)["tuning"]
        documents += len(tuning)
        for text in tuning:
            for copy in (text.upper(), text.lower()):
                for span in detector.detect(copy):
                    key = f"{copy[span.start:span.end].lower()}/{span.type.value}"
                    seen[key] += 1
                    around = copy[max(0, span.start - 50):span.end + 50].replace("\n", " ")
                    context.setdefault(key, f"{name}: {around}")
    print(f"{documents} tuning-half documents, {sum(seen.values())} flags in capitals and lower case")
    for key, count in seen.most_common(limit):
        print(f"{count:>4} {key:<40} | {context[key]}")


if __name__ == "__main__":
    import argparse

    from phi_sets import SHARED

    parser = argparse.ArgumentParser(description="List what the detector flags in caps_negatives' whole tuning half.")
    parser.add_argument("--limit", type=int, default=300, help="how many flagged strings to list")
    _list_tuning_flags(SHARED, parser.parse_args().limit)

