"""The records of PHI detection: identifier types and typed character spans."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class PhiType(StrEnum):
    """A HIPAA Safe Harbor identifier kind; the value is what masks and JSONL output show."""

    NAME = "NAME"
    STREET = "STREET"
    CITY = "CITY"
    ZIP = "ZIP"
    HOSPITAL = "HOSPITAL"
    DATE = "DATE"
    AGE = "AGE"
    PHONE = "PHONE"
    FAX = "FAX"
    EMAIL = "EMAIL"
    URL = "URL"
    IP = "IP"
    SSN = "SSN"
    MRN = "MRN"
    HEALTH_PLAN = "HEALTH_PLAN"
    ACCOUNT = "ACCOUNT"
    LICENSE = "LICENSE"
    VEHICLE = "VEHICLE"
    DEVICE = "DEVICE"
    ID = "ID"

    @property
    def group(self) -> str:
        """The reporting group: name, location, date, age, contact or id."""
        return _GROUPS[self]


_GROUPS: dict[PhiType, str] = {
    PhiType.NAME: "name", PhiType.STREET: "location", PhiType.CITY: "location", PhiType.ZIP: "location",
    PhiType.HOSPITAL: "location", PhiType.DATE: "date", PhiType.AGE: "age", PhiType.PHONE: "phone",
    PhiType.FAX: "phone", PhiType.EMAIL: "contact", PhiType.URL: "contact", PhiType.IP: "contact",
    **{t: "id" for t in (PhiType.SSN, PhiType.MRN, PhiType.HEALTH_PLAN, PhiType.ACCOUNT, PhiType.LICENSE,
                         PhiType.VEHICLE, PhiType.DEVICE, PhiType.ID)},
}

# When two detections overlap, the merged span takes the type listed first here: a structured
# match (an e-mail address) explains its parts (a name inside it) better than they explain it.
PRIORITY: tuple[PhiType, ...] = (
    PhiType.EMAIL, PhiType.URL, PhiType.IP, PhiType.SSN, PhiType.FAX, PhiType.PHONE, PhiType.MRN,
    PhiType.HEALTH_PLAN, PhiType.ACCOUNT, PhiType.LICENSE, PhiType.VEHICLE, PhiType.DEVICE, PhiType.DATE,
    PhiType.AGE, PhiType.STREET, PhiType.HOSPITAL, PhiType.ZIP, PhiType.ID, PhiType.NAME, PhiType.CITY,
)


@dataclass(frozen=True, order=True)
class Span:
    """One identifier in a text: `text[start:end]` (code points, end-exclusive) is of `type`."""

    start: int
    end: int
    type: PhiType

    def to_dict(self) -> dict[str, int | str]:
        """The JSONL form: {"start", "end", "type"}."""
        return {"start": self.start, "end": self.end, "type": self.type.value}


def merge_spans(spans: list[Span]) -> list[Span]:
    """Sorted, non-overlapping spans: overlaps become their union, typed by PRIORITY."""
    rank = {t: i for i, t in enumerate(PRIORITY)}
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.end <= span.start:
            continue
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            kind = last.type if rank[last.type] <= rank[span.type] else span.type
            merged[-1] = Span(last.start, max(last.end, span.end), kind)
        else:
            merged.append(span)
    return merged
