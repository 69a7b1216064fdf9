"""HEAD-QA (English): the 2016 and 2017 test exams, text-only questions, 4 or 5 options each.

The published file holds every exam with no split field, so the test split is chosen by year
(HEAD-QA's official split: 2013-2014 train, 2015 dev, 2016-2017 test), which reproduces its 2742
test questions; the 67 that refer to an image are left out as MedHELM does, leaving 2675.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

TEST_YEARS = frozenset({"2016", "2017"})
FILE = "HEAD_EN.json"


@reader("head_qa")
def read_head_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per text-only test question (of one category with `category=`); the correct option is `ra`."""
    category_wanted = args.get("category")
    data = json.loads(paths[FILE].read_text("utf-8"))
    for exam in data["exams"].values():
        year, category = exam["year"].strip(), exam["category"].strip()
        if year not in TEST_YEARS or (category_wanted and category != category_wanted):
            continue
        for question in exam["data"]:
            if (question.get("image") or "").strip():
                continue
            right = int(str(question["ra"]).strip())
            refs = tuple(Reference(str(answer["atext"]).strip(), int(answer["aid"]) == right)
                         for answer in question["answers"])
            if sum(ref.correct for ref in refs) != 1:
                raise ValueError(f"{exam['name']} question {question['qid']}: ra matches no single answer")
            qid = int(str(question["qid"]).strip())
            extra = MappingProxyType({"exam": exam["name"], "category": category, "year": year})
            yield Instance(f"{exam['name']}-{qid:03d}", question["qtext"].strip(), refs, extra=extra)
