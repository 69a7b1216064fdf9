"""Rebuild redaction/vocabulary/ (clinical words, abbreviations, short forms) from public
medical text: word counts only, no sentence is kept. Run on a staging host that has the datasets:

    .venv/bin/python deploy/redaction/build_vocabulary.py [--datasets ../shared/datasets] [--out redaction/vocabulary]

Sources (as published in the datasets folder; see redaction/SOURCES.md for licences): MTSamples reports,
ACI-Bench notes (not its dialogues: lower-case transcripts write names and towns in lower case, and
bench/phi.py measures name recall on them; the metadata's names are dropped from the notes' counts),
MedQA USMLE test questions, HEAD-QA English, MEDEC-MS notes, MedCalc-Bench patient notes, PubMedQA
contexts and answers, EHRSQL-eICU questions (drug names as ICU orders write them). MedBullets
is left out on purpose: bench/phi.py uses its vignettes as an independent check on false alarms.

Counting is case-insensitive (accents folded); each word also records how often it was written in
lower case and in capitals and in how many sources it appears. A US Census first name is kept only when
it is written in lower case at least twice (one "hi martha" is no clinical word); the detector weighs
names against these counts (medhelm_local/redact/dictionaries.py).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
WORD = re.compile(r"[^\W\d_]+")
# A capitalised word (possessive or hyphenated to another allowed) and the noun after it: "Allis clamp",
# "Mallory-Weiss tear" (counts "Weiss"), "Homan's sign".
EPONYM = re.compile(r"(?<![\w'-])([A-Z][a-z]{2,})(?:'s|s')?[ -]{1,2}([a-z]{3,})(?![\w-])")
CSV_FIELD_LIMIT = 1 << 24
COMMON_SURNAMES = 20_000  # of 88,799 in frequency order; rarer ones ("levo", "fent") yield to short forms
# Nouns an eponym names ("Allis clamp", "Scarpa fascia", "Rinne test"), beside rules.yaml's eponym_followers.
EPONYM_NOUNS = frozenset("""clamp clamps forceps retractor retractors scissors clip clips knife blade stapler staples
suture sutures tear tears fascia malformation fracture fractures sign test tests maneuver disease syndrome procedure
operation incision catheter tube tubes scale score index criteria classification position needle drain dressing
solution stain approach technique repair elevator rongeur curette trocar speculum sheath wire wires device
questionnaire inventory nerve artery vein muscle space ring node nodes line lines reflex phenomenon""".split())
EPONYM_MIN = 2  # uses before such a noun
EPONYM_SHARE = 4  # and at least one in four of the word's capitalised uses


def fold(word: str) -> str:
    """Lower case, accents removed."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower()) if not unicodedata.combining(c))


def _csv(path: Path) -> Iterator[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def texts(root: Path) -> Iterator[tuple[str, str, frozenset[str]]]:
    """(source, text, words to drop) for every document of every source present."""
    for folder in ("mtsamples_replicate", "mtsamples_procedures"):
        for path in sorted((root / folder).rglob("*.txt")):
            if path.name != "SOURCE.txt":
                yield "mtsamples", path.read_text(encoding="utf-8", errors="replace"), frozenset()
    aci = root / "aci_bench" / "challenge_data"
    for meta in sorted(aci.glob("*_metadata.csv")):
        names: dict[str, frozenset[str]] = {}
        for row in _csv(meta):
            names[row["encounter_id"]] = frozenset(fold(w) for k in ("patient_firstname", "patient_familyname",
                                                                     "doctor_name")
                                                   for w in WORD.findall(row.get(k) or ""))
        for row in _csv(meta.with_name(meta.name.replace("_metadata", ""))):
            yield "aci_bench", row["note"], names.get(row["encounter_id"], frozenset())
    for line in (root / "medqa_usmle_4opt" / "phrases_no_exclude_test.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        yield "medqa", item["question"] + "\n" + " ".join(map(str, item.get("options", {}).values())), frozenset()
    for exam in json.loads((root / "head_qa" / "HEAD_EN.json").read_text(encoding="utf-8"))["exams"].values():
        for q in exam["data"]:
            yield "head_qa", q["qtext"] + "\n" + "\n".join(a["atext"] for a in q["answers"]), frozenset()
    for path in sorted((root / "medec").glob("*.csv")):
        for row in _csv(path):
            if row.get("Text"):
                yield "medec", row["Text"], frozenset()
    for row in _csv(root / "medcalc_bench" / "test_data.csv"):
        yield "medcalc_bench", row["Patient Note"], frozenset()
    for item in json.loads((root / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8")).values():
        yield "pubmedqa", "\n".join([item["QUESTION"], *item["CONTEXTS"], item["LONG_ANSWER"]]), frozenset()
    for name in ("valid.json", "test.json"):
        for item in json.loads((root / "ehrsql_eicu" / name).read_text(encoding="utf-8")):
            yield "ehrsql_eicu", item["question"], frozenset()


class Counts:
    """Word counts over all sources."""

    def __init__(self) -> None:
        self.total: Counter[str] = Counter()
        self.lower: Counter[str] = Counter()
        self.upper: Counter[str] = Counter()
        self.sources: defaultdict[str, set[str]] = defaultdict(set)
        self.lower_sources: defaultdict[str, set[str]] = defaultdict(set)
        self.capitalised: Counter[str] = Counter()
        self.eponym: Counter[str] = Counter()

    def add(self, source: str, text: str, drop: frozenset[str], nouns: frozenset[str] = EPONYM_NOUNS) -> None:
        for m in EPONYM.finditer(text):
            if m.group(2).lower() in nouns:
                self.eponym[fold(m.group(1))] += 1
        for raw in WORD.findall(text):
            word = fold(raw)
            if word in drop or not word.isascii():
                continue
            self.total[word] += 1
            self.sources[word].add(source)
            if raw.islower():
                self.lower[word] += 1
                self.lower_sources[word].add(source)
            elif raw.isupper() and len(raw) >= 2:
                self.upper[word] += 1
            elif raw[0].isupper():
                self.capitalised[word] += 1


def read_list(path: Path) -> frozenset[str]:
    """A shipped word list (one entry a line, `#` comments)."""
    lines = (line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(w for w in lines if w and not w.startswith("#"))


def write_tsv(path: Path, header: str, rows: list[tuple[object, ...]]) -> None:
    """A TSV with a comment header, one row a line."""
    body = "\n".join("\t".join(str(v) for v in row) for row in rows)
    path.write_text(f"# {header}\n# Rebuilt by deploy/redaction/build_vocabulary.py; see redaction/SOURCES.md.\n"
                    f"{body}\n", encoding="utf-8")


def build(root: Path, out: Path) -> None:
    """Count every source and write the four vocabulary files."""
    counts = Counts()
    rules = yaml.safe_load((REPO / "redaction" / "rules.yaml").read_text(encoding="utf-8"))
    nouns = EPONYM_NOUNS | frozenset(rules["context"]["eponym_followers"])
    for source, text, drop in texts(root):
        counts.add(source, text, drop, nouns)
    dictionaries = REPO / "redaction" / "dictionaries"
    first_names = read_list(dictionaries / "first_names.txt")

    def kept(word: str) -> bool:
        return word not in first_names or counts.lower[word] >= 2

    out.mkdir(parents=True, exist_ok=True)
    words = sorted((w for w, n in counts.total.items() if (n >= 2 or counts.lower[w]) and len(w) >= 2 and kept(w)),
                   key=lambda w: (-counts.total[w], w))
    write_tsv(out / "clinical_words.tsv", "word, count (any case), count in lower case, sources it appears in",
              [(w, counts.total[w], counts.lower[w], len(counts.sources[w])) for w in words])
    abbreviations = sorted((w for w, n in counts.upper.items() if n >= 2 and 2 <= len(w) <= 6 and kept(w)),
                           key=lambda w: (-counts.upper[w], w))
    write_tsv(out / "abbreviations.tsv", "abbreviation (2-6 letters), count written in capitals, sources",
              [(w, counts.upper[w], len(counts.sources[w])) for w in abbreviations])
    surnames = [w for w in (line.strip() for line in (dictionaries / "surnames.txt").read_text().splitlines())
                if w and not w.startswith("#")]
    common_names = first_names | frozenset(surnames[:COMMON_SURNAMES])
    eponyms = sorted((w for w, n in counts.eponym.items()
                      if n >= EPONYM_MIN and n * EPONYM_SHARE >= counts.capitalised[w] and len(w) >= 3),
                     key=lambda w: (-counts.eponym[w], w))
    write_tsv(out / "eponyms.tsv", "eponym (a capitalised word written before a clamp, a test, a fascia...), times "
              "so written, times capitalised", [(w, counts.eponym[w], counts.capitalised[w]) for w in eponyms])
    write_tsv(out / "short_forms.tsv", "short form (first 4-6 letters of a frequent clinical word), words it starts",
              short_forms(counts, common_names))


def short_forms(counts: Counts, common_names: frozenset[str]) -> list[tuple[object, ...]]:
    """Short forms as ICU notes write drugs and words ("levo", "dobut", "vanc", "pulm", "palp"): the first
    4-6 letters of a word seen at least 15 times, at least 3 letters short of it, unless the prefix is a
    first name, one of the commoner surnames, or a frequent word in its own right (counted as itself)."""
    found: defaultdict[str, list[str]] = defaultdict(list)
    for word, n in counts.total.most_common():
        if n < 15:
            break
        for size in range(4, min(6, len(word) - 3) + 1):
            found[word[:size]].append(word)
    return [(prefix, ",".join(words[:4])) for prefix, words in sorted(found.items())
            if prefix not in common_names and counts.total[prefix] < 20]


def write_everyday(scowl: Path, out: Path) -> None:
    """dictionaries/everyday_words.txt: SCOWL's lower-case entries (no possessives), accents folded."""
    words = sorted({fold(w) for w in (line.strip() for line in scowl.read_text(encoding="utf-8").splitlines())
                    if w and w == w.lower() and "'" not in w})
    out.write_text("\n".join(words) + "\n", encoding="utf-8")


def main() -> None:
    """Parse the arguments and build."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--out", type=Path, default=REPO / "redaction" / "vocabulary")
    parser.add_argument("--scowl", type=Path, help="also rewrite dictionaries/everyday_words.txt from this word "
                        "list (usr/share/dict/american-english of Debian's wamerican 2020.12.07-2)")
    args = parser.parse_args()
    if args.scowl:
        write_everyday(args.scowl, REPO / "redaction" / "dictionaries" / "everyday_words.txt")
    if not args.datasets.is_dir():
        sys.exit(f"no datasets folder at {args.datasets}: run `medhelm-local data stage` first or pass --datasets")
    csv.field_size_limit(CSV_FIELD_LIMIT)
    build(args.datasets, args.out)


if __name__ == "__main__":
    main()
