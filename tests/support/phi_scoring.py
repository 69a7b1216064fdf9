"""Token-level PHI scoring, shared by bench/phi.py and the tests: a gold token is recalled when any
predicted span covers it, whatever its type; precision is the share of predicted tokens inside gold PHI."""

from __future__ import annotations

import re
from collections import Counter

Gold = tuple[int, int, str, str]  # start, end, type ("" for neutral), class ("" when none)
Doc = tuple[str, list[Gold]]

TOKEN = re.compile(r"[^\W_]+")
GROUPS = {"dates": {"DATE"}, "phones": {"PHONE", "FAX"},
          "ids": {"SSN", "MRN", "HEALTH_PLAN", "ACCOUNT", "LICENSE", "VEHICLE", "DEVICE", "ID"}}
NOT_IN_OVERALL = {"GPE"}  # presidio's GPE mixes cities (PHI) with countries and states (not PHI)


class Tally:
    """Token counts of one set: gold and recalled per type and class, predicted and correct per detector type."""

    def __init__(self) -> None:
        self.gold: Counter[str] = Counter()
        self.hit: Counter[str] = Counter()
        self.pred: Counter[str] = Counter()
        self.pred_ok: Counter[str] = Counter()
        self.misses: Counter[str] = Counter()
        self.false_alarms: Counter[str] = Counter()
        self.tokens = 0  # every token of the texts, PHI or not: the denominator of false alarms per 1,000

    def add(self, doc: Doc, spans: list[tuple[int, int, str]]) -> None:
        text, gold = doc
        for m in TOKEN.finditer(text):
            a, b = m.span()
            self.tokens += 1
            mark = next(((t, c) for s, e, t, c in gold if s < b and a < e), None)
            found = next((t for s, e, t in spans if s < b and a < e), None)
            if mark is not None and mark[0] == "":
                continue
            if mark is not None:
                for key in (mark[0], f"{mark[0]}/{mark[1]}" if mark[1] else None):
                    if key:
                        self.gold[key] += 1
                        self.hit[key] += found is not None
                if found is None:
                    self.misses[f"{m.group()}/{mark[0]} in {text[max(0, a - 16):b + 16]!r}"] += 1
            if found is not None and (mark is None or mark[0] not in NOT_IN_OVERALL):
                self.pred[found] += 1
                self.pred_ok[found] += mark is not None
                if mark is None:
                    self.false_alarms[f"{m.group()}/{found} in {text[max(0, a - 16):b + 16]!r}"] += 1

    def recall(self, kinds: set[str] | None = None) -> float:
        keys = [k for k in self.gold if "/" not in k and k not in NOT_IN_OVERALL and (kinds is None or k in kinds)]
        return sum(self.hit[k] for k in keys) / max(1, sum(self.gold[k] for k in keys))

    def precision(self) -> float:
        return sum(self.pred_ok.values()) / max(1, sum(self.pred.values()))

    def per_thousand(self) -> tuple[float, float]:
        """Gold PHI tokens and false-alarm tokens per 1,000 tokens of text. Precision depends on how dense the
        PHI is: the same false alarms per 1,000 tokens cost more precision on notes that hold less PHI."""
        gold = sum(v for k, v in self.gold.items() if "/" not in k and k not in NOT_IN_OVERALL)
        false = sum(self.pred.values()) - sum(self.pred_ok.values())
        return 1000 * gold / max(1, self.tokens), 1000 * false / max(1, self.tokens)
