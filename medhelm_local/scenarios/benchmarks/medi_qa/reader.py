"""MEDIQA 2019 Task 3 QA: the 150 test questions; the reference is the answer experts ranked first
(ReferenceRank 1), its text kept exactly as published."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from xml.etree import ElementTree

from medhelm_local.records import Instance, Reference
from medhelm_local.scenarios.readers import reader

TEST_SET = "MEDIQA_Task3_QA/MEDIQA2019-Task3-QA-TestSet-wLabels.xml"


def _text(element: ElementTree.Element, child: str, where: str) -> str:
    """The text of a required child element."""
    found = element.find(child)
    if found is None or not (found.text or "").strip():
        raise ValueError(f"{where} has no {child}")
    return found.text or ""


@reader("medi_qa")
def read_medi_qa(paths: Mapping[str, Path], args: Mapping[str, str]) -> Iterator[Instance]:
    """One instance per <Question>, keyed by its QID; the reference is its ReferenceRank-1 answer."""
    try:
        root = ElementTree.parse(paths[TEST_SET]).getroot()
    except ElementTree.ParseError as exc:
        raise ValueError(f"the test set is not well-formed XML ({exc})") from None
    for question in root.iterfind("Question"):
        qid = question.attrib["QID"]
        where = f"question {qid}"
        best = [a for a in question.iterfind("AnswerList/Answer") if int(a.get("ReferenceRank", "0")) == 1]
        if not best:
            raise ValueError(f"{where} has no answer with ReferenceRank 1")
        answer = best[0]
        extra = MappingProxyType({"answer_id": answer.get("AID", ""),
                                  "answer_url": (answer.findtext("AnswerURL") or "").strip()})
        yield Instance(qid, _text(question, "QuestionText", where),
                       (Reference(_text(answer, "AnswerText", f"{where}'s best answer")),), extra=extra)
