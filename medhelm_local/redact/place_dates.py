"""Dates right after a place in notes without case: when a patient was there ("at kindred 3/2, readmitted", "ADMITTED
TO CARNEY 3-2", "AT TUFTS IN 94"). facilities.py reads them after the places it found.
"""

from __future__ import annotations

from bisect import bisect_left

from medhelm_local.redact.facility_growth import FacilityGrowth
from medhelm_local.redact.tokens import Token
from medhelm_local.redact.types import PhiType, Span

# What a fraction after a place counts: "from lowell 1/2 tab", "1/2 strength", "3/4 of the way".
_PARTS_OF = frozenset({"tab", "tabs", "tablet", "tablets", "pill", "pills", "strength", "of", "dose", "doses", "way",
                       "full", "ns", "nss", "cup", "cups", "can", "cans", "bottle", "glass", "mile", "miles"})


class PlaceDates(FacilityGrowth):
    """A month and day or a two-digit year written right after a hospital or a town."""

    def _dates_after_places(self, tokens: list[Token], starts: list[int], spans: list[Span]) -> list[Span]:
        """A month and day, or a two-digit year, right after a place: when a patient was there ("at kindred 3/2,
        readmitted", "FOUND DOWN IN CHARLESTOWN 3/4", "ADMITTED TO CARNEY 3-2", "AT TUFTS IN 94"); not a ratio, a
        range or a measure ("3/4/1", "1/2 TAB", "2-3 TIMES")."""
        found = []
        for span in spans:
            if span.type not in (PhiType.HOSPITAL, PhiType.CITY):
                continue
            b = bisect_left(starts, span.end)
            if b >= len(tokens) or tokens[b - 1].kind == "d":
                continue  # a ward's number ends the span: "FELDBERG 7 3/4" is no date after it
            year = self._year_after_place(tokens, b, span.end)
            if year is not None:
                found.append(year)
                continue
            if b + 2 >= len(tokens):
                continue
            month, slash, day = tokens[b], tokens[b + 1], tokens[b + 2]
            if month.first or month.kind != "d" or slash.text not in ("/", "-") or day.kind != "d" \
                    or len(month.text) > 2 or len(day.text) > 2 or not 1 <= int(month.text) <= 12 \
                    or not 1 <= int(day.text) <= 31 \
                    or not 0 < month.start - span.end <= 2 or slash.start != month.end or day.start != slash.end:
                continue
            after = tokens[b + 3] if b + 3 < len(tokens) and not tokens[b + 3].first else None
            if after is not None and ((after.start == day.end and after.text in "/%-+") or after.kind == "d"
                                      or after.key in self.rules.words("units") or after.key in _PARTS_OF):
                continue
            found.append(Span(month.start, day.end, PhiType.DATE))
        return found

    def _year_after_place(self, tokens: list[Token], b: int, end: int) -> Span | None:
        """A two-digit year right after a place, or after "in" there: when a patient was treated there ("AT TUFTS IN
        94", "seen at mass general in 92.", "LOWELL GENERAL 99."); of a year's shape (00-09, 60-99), and without "in"
        only where the clause ends ("AT MGH 85 BPM" is a rate)."""
        k = b + (tokens[b].key == "in" and not tokens[b].first and tokens[b].start - end <= 2)
        if k + 1 > len(tokens):
            return None
        year = tokens[k]
        if year.kind != "d" or len(year.text) != 2 or year.first or (k == b and year.start - end > 2) \
                or not (year.text[0] == "0" or int(year.text) >= 60) or year.start - tokens[k - 1].end > 2:
            return None
        after = tokens[k + 1] if k + 1 < len(tokens) and not tokens[k + 1].first else None
        if after is None:
            return Span(year.start, year.end, PhiType.DATE)
        glued = after.start == year.end
        if (glued and (after.kind != "p" or after.text in "%/-+:")) or after.key in self.rules.words("units"):
            return None  # "IN 90S", "IN 94%", "99/60"
        if k == b and not (after.text in ".,;)" and glued):
            return None
        return Span(year.start, year.end, PhiType.DATE)
