"""PubMedQA (PQA-L): labelled abstract sections and the question; options yes, no, maybe."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

ANSWERS = ("yes", "no", "maybe")


@reader("pubmed_qa")
def read_pubmed_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per PMID: labelled context sections, then the question; references yes/no/maybe."""
    data = json.loads(paths["ori_pqal.json"].read_text("utf-8"))
    for pmid, item in data.items():
        labelled = zip(item["LABELS"], item["CONTEXTS"], strict=True)
        sections = "\n".join(f"{label.title()}. {text}" for label, text in labelled)
        decision = item["final_decision"]
        if decision not in ANSWERS:
            raise ValueError(f"PMID {pmid}: final_decision is not yes/no/maybe")
        yield Instance(str(pmid), f"Context: {sections}\n\nQuestion: {item['QUESTION']}\n",
                       tuple(Reference(a, a == decision) for a in ANSWERS))
